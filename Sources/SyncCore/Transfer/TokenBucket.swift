/// A token bucket for a byte rate, as a value: the caller supplies the time (any
/// monotonic instant), so it is tested without a clock.
///
/// `reserve(_:at:)` takes the bytes at once, letting the bucket go into debt, and answers
/// how long to wait before they may go: a transfer larger than the burst is paced, not
/// refused, and over any period the bytes let through stay within `rate × period + burst`.
/// A rate of 0 means unlimited (no wait ever).
public struct TokenBucket<Instant: InstantProtocol>: Sendable where Instant.Duration == Duration {
    /// Bytes per second; 0 = unlimited.
    public private(set) var rate: Int64
    /// Bytes that may go at once after a quiet time.
    public private(set) var burst: Int64
    /// Bytes available now (negative: owed by reservations not yet due).
    private var tokens: Double
    private var last: Instant

    /// A quarter of a second at the rate (at least 16 KiB): enough to keep a connection
    /// busy, small enough that a short transfer is still paced.
    public static func defaultBurst(rate: Int64) -> Int64 { max(rate / 4, 16 << 10) }

    public init(rate: Int64, burst: Int64? = nil, now: Instant) {
        self.rate = max(0, rate)
        self.burst = burst ?? Self.defaultBurst(rate: rate)
        self.tokens = Double(self.burst)
        self.last = now
    }

    /// Takes `bytes` and returns how long the caller waits before sending them.
    public mutating func reserve(_ bytes: Int, at now: Instant) -> Duration {
        guard rate > 0 else { return .zero }
        refill(at: now)
        tokens -= Double(bytes)
        guard tokens < 0 else { return .zero }
        let seconds = -tokens / Double(rate)
        return .nanoseconds(Int64((seconds * 1e9).rounded(.up)))
    }

    /// A new rate (a reload): what was owed at the old rate is kept as bytes, and the
    /// bucket is capped at the new burst.
    public mutating func setRate(_ newRate: Int64, at now: Instant) {
        refill(at: now)
        rate = max(0, newRate)
        burst = Self.defaultBurst(rate: rate)
        tokens = min(tokens, Double(burst))
        if rate == 0 { tokens = Double(burst) }
    }

    private mutating func refill(at now: Instant) {
        let elapsed = last.duration(to: now)
        last = now
        guard elapsed > .zero else { return }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        tokens = min(Double(burst), tokens + seconds * Double(rate))
    }
}
