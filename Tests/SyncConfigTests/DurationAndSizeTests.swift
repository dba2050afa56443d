import Testing
@testable import SyncConfig

@Suite struct DurationParsingTests {
    static let valid: [(String, Duration)] = [
        ("0", .zero), ("0s", .zero), ("200ms", .milliseconds(200)), ("100ms", .milliseconds(100)),
        ("1h", .seconds(3600)), ("30d", .seconds(30 * 86_400)), ("1m", .seconds(60)), ("45s", .seconds(45)),
        ("1h30m", .seconds(5400)), ("500us", .microseconds(500)), ("500µs", .microseconds(500)),
        ("7ns", .nanoseconds(7)), ("1.5h", .seconds(5400)), ("0.25s", .milliseconds(250)),
        ("1d12h", .seconds(129_600)), ("2m30s500ms", .milliseconds(150_500)),
    ]

    @Test(arguments: valid)
    func parsesValid(text: String, expected: Duration) {
        #expect(ConfigDurations.parse(text) == expected)
    }

    @Test(arguments: ["", "-1s", "+1s", "1", "10", "ms", "1x", "1hr", "1 h", " 1h", "1h ", "1.h", ".5s",
                      "1h-30m", "1H", "1e3s", "0x10s", "99999999999d", "1h30", "s1"])
    func rejectsInvalid(text: String) {
        #expect(ConfigDurations.parse(text) == nil)
    }

    @Test(arguments: ["0", "1h30m", "100ms", "30d", "1d2h3m4s5ms6us7ns"])
    func formatRoundTrips(text: String) throws {
        let duration = try #require(ConfigDurations.parse(text))
        #expect(ConfigDurations.format(duration) == text)
    }
}

@Suite struct SizeParsingTests {
    static let valid: [(String, Int64)] = [
        ("0", 0), ("512", 512), ("512B", 512), ("4KiB", 4096), ("10MiB", 10 << 20), ("1GiB", 1 << 30),
        ("2TiB", 2 << 40), ("10KB", 10_000), ("10MB", 10_000_000), ("3GB", 3_000_000_000),
        ("1TB", 1_000_000_000_000), ("1.5MiB", 1_572_864), ("0.5KiB", 512), ("1.1KiB", 1126),
    ]

    @Test(arguments: valid)
    func parsesValid(text: String, bytes: Int64) {
        #expect(ByteSize.parse(text) == ByteSize(bytes: bytes))
    }

    @Test(arguments: ["", "-1", "+1", "10mib", "10mb", "10kb", "10 MiB", "1.5B", "1.5", "MiB", "10MiB/s",
                      "10PiB", "9999999TiB", "1e3", "10K", "1.MiB", "99999999999999999999"])
    func rejectsInvalid(text: String) {
        #expect(ByteSize.parse(text) == nil)
    }

    @Test func parsesRates() {
        #expect(ByteSize.parseRate("10MiB/s") == ByteSize(bytes: 10 << 20))
        #expect(ByteSize.parseRate("10MiB") == ByteSize(bytes: 10 << 20))
        #expect(ByteSize.parseRate("0") == .zero)
        #expect(ByteSize.parseRate("0/s") == .zero)
        #expect(ByteSize.parseRate("/s") == nil)
        #expect(ByteSize.parseRate("10MiB/h") == nil)
        #expect(ByteSize.parseRate("10MiB/s/s") == nil)
    }

    @Test func describes() {
        #expect(ByteSize(bytes: 10 << 20).description == "10MiB")
        #expect(ByteSize(bytes: 1500).description == "1500B")
        #expect(ByteSize.zero.description == "0B")
    }
}
