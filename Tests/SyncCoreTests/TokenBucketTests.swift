import Testing

@testable import SyncCore

/// A clock instant the tests move by hand.
struct FakeInstant: InstantProtocol {
    var offset: Duration
    func advanced(by duration: Duration) -> FakeInstant { FakeInstant(offset: offset + duration) }
    func duration(to other: FakeInstant) -> Duration { other.offset - offset }
    static func < (lhs: FakeInstant, rhs: FakeInstant) -> Bool { lhs.offset < rhs.offset }
    static let zero = FakeInstant(offset: .zero)
}

struct TokenBucketTests {
    /// `senders` send `piece`-byte pieces back to back, each waiting what the bucket says;
    /// returns the bytes that went within `period` (the rate is changed to `newRate` at `changeAt`).
    static func simulate(
        rate: Int64, piece: Int, senders: Int = 1, period: Duration = .seconds(10),
        changeAt: Duration? = nil, newRate: Int64 = 0
    ) -> Int64 {
        var bucket = TokenBucket(rate: rate, now: FakeInstant.zero)
        var next = Array(repeating: Duration.zero, count: senders)  // when each sender asks again
        var sent: Int64 = 0
        var changed = false
        while true {
            let i = next.indices.min { next[$0] < next[$1] }!
            let now = next[i]
            if let changeAt, !changed, now >= changeAt {
                bucket.setRate(newRate, at: FakeInstant(offset: changeAt))
                changed = true
            }
            let wait = bucket.reserve(piece, at: FakeInstant(offset: now))
            let goes = now + wait
            guard goes <= period else { return sent }
            sent += Int64(piece)
            next[i] = goes
        }
    }

    @Test(arguments: [
        (Int64(512 << 10), 64 << 10, 1), (Int64(512 << 10), 16 << 10, 4), (Int64(1 << 20), 1 << 20, 2),
        (Int64(100_000), 1_500, 8), (Int64(10 << 20), 256 << 10, 4),
    ])
    func keepsTheRateWithinTenPercentOverTenSeconds(rate: Int64, piece: Int, senders: Int) {
        let sent = Self.simulate(rate: rate, piece: piece, senders: senders)
        let expected = Double(rate) * 10
        #expect(abs(Double(sent) - expected) <= expected * 0.1, "sent \(sent) bytes, expected about \(Int64(expected))")
    }

    @Test func piecesLargerThanTheBurstArePacedNotRefused() {
        var bucket = TokenBucket(rate: 1000, now: FakeInstant.zero)
        let burst = bucket.burst
        #expect(bucket.reserve(Int(burst), at: .zero) == .zero)
        #expect(bucket.reserve(5000, at: .zero) == .seconds(5))
        #expect(bucket.reserve(1000, at: FakeInstant(offset: .seconds(5))) == .seconds(1))
    }

    @Test func zeroIsUnlimited() {
        var bucket = TokenBucket(rate: 0, now: FakeInstant.zero)
        for _ in 0..<1000 { #expect(bucket.reserve(1 << 30, at: .zero) == .zero) }
    }

    @Test func aQuietTimeSavesAtMostOneBurst() {
        var bucket = TokenBucket(rate: 1000, now: FakeInstant.zero)
        let burst = Int(bucket.burst)
        let later = FakeInstant(offset: .seconds(3600))
        #expect(bucket.reserve(burst, at: later) == .zero)
        #expect(bucket.reserve(1000, at: later) == .seconds(1))
    }

    @Test func aNewRateAppliesFromTheChange() {
        // 5 s at 512 KiB/s, then 5 s at 128 KiB/s.
        let sent = Self.simulate(
            rate: 512 << 10, piece: 32 << 10, senders: 2, changeAt: .seconds(5), newRate: 128 << 10)
        let expected = Double((512 << 10) * 5 + (128 << 10) * 5)
        #expect(abs(Double(sent) - expected) <= expected * 0.1, "sent \(sent), expected about \(Int64(expected))")
        // Lifting the limit: no more waits.
        var bucket = TokenBucket(rate: 1000, now: FakeInstant.zero)
        _ = bucket.reserve(100_000, at: .zero)
        bucket.setRate(0, at: .zero)
        #expect(bucket.reserve(1 << 20, at: .zero) == .zero)
    }
}
