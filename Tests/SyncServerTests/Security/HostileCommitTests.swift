import Foundation
import HummingbirdTesting
import SyncCore
import Testing

@testable import SyncServerKit

/// What no honest client sends is refused with 400 and a message naming the
/// field, and nothing of the commit is stored (docs/security.md).
@Suite("Hostile commits")
struct HostileCommitTests {
    static func refused(_ changes: [CommitChange], naming needle: String) async throws {
        try await Fixture.with { fixture in
            try await fixture.server.makeApplication().test(.router) { client in
                let token = try await client.token(fixture.credential)
                let chunk = Make.bytes("payload")
                try await client.putChunk(chunk, token: token)
                let response = try await client.commit(changes, token: token)
                #expect(response.status == .badRequest, "\(response.text)")
                #expect(response.text.contains(needle), "\(response.text)")
                #expect(try await client.feed(token: token).entries.isEmpty, "nothing of a refused commit is stored")
            }
        }
    }

    static let payload = Make.bytes("payload")

    @Test func aFileBelowASymlinkInTheSameCommitIsRefused() async throws {
        try await Self.refused(
            [Make.symlink("esc", target: "/etc"), Make.file("esc/pwned.txt", chunks: [Self.payload])],
            naming: "symlink")
        // Whatever the order of the two.
        try await Self.refused(
            [Make.file("up/pwned.txt", chunks: [Self.payload]), Make.symlink("up", target: "..")],
            naming: "symlink")
    }

    @Test func aFileBelowAStoredSymlinkIsRefusedAndAMoveUnderItToo() async throws {
        try await Fixture.with { fixture in
            try await fixture.server.makeApplication().test(.router) { client in
                let token = try await client.token(fixture.credential)
                try await client.putChunk(Self.payload, token: token)
                let setup = try await client.commitOK(
                    [Make.symlink("esc", target: "/tmp"), Make.directory("dir"), Make.file("dir/f", chunks: [Self.payload])],
                    token: token)
                #expect(setup.results.allSatisfy { $0.status == .ok })
                let below = try await client.commit([Make.file("esc/deep/pwned.txt", chunks: [Self.payload])], token: token)
                #expect(below.status == .badRequest)
                #expect(below.text.contains("esc is a symlink"))
                let dirRev = setup.results[1].rev
                let move = try await client.commit([.move(from: "dir", to: "esc/dir", kind: .directory, baseRev: dirRev)], token: token)
                #expect(move.status == .badRequest, "\(move.text)")
                // Replacing a directory that still has content by a symlink is refused;
                // with its content deleted in the same commit it is fine.
                let over = try await client.commit([Make.symlink("dir", target: "/", base: dirRev)], token: token)
                #expect(over.status == .badRequest)
                let replaced = try await client.commitOK(
                    [Make.symlink("dir", target: "/", base: dirRev), Make.tombstone("dir/f", base: setup.results[2].rev)],
                    token: token)
                #expect(replaced.results.allSatisfy { $0.status == .ok })
            }
        }
    }

    @Test(arguments: [0o4755, 0o2755, 0o6777, 0o100644, UInt32.max])
    func setuidSetgidAndTypeBitsAreRefused(mode: UInt32) async throws {
        var change = Make.file("tool", chunks: [Self.payload])
        change.mode = mode
        try await Self.refused([change], naming: "mode")
    }

    @Test(arguments: [Int64.min, Int64.max, EntryLimits.mtimeNs.lowerBound - 1])
    func mtimesOutsideTheRangeAreRefused(mtime: Int64) async throws {
        var change = Make.file("old", chunks: [Self.payload])
        change.mtimeNs = mtime
        try await Self.refused([change], naming: "mtime_ns")
    }

    @Test func oversizeFieldsAreRefused() async throws {
        let longName = String(repeating: "n", count: 256)
        try await Self.refused([Make.file(longName, chunks: [Self.payload])], naming: "255")
        try await Self.refused([Make.symlink("l", target: String(repeating: "t", count: 4096))], naming: "symlink_target")
        let longPath = (0..<40).map { _ in String(repeating: "d", count: 120) }.joined(separator: "/")
        try await Self.refused([.move(from: longPath, to: "x", kind: .file, baseRev: 1)], naming: "move_from")
        var huge = Make.file("big", chunks: [Self.payload])
        huge.size = EntryLimits.maxFileSize + 1
        try await Self.refused([huge], naming: "size")
    }

    @Test func stickyBitAndPlainModesAreAccepted() async throws {
        try await Fixture.with { fixture in
            try await fixture.server.makeApplication().test(.router) { client in
                let token = try await client.token(fixture.credential)
                try await client.putChunk(Self.payload, token: token)
                var sticky = Make.directory("shared")
                sticky.mode = 0o1777
                let response = try await client.commitOK([sticky, Make.file("shared/a", chunks: [Self.payload])], token: token)
                #expect(response.results.allSatisfy { $0.status == .ok })
            }
        }
    }
}
