import Foundation

/// Exponential backoff with jitter for transient failures. Pure: the caller
/// supplies the random source so tests can pin it.
public struct Backoff: Sendable, Equatable {
    public var initial: Double = 0.5
    public var maximum: Double = 60
    public var multiplier: Double = 2

    public init(initial: Double = 0.5, maximum: Double = 60, multiplier: Double = 2) {
        self.initial = initial
        self.maximum = maximum
        self.multiplier = multiplier
    }

    /// Delay before attempt number `attempt + 1`, in seconds; jitter in [0, 1)
    /// takes up to half of the delay off so clients do not retry in lockstep.
    public func delay(afterAttempt attempt: Int, jitter: Double) -> Double {
        let raw = initial * pow(multiplier, Double(min(attempt, 30)))
        let capped = min(raw, maximum)
        return capped * (1 - 0.5 * min(max(jitter, 0), 1))
    }
}
