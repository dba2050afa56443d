import Testing

@testable import SyncControl

/// The speed of `status --watch`, from samples given with their times.
@Suite struct StatusWatchRateTests {
    static func up(_ path: String, _ done: Int64, of total: Int64 = 100 << 20) -> Transfer {
        Transfer(path: path, direction: "upload", bytesDone: done, bytesTotal: total)
    }

    @Test func oneSampleHasNoSpeed() {
        var rate = TransferRate()
        rate.add([Self.up("a", 1 << 20)], at: .seconds(1))
        #expect(rate.bytesPerSecond("upload") == nil)
        #expect(rate.secondsLeft("upload", remaining: 10) == nil)
    }

    @Test func speedIsBytesGainedOverTime() {
        var rate = TransferRate()
        rate.add([Self.up("a", 0)], at: .seconds(0))
        rate.add([Self.up("a", 1 << 20)], at: .milliseconds(500))
        rate.add([Self.up("a", 2 << 20)], at: .seconds(1))
        #expect(rate.bytesPerSecond("upload") == Double(2 << 20))
        #expect(rate.bytesPerSecond("download") == 0)
        #expect(rate.secondsLeft("upload", remaining: 6 << 20) == 3)
    }

    /// A transfer first seen counts what it has done; one seen before counts what it gained;
    /// a file that ends (leaves the list) takes nothing away.
    @Test func newTransfersCountAndEndedOnesDoNotGoNegative() {
        var rate = TransferRate()
        rate.add([Self.up("a", 4 << 20)], at: .seconds(10))
        rate.add([Self.up("a", 5 << 20), Self.up("b", 1 << 20)], at: .seconds(11))
        #expect(rate.bytesPerSecond("upload") == Double(2 << 20))
        rate.add([Self.up("b", 2 << 20)], at: .seconds(12))
        #expect(rate.bytesPerSecond("upload") == Double(3 << 20) / 2)
    }

    /// Only the last `window` counts: after a quiet spell the speed is 0 again.
    @Test func oldSamplesLeaveTheWindow() {
        var rate = TransferRate(window: .seconds(2))
        rate.add([Self.up("a", 0)], at: .seconds(0))
        rate.add([Self.up("a", 8 << 20)], at: .seconds(1))
        #expect(rate.bytesPerSecond("upload") == Double(8 << 20))
        for t in 2...5 { rate.add([], at: .seconds(Int64(t))) }
        #expect(rate.bytesPerSecond("upload") == 0)
        #expect(rate.secondsLeft("upload", remaining: 1) == nil)
    }

    @Test func directionsAreApart() {
        var rate = TransferRate()
        let down = { (done: Int64) in Transfer(path: "v.mp4", direction: "download", bytesDone: done, bytesTotal: 1 << 30) }
        rate.add([Self.up("a", 0), down(0)], at: .seconds(0))
        rate.add([Self.up("a", 1 << 20), down(3 << 20)], at: .seconds(1))
        #expect(rate.bytesPerSecond("upload") == Double(1 << 20))
        #expect(rate.bytesPerSecond("download") == Double(3 << 20))
    }

    /// A transfer after a quiet spell shows its own speed, not one averaged with the quiet.
    @Test func aQuietStartDoesNotCount() {
        var rate = TransferRate(window: .seconds(5))
        for t in 0...4 { rate.add([], at: .seconds(Int64(t))) }
        rate.add([Self.up("a", 0)], at: .seconds(5))
        rate.add([Self.up("a", 4 << 20)], at: .seconds(6))
        #expect(rate.bytesPerSecond("upload") == Double(4 << 20))
        rate.add([Self.up("a", 8 << 20)], at: .seconds(7))
        #expect(rate.bytesPerSecond("upload") == Double(4 << 20))
    }
}
