import Foundation
import SyncControl
import Testing
import TestSupport

/// `syncctl status --watch` (issue 15 point 1) on real processes: through a pseudo-terminal
/// (util-linux `script`) what a person sees, and to a pipe what a script reads.
@Suite(.serialized, .timeLimit(.minutes(8)))
struct LiveStatusTests {
    /// What the terminal shows now: the last frame drawn (after the last cursor-home), escape
    /// codes taken out, the pty's CR LF as LF.
    static func screen(_ output: String) -> String {
        let frame = output.components(separatedBy: StatusWatch.Terminal.home).last ?? ""
        return frame.replacingOccurrences(of: "\u{1B}\\[[0-9;?]*[A-Za-z]", with: "", options: .regularExpression)
            .replacingOccurrences(of: "\r\n", with: "\n")
    }

    static func quoted(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: #"'\''"#) + "'" }

    /// Twenty files written while the folder is paused show as pending; resumed, the view goes
    /// to idle with nothing pending at the folder's new revision. It redraws in place (cursor
    /// home, clear to end), hides the cursor, and Ctrl-C ends it with the cursor shown again.
    @Test func aPersonSeesTheFolderGoIdleInATerminal() async throws {
        let rig = try await Rig.start("watch-tty")
        defer { rig.stop() }
        try await rig.daemon.waitUntilIdle()
        let command = [try Binaries.path("syncctl"), "--socket", rig.daemon.socketPath, "status", "--watch"].map(Self.quoted)
        // `exec`: `script` runs the command through $SHELL, and a shell that stayed would get the
        // terminal's SIGINT too and end with 130 whatever syncctl did.
        let view = try WatchedProcess("/usr/bin/script", ["-q", "-e", "-c", "exec " + command.joined(separator: " "), "/dev/null"])
        defer { view.stop() }
        do {
            try await eventually("the view shows docs idle") { Self.screen(view.output).contains("docs  idle") }
        } catch { throw TestFailure("\(error)\n--- output:\n\(view.output.suffix(1500).debugDescription)\n--- stderr:\n\(view.errorOutput)") }

        #expect(try await rig.daemon.syncctl("pause").status == 0)
        for i in 0..<20 { try writeFile(rig.daemon.path("note-\(i).txt"), "note \(i)\n") }
        do {
            try await eventually("the view shows 20 uploads pending, paused") {
                let shown = Self.screen(view.output)
                return shown.contains("docs  paused") && shown.contains("↑ 20 pending")
            }
        } catch { throw TestFailure("\(error)\n--- screen:\n\(Self.screen(view.output))") }

        #expect(try await rig.daemon.syncctl("resume").status == 0)
        try await rig.waitForServerTree(Dictionary(uniqueKeysWithValues: (0..<20).map { ("note-\($0).txt", contentHash("note \($0)\n")) }))
        let rev = try await rig.folderRev()
        do {
            try await eventually("the view shows docs idle at rev \(rev), nothing pending") {
                let shown = Self.screen(view.output)
                return shown.contains("docs  idle  rev \(rev)") && shown.contains("↑ 0 pending") && shown.contains("↓ 0 pending")
            }
        } catch { throw TestFailure("\(error)\n--- screen:\n\(Self.screen(view.output))") }
        let output = view.output
        #expect(output.contains(StatusWatch.Terminal.hideCursor), "the cursor is hidden while it draws")
        #expect(output.components(separatedBy: StatusWatch.Terminal.home).count > 3, "frames are redrawn in place")
        #expect(output.contains(StatusWatch.Terminal.clearToEnd))

        // Ctrl-C, through the terminal's line discipline: SIGINT to syncctl.
        try await Self.end(view, typing: "\u{03}")
    }

    /// Types `key` until the view ends (under load a first keystroke was seen not to reach the
    /// pty at all); it must end with 0, the cursor shown again.
    static func end(_ view: WatchedProcess, typing key: String) async throws {
        for _ in 0..<20 where view.isRunning {
            view.type(key)
            do { try await eventually("the view ends", timeout: .milliseconds(500)) { !view.isRunning } } catch {}
        }
        let status = try await view.exitStatus(within: .seconds(10))
        #expect(status == 0, "\(view.output.suffix(500).debugDescription)")
        let last = view.output.components(separatedBy: StatusWatch.Terminal.home).last ?? ""
        #expect(last.contains(StatusWatch.Terminal.showCursor), "the cursor is shown again: \(last.suffix(200).debugDescription)")
    }

    /// On a terminal the view takes keys: a push the server refused for good is shown with its
    /// error; `r` retries it (the view says so under its header), it goes up and the view shows
    /// the folder idle without the error; `q` ends the view with 0 and the cursor shown again.
    @Test func rInTheViewRetriesWhatWaitsAndQEndsIt() async throws {
        let (rig, proxy) = try await Rig.startBehindProxy("watch-keys")
        defer { proxy.stop(); rig.stop() }
        let d = rig.daemon
        proxy.refuseNext(requestContaining: "/commit", status: 422, code: "bad_request", message: "refused by the test")
        try writeFile(d.path("refused.txt"), "the server said no once")
        try await eventually("refused.txt failed for good") {
            let shown = try await d.status()?.errors.first { $0.path == "refused.txt" }
            return shown?.code == "rejected" && shown?.retryAt == nil
        }
        let command = [try Binaries.path("syncctl"), "--socket", d.socketPath, "status", "--watch"].map(Self.quoted)
        let view = try WatchedProcess("/usr/bin/script", ["-q", "-e", "-c", "exec " + command.joined(separator: " "), "/dev/null"])
        defer { view.stop() }
        do {
            try await eventually("the view shows the refused file and its keys") {
                let shown = Self.screen(view.output)
                return shown.contains("r retries now  q ends") && shown.contains("refused.txt")
            }
        } catch { throw TestFailure("\(error)\n--- output:\n\(view.output.suffix(1500).debugDescription)\n--- stderr:\n\(view.errorOutput)") }

        // Typed again until it shows: under load a first keystroke was seen not to reach the pty.
        for _ in 0..<20 where !Self.screen(view.output).contains("retrying now: docs (1 path)") {
            view.type("r")
            do {
                try await eventually("the view says it retries", timeout: .seconds(1)) {
                    Self.screen(view.output).contains("retrying now: docs")
                }
            } catch {}
        }
        let client = rig.server.client(credential: rig.credential)
        try await eventually("refused.txt is on the server after the key") {
            try await client.changes(folder: "docs", since: 0, limit: 10).entries.contains {
                $0.path == "refused.txt" && $0.contentHash == contentHash("the server said no once")
            }
        }
        do {
            try await eventually("the view shows docs idle without the error") {
                let shown = Self.screen(view.output)
                return shown.contains("docs  idle") && !shown.contains("! refused.txt")
            }
        } catch { throw TestFailure("\(error)\n--- screen:\n\(Self.screen(view.output))") }
        #expect(Self.screen(view.output).contains("retrying now: docs (1 path)"), "\(Self.screen(view.output))")

        try await Self.end(view, typing: "q")
    }

    /// To a pipe, `--json --watch` is NDJSON: every line a whole status object; the last one
    /// after a write is idle with the file committed. SIGINT ends it with 0.
    @Test func jsonWatchToAPipeIsOneStatusObjectPerLine() async throws {
        let rig = try await Rig.start("watch-json")
        defer { rig.stop() }
        try await rig.daemon.waitUntilIdle()
        let view = try WatchedProcess(try Binaries.path("syncctl"), ["--socket", rig.daemon.socketPath, "status", "--watch", "--json"])
        defer { view.stop() }
        try await eventually("a first status line") { view.output.hasSuffix("\n") }
        try writeFile(rig.daemon.path("one.txt"), "one\n")
        try await rig.waitForServerTree(["one.txt": contentHash("one\n")])
        let rev = try await rig.folderRev()
        var lines: [Substring] = []
        try await eventually("a line shows docs idle at rev \(rev)") {
            let output = view.output
            lines = output.split(separator: "\n")
            guard output.hasSuffix("\n"), let last = lines.last else { return false }
            let folder = try JSONDecoder().decode(StatusReport.self, from: Data(last.utf8)).folders.first
            return folder?.state == .idle && folder?.remoteCursor == rev && folder?.pendingUploads == 0
        }
        #expect(lines.count >= 2, "one line per change: \(lines)")
        for line in lines {
            do { _ = try JSONDecoder().decode(StatusReport.self, from: Data(line.utf8)) } catch {
                Issue.record("not a status object: \(line): \(error)")
            }
            #expect(line.hasPrefix(#"{"daemon":{"#))
        }
        view.signal(SIGINT)
        #expect(try await view.exitStatus(within: .seconds(10)) == 0)
        let unknown = try await rig.daemon.syncctl("status", "--watch", "--json", "nope")
        #expect(unknown.status == 1 && unknown.err.contains("no folder with id nope") && unknown.out.isEmpty, "\(unknown)")
    }

    /// Plain `--watch` to a pipe: lines, no escape codes; a daemon that goes away ends it with
    /// the usual sentence and exit 2.
    @Test func plainWatchToAPipeHasNoEscapeCodesAndEndsWhenTheDaemonGoes() async throws {
        let rig = try await Rig.start("watch-plain")
        defer { rig.stop() }
        try await rig.daemon.waitUntilIdle()
        let view = try WatchedProcess(try Binaries.path("syncctl"), ["--socket", rig.daemon.socketPath, "status", "--watch", "docs"])
        defer { view.stop() }
        try writeFile(rig.daemon.path("two.txt"), "two\n")
        try await rig.waitForServerTree(["two.txt": contentHash("two\n")])
        let rev = try await rig.folderRev()
        try await eventually("a line shows docs idle at rev \(rev)") {
            view.output.split(separator: "\n").last?.hasSuffix("docs: idle  ↑ 0 pending  ↓ 0 pending  rev \(rev)") == true
        }
        #expect(!view.output.contains("\u{1B}"), "\(view.output.debugDescription)")
        await rig.daemon.stop()
        // At the next poll: a connection that cannot be made is not tried again until the
        // request's 10 s deadline.
        #expect(try await view.exitStatus(within: .seconds(5)) == 2)
        #expect(view.errorOutput.contains("syncd is not running"), "\(view.errorOutput)")
    }
}
