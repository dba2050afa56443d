import Foundation
import SyncControl
import Testing
import TestSupport

/// `syncctl explain PATH` on a real daemon (issue 15 point 3): what a person sees, and the
/// `--json` a script reads.
@Suite(.serialized, .timeLimit(.minutes(8)))
struct ExplainTests {
    @Test func explainSaysSyncedIgnoredPendingAndOutside() async throws {
        let rig = try await Rig.start("explain")
        defer { rig.stop() }
        try writeFile(rig.daemon.path(".syncignore"), "# editor and build output\n*.log\n")
        try writeFile(rig.daemon.path("notes.txt"), "hello\n")
        try writeFile(rig.daemon.path("debug.log"), "noise\n")
        #expect(try await rig.daemon.syncctl("wait", "--timeout", "60s").status == 0)

        let synced = try await rig.daemon.syncctl("explain", rig.daemon.path("notes.txt"))
        #expect(synced.status == 0, "\(synced.out)\(synced.err)")
        #expect(synced.out.contains("docs:notes.txt: in sync") && synced.out.contains("In sync at revision"), "\(synced.out)")

        let ignored = try await rig.daemon.syncctl("explain", "debug.log", "--json")
        #expect(ignored.status == 0, "\(ignored.err)")
        let reply = try JSONDecoder().decode(ExplainReply.self, from: Data(ignored.out.utf8))
        #expect(reply.verdict == .ignored && reply.details.ignoreRule == "*.log" && reply.details.ignoreSource == ".syncignore:2", "\(ignored.out)")
        #expect(reply.sentence.contains("`*.log` from .syncignore line 2"))

        let outside = try await rig.daemon.syncctl("explain", "/etc/passwd")
        #expect(outside.status == 0 && outside.out.contains("outside") && outside.out.contains(rig.daemon.folderPath), "\(outside.out)")

        // Paused, a new file waits: pending, and the sentence says why it does not move.
        #expect(try await rig.daemon.syncctl("pause").status == 0)
        try writeFile(rig.daemon.path("later.txt"), "after the pause\n")
        var pending = try await rig.daemon.syncctl("explain", "later.txt")
        try await eventually("the new file is journaled") {
            pending = try await rig.daemon.syncctl("explain", "later.txt")
            return pending.out.contains("pending upload")
        }
        #expect(pending.status == 3 && pending.out.contains("syncctl resume docs"), "\(pending.out)")
        let escape = try await rig.daemon.syncctl("explain", "../outside.txt")
        #expect(escape.status == 1 && escape.err.contains("..") && !escape.err.contains("{"), "\(escape.err)")
    }

    /// A folder whose root is configured through a symlink (a home directory that is one,
    /// say): a shell's working directory is the resolved path (`getcwd`), and absolute paths
    /// may come either way; explain, history and retry --path take them as inside the folder
    /// (they said "not inside a synced folder").
    @Test func pathsResolvedAboveTheRootAreInsideIt() async throws {
        let tmp = try TemporaryDirectory("explain-symlinked-root")
        let server = try ServerProcess(dir: try tmp.sub("server"))
        let credential = try await server.provision(folder: "docs", device: "laptop")
        try await server.start()
        let real = try tmp.sub("real")
        let link = tmp.path + "/link"
        // A relative target, resolved from the link's directory (not the daemon's).
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "real")
        let daemon = try DaemonProcess(dir: link, folderID: "docs", serverURL: server.url, credential: credential)
        defer {
            daemon.stop()
            server.stop()
            tmp.remove()
        }
        try await daemon.start()
        try FileManager.default.createDirectory(atPath: daemon.path("sub"), withIntermediateDirectories: true)
        try writeFile(daemon.path("sub/notes.txt"), "hello\n")
        #expect(try await daemon.syncctl("wait", "--timeout", "60s").status == 0)
        let resolvedRoot = real + "/folder"

        let fromCwd = try await daemon.control.explain(path: "notes.txt", folder: nil, workingDirectory: resolvedRoot + "/sub")
        #expect(fromCwd.folder == "docs" && fromCwd.path == "sub/notes.txt" && fromCwd.verdict == .inSync, "\(fromCwd)")
        let absolute = try await daemon.control.explain(path: resolvedRoot + "/sub/notes.txt", folder: nil)
        #expect(absolute.folder == "docs" && absolute.path == "sub/notes.txt" && absolute.verdict == .inSync, "\(absolute)")
        // Through another symlink to a directory inside the folder.
        let elsewhere = tmp.path + "/elsewhere"
        try FileManager.default.createSymbolicLink(atPath: elsewhere, withDestinationPath: resolvedRoot + "/sub")
        let through = try await daemon.control.explain(path: elsewhere + "/notes.txt", folder: nil)
        #expect(through.folder == "docs" && through.path == "sub/notes.txt", "\(through)")
        let history = try await daemon.control.history(path: resolvedRoot + "/sub/notes.txt", folder: nil)
        #expect(history.versions.count == 1, "\(history)")
        // A symlink inside the folder is the path asked about, not what it points to.
        try FileManager.default.createSymbolicLink(atPath: daemon.path("l"), withDestinationPath: resolvedRoot + "/sub/notes.txt")
        let symlink = try await daemon.control.explain(path: resolvedRoot + "/l", folder: nil)
        #expect(symlink.folder == "docs" && symlink.path == "l", "\(symlink)")
        // A path below a directory that is not there.
        let nowhere = try await daemon.control.explain(path: resolvedRoot + "/gone/deeper/x.txt", folder: nil)
        #expect(nowhere.folder == "docs" && nowhere.path == "gone/deeper/x.txt", "\(nowhere)")
        // The resolved root names the whole folder.
        let retry = try await daemon.syncctl("retry", "--path", resolvedRoot)
        #expect(retry.status == 0 && retry.out.contains("docs"), "\(retry.out)\(retry.err)")
        // Still outside: a path beside the root, resolved or not.
        let beside = try await daemon.control.explain(path: real + "/state/index.sqlite", folder: nil)
        #expect(beside.verdict == .outside, "\(beside)")
    }
}
