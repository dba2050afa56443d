import Foundation
import GRDB
import SyncClient
import SyncCore
import Testing
import TestSupport

/// An "evil device" speaking the /v1 protocol with an ordinary credential, and
/// a server whose database holds what no honest client sends (one from before
/// these checks, or a compromised one): the other device's syncd writes
/// nothing outside its folder, keeps syncing and reports each refused entry.
@Suite(.serialized)
struct HostilePeerTests {
    static let mtime: Int64 = 1_700_000_000_000_000_000

    static func file(_ path: String, _ bytes: [UInt8], mode: UInt32 = 0o644, mtime: Int64 = mtime) -> CommitChange {
        let hash = Hashing.sha256Hex(bytes)
        return CommitChange(
            path: path, baseRev: 0, kind: .file, size: Int64(bytes.count), mtimeNs: mtime, mode: mode, chunks: [hash],
            contentHash: Hashing.contentHash(chunks: [hash]), deleted: false)
    }

    static func symlink(_ path: String, to target: String) -> CommitChange {
        CommitChange(
            path: path, baseRev: 0, kind: .symlink, size: 0, mtimeNs: mtime, mode: 0o777, chunks: [],
            contentHash: Hashing.sha256Hex(Array(target.utf8)), deleted: false, symlinkTarget: target)
    }

    /// Every hostile commit the server must refuse with 400, by name.
    static func hostileCommits(outside: String, payload: [UInt8]) -> [(String, [CommitChange])] {
        [
            ("symlink and file below it in one commit", [symlink("esc-abs", to: outside), file("esc-abs/pwned.txt", payload)]),
            ("file below a symlink committed earlier", [file("esc-stored/pwned.txt", payload)]),
            ("dot-dot path", [file("../pwned.txt", payload)]),
            ("absolute path", [file(outside + "/pwned.txt", payload)]),
            ("NUL in a path", [file("a\u{0}b.txt", payload)]),
            ("setuid mode", [file("tool", payload, mode: 0o4755)]),
            ("huge mtime", [file("old.txt", payload, mtime: Int64.min)]),
            ("oversize name", [file(String(repeating: "n", count: 300), payload)]),
        ]
    }

    @Test func anEvilDeviceCannotMakeAnotherDeviceWriteOutsideItsFolder() async throws {
        let two = try await TwoDevices.start("hostile")
        defer { two.stop() }
        let outside = try two.tmp.sub("outside-marker")
        let evil = two.server.client(credential: two.credentialA)
        let payload = Array("written by an evil device\n".utf8)
        try await evil.putChunk(folder: "docs", hash: Hashing.sha256Hex(payload), bytes: payload)

        // 1. Through the server: every hostile commit is refused, nothing stored.
        let stored = try await evil.commit(folder: "docs", changes: [Self.symlink("esc-stored", to: outside)])
        #expect(stored.results.first?.status == .ok)
        for (name, changes) in Self.hostileCommits(outside: outside, payload: payload) {
            do {
                _ = try await evil.commit(folder: "docs", changes: changes)
                Issue.record("the server accepted: \(name)")
            } catch {
                #expect(error.status == 400, "\(name): \(error)")
            }
        }

        // 2. Past the server (rows written straight into its database): beta refuses them.
        let rows: [CommitChange] = [
            Self.symlink("esc-abs", to: outside), Self.symlink("esc-up", to: ".."),
            Self.file("esc-abs/pwned.txt", payload), Self.file("esc-up/pwned.txt", payload),
            Self.file("esc-stored/deep/pwned.txt", payload),
            Self.file("tool", payload, mode: 0o6755), Self.file("old.txt", payload, mtime: Int64.min),
        ]
        let lit = ServerProcess.literal
        let inserts = rows.enumerated().map { n, change in
            """
            INSERT INTO entries (folder_id, path, kind, size, mtime_ns, mode, chunks, content_hash, deleted, rev, symlink_target, device_id)
            VALUES ('docs', \(lit(change.path)), \(lit(change.kind.rawValue)), \(change.size), \(change.mtimeNs), \(change.mode),
                    \(lit(change.chunks.joined(separator: ","))), \(lit(change.contentHash)), FALSE,
                    (SELECT rev FROM folders WHERE id = 'docs') + \(n + 1), \(lit(change.symlinkTarget)), 'evil')
            ON CONFLICT (folder_id, path) DO UPDATE SET kind = excluded.kind, size = excluded.size, mtime_ns = excluded.mtime_ns,
                mode = excluded.mode, chunks = excluded.chunks, content_hash = excluded.content_hash, deleted = excluded.deleted,
                rev = excluded.rev, symlink_target = excluded.symlink_target, device_id = excluded.device_id;
            """
        }
        try await two.server.sql(inserts.joined(separator: "\n") + "\nUPDATE folders SET rev = rev + \(rows.count) WHERE id = 'docs';")
        // An honest change after them wakes the feed.
        try writeFile(two.a.path("after.txt"), "honest")
        try await eventually("beta keeps syncing") {
            FileManager.default.contents(atPath: two.b.path("after.txt")) == Data("honest".utf8)
        }
        try await eventually("beta reports the entries below a symlink") {
            let errors = try await two.b.status()?.errors ?? []
            return ["esc-abs/pwned.txt", "esc-up/pwned.txt", "esc-stored/deep/pwned.txt"].allSatisfy { path in
                errors.contains { $0.path == path && $0.message.contains("symbolic link") && $0.code == "symlink_in_path" }
            }
        }
        // Nothing outside beta's folder: not in the marker, not beside the folder, not in its state.
        #expect(try FileManager.default.contentsOfDirectory(atPath: outside).isEmpty)
        let besideBeta = try FileManager.default.subpathsOfDirectory(atPath: two.b.dir).filter { $0.hasSuffix("pwned.txt") }
        #expect(besideBeta.isEmpty, "\(besideBeta)")
        // The setuid file arrives without setuid/setgid; the absurd mtime as a valid one.
        var st = stat()
        #expect(lstat(two.b.path("tool"), &st) == 0)
        #expect(st.st_mode & 0o7777 == 0o755)
        #expect(FileManager.default.contents(atPath: two.b.path("old.txt")) == Data(payload))
        // The symlinks themselves are synced as links, never followed.
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: two.b.path("esc-abs")) == outside)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: two.b.path("esc-up")) == "..")
    }
}
