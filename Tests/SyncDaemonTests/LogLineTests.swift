import Foundation
import Logging
import ServiceSupport
import Testing
@testable import SyncDaemon

/// The log lines a person (text) or a log shipper (json) reads, and the recent events
/// `syncctl log` asks the daemon for.
@Suite struct LogLineTests {
    static let record = LogRecord(
        time: Date(timeIntervalSince1970: 1_795_000_000.25), level: .info, label: "syncd",
        message: "sent 3 changes to the server", metadata: ["folder": "docs", "error": "no answer from x"], source: "SyncDaemon")

    @Test func textIsMessageFirstThenSortedDetails() {
        #expect(LogLine.text(Self.record, timestamp: false) == "info syncd: sent 3 changes to the server error=\"no answer from x\" folder=docs")
        let stamped = LogLine.text(Self.record, timestamp: true)
        #expect(stamped.hasPrefix("2026-11-18T"), "\(stamped)")
        #expect(stamped.hasSuffix(" info syncd: sent 3 changes to the server error=\"no answer from x\" folder=docs"))
    }

    @Test func jsonIsOneObjectALine() throws {
        let line = LogLine.json(Self.record)
        #expect(!line.contains("\n"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["level"] as? String == "info")
        #expect(object["message"] as? String == "sent 3 changes to the server")
        #expect(object["label"] as? String == "syncd")
        #expect((object["metadata"] as? [String: String]) == ["folder": "docs", "error": "no answer from x"])
        #expect((object["time"] as? String)?.hasPrefix("2026-11-18T") == true)
    }

    @Test func nestedMetadataIsFlattened() {
        #expect(LogLine.flatten(.array([.string("a"), .dictionary(["k": .string("v")])])) == "[a, [k: v]]")
    }

    @Test func journaldIsRecognizedByItsVariable() {
        #expect(ProcessLogHandler.underJournald(["JOURNAL_STREAM": "8:12345"]))
        #expect(!ProcessLogHandler.underJournald([:]))
    }

    @Test func theRingKeepsTheNewestAndSaysWhatWasLost() {
        let log = RecentLog(capacity: 5)
        for n in 1...8 {
            var record = Self.record
            record.message = "event \(n)"
            log.append(record)
        }
        #expect(log.entries(after: nil, limit: 3).entries.map(\.message) == ["event 6", "event 7", "event 8"])
        #expect(log.entries(after: nil, limit: 100).entries.map(\.seq) == [4, 5, 6, 7, 8])
        let after = log.entries(after: 1, limit: 2)
        #expect(after.entries.map(\.seq) == [4, 5])
        #expect(after.dropped == 2, "events 2 and 3 are gone")
        #expect(after.last == 8)
        #expect(log.entries(after: 8, limit: 10).entries.isEmpty)
        #expect(log.entries(after: 8, limit: 10).dropped == 0)
    }

    @Test func batchSummariesSayHowMuchAndHowFast() {
        #expect(BatchSummary.sent(changes: 12, bytes: 3 << 20, took: .milliseconds(500)) == "sent 12 changes to the server: 3.0 MiB in 0.50 s (6.0 MiB/s)")
        #expect(BatchSummary.applied(changes: 1, bytes: 0, took: .milliseconds(20)) == "applied 1 change from the server in 0.02 s")
        #expect(BatchSummary.size(500) == "500 B")
        #expect(BatchSummary.size(1536) == "1.5 KiB")
        #expect(BatchSummary.seconds(.seconds(42)) == "42 s")
    }
}
