import Foundation
import Testing
import TestSupport

/// One daemon per state directory: a second syncd on it exits with a clear message
/// and touches nothing (the first one's index and journal stay as they were).
@Suite(.serialized, .timeLimit(.minutes(8)))
struct StateLockTests {
    @Test func aSecondDaemonOnTheSameStateDirectoryExitsAndTouchesNothing() async throws {
        let rig = try await Rig.start("state-lock")
        defer { rig.stop() }
        let d = rig.daemon
        try writeFile(d.path("a.txt"), "one\n")
        try await rig.waitForServerTree(["a.txt": contentHash("one\n")])
        try await d.waitUntilIdle()
        let stateDir = d.dir + "/state"
        let before = try Self.snapshot(stateDir)

        // The same config again (same socket), then a copy that only moves the socket:
        // both must stop at the state directory's lock.
        let sameConfig = try await Child.runToExit(try Binaries.path("syncd"), ["--config", d.configPath])
        let movedSocket = d.dir + "/second.toml"
        let text = try String(contentsOfFile: d.configPath, encoding: .utf8)
            .replacingOccurrences(of: d.socketPath, with: d.dir + "/second.sock")
        try writeFile(movedSocket, text)
        let otherSocket = try await Child.runToExit(try Binaries.path("syncd"), ["--config", movedSocket])

        for (label, run) in [("same config", sameConfig), ("other socket", otherSocket)] {
            #expect(run.status == 1, "\(label): exit status \(run.status)")
            #expect(run.err.contains("already using the state directory \(stateDir)"), "\(label): \(run.err)")
            #expect(run.err.contains("pid \(d.pid)"), "\(label) names the running daemon: \(run.err)")
        }
        let after = try Self.snapshot(stateDir)
        let changed = Set(before.keys).union(after.keys).filter { before[$0] != after[$0] }.sorted()
        #expect(changed.isEmpty, "the state directory is as the first daemon left it; changed: \(changed)")

        // The first daemon is undisturbed.
        try writeFile(d.path("b.txt"), "two\n")
        try await rig.waitForServerTree(["a.txt": contentHash("one\n"), "b.txt": contentHash("two\n")])
    }

    /// Every file under the state directory with its size and modification time, but the
    /// SQLite shared-memory file, which the first daemon's own reads touch, and its write-ahead
    /// log, which its own writes grow while it runs (a CI run under load took 45 s here, and
    /// the state directory differed). A second daemon past the lock would rewrite the lock
    /// file and the socket, and its index open and scan would reach the database file too.
    static func snapshot(_ dir: String) throws -> [String: [Int]] {
        var files: [String: [Int]] = [:]
        guard let walk = FileManager.default.enumerator(atPath: dir) else { throw TestFailure("cannot list \(dir)") }
        for case let name as String in walk where !name.hasSuffix("-shm") && !name.hasSuffix("-wal") {
            var st = stat()
            guard lstat(dir + "/" + name, &st) == 0 else { continue }
            files[name] = [Int(st.st_size), Int(st.st_mtim.tv_sec), Int(st.st_mtim.tv_nsec)]
        }
        return files
    }
}
