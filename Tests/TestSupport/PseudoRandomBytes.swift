/// Deterministic pseudo-random bytes (xorshift64*), fast enough for 50 MiB.
public func pseudoRandomBytes(count: Int, seed: UInt64) -> [UInt8] {
    var state = seed | 1
    var out = [UInt8](repeating: 0, count: count)
    out.withUnsafeMutableBytes { raw in
        let words = count / 8
        let w = raw.bindMemory(to: UInt64.self)
        for i in 0..<words {
            state ^= state >> 12
            state ^= state << 25
            state ^= state >> 27
            w[i] = state &* 2_685_821_657_736_338_717
        }
    }
    for i in (count / 8 * 8)..<count { out[i] = UInt8(truncatingIfNeeded: i &* 31) }
    return out
}
