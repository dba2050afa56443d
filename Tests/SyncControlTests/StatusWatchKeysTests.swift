import Foundation
import Testing

@testable import SyncControl

/// The live view's keys: what a byte asks for, and what the frame says of them.
@Suite struct StatusWatchKeysTests {
    @Test func rRetriesQEndsAndOtherKeysDoNothing() {
        #expect(StatusWatchKeys.action(for: UInt8(ascii: "r")) == .retry)
        #expect(StatusWatchKeys.action(for: UInt8(ascii: "R")) == .retry)
        #expect(StatusWatchKeys.action(for: UInt8(ascii: "q")) == .quit)
        #expect(StatusWatchKeys.action(for: UInt8(ascii: "Q")) == .quit)
        for byte in [UInt8(ascii: "x"), UInt8(ascii: " "), 0x1B, 0x0A, 0x03] {
            #expect(StatusWatchKeys.action(for: byte) == nil, "\(byte)")
        }
    }

    /// With keys the header names them (without, Ctrl-C); what the last key did is shown under
    /// it, and a new notice redraws the frame even when the report did not change.
    @Test func theHeaderNamesTheKeysAndTheNoticeRedraws() throws {
        let report = StatusWatchTests.report(StatusWatchTests.folder(.idle))
        var plain = StatusWatch(output: .terminal(width: nil, height: nil))
        let without = StatusWatchTests.shown(try #require(try plain.update(report, at: .zero)))
        #expect(without.first?.hasSuffix("every 0.5 s  Ctrl-C ends") == true, "\(without)")

        var watch = StatusWatch(output: .terminal(width: nil, height: nil))
        watch.keys = true
        let first = StatusWatchTests.shown(try #require(try watch.update(report, at: .zero)))
        #expect(first.first?.hasSuffix("every 0.5 s  r retries now  q ends") == true, "\(first)")
        #expect(first.dropFirst().first == "", "no notice: a blank line under the header")
        #expect(try watch.update(report, at: .milliseconds(500)) == nil)

        watch.notice = "retrying now: docs (1 path)"
        let noticed = StatusWatchTests.shown(try #require(try watch.update(report, at: .seconds(1))))
        #expect(Array(noticed.prefix(3).dropFirst()) == ["retrying now: docs (1 path)", ""], "\(noticed)")
        #expect(noticed.contains("docs  idle  rev 7  /home/ann/Docs"), "\(noticed)")

        watch.notice = nil
        let gone = StatusWatchTests.shown(try #require(try watch.update(report, at: .seconds(2))))
        #expect(!gone.contains("retrying now: docs (1 path)"))
    }

    /// Brought back from a stop, the view draws its whole screen again though nothing changed.
    @Test func aViewBroughtBackDrawsTheWholeScreenAgain() throws {
        let report = StatusWatchTests.report(StatusWatchTests.folder(.idle))
        var watch = StatusWatch(output: .terminal(width: nil, height: nil))
        #expect(try watch.update(report, at: .zero) != nil)
        #expect(try watch.update(report, at: .milliseconds(500)) == nil)
        watch.redrawNext()
        let again = try #require(try watch.update(report, at: .seconds(1)))
        #expect(again.hasPrefix(StatusWatch.Terminal.clearScreen + StatusWatch.Terminal.home))
        #expect(StatusWatchTests.shown(again).contains("docs  idle  rev 7  /home/ann/Docs"))
        #expect(try watch.update(report, at: .milliseconds(1500)) == nil, "calm again after")
    }

    @Test func aRetryReplySaysWhatItRetried() {
        #expect(RetryReply(folders: ["docs"], paths: 1).said == "retrying now: docs (1 path)")
        #expect(RetryReply(folders: ["docs", "photos"], paths: 0).said == "retrying now: docs, photos (0 paths)")
    }
}
