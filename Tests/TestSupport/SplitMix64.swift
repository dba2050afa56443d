/// SplitMix64: tiny, and the same sequence on every platform and Swift version
/// (the standard library's `random(in:using:)` algorithms are not promised to be).
public struct SplitMix64: Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// 0..<n (the modulo bias is irrelevant at these sizes).
    public mutating func below(_ n: Int) -> Int {
        precondition(n > 0)
        return Int(next() % UInt64(n))
    }

    public mutating func int(in range: ClosedRange<Int>) -> Int { range.lowerBound + below(range.count) }

    /// A number in [0, 1), from the top 53 bits of the next value.
    public mutating func unit() -> Double { Double(next() >> 11) / Double(UInt64(1) << 53) }

    public mutating func chance(_ p: Double) -> Bool { unit() < p }

    public mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }
}
