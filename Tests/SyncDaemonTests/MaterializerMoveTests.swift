import Foundation
import Testing
import TestSupport

@testable import SyncDaemon

/// A remote move applied as a local rename (`Materializer.move`) on a real folder: the stat
/// it returns is recorded with the remote content's hash, so it must never be one that
/// matches bytes the user wrote while the move ran.
struct MaterializerMoveTests {
    static func folder(_ label: String) throws -> (TemporaryDirectory, String, FileStat) {
        let tmp = try TemporaryDirectory(label)
        let root = tmp.path + "/folder"
        try FileManager.default.createDirectory(atPath: root + "/d", withIntermediateDirectories: true)
        try Data("the planned bytes".utf8).write(to: URL(fileURLWithPath: root + "/a.txt"))
        guard case .found(let stat) = FolderRoot(root).lstat("a.txt") else { throw TestFailure("no a.txt") }
        return (tmp, root, stat)
    }

    @Test func aWriteAfterTheRenameIsNotRecordedAsTheMovedContent() throws {
        let (tmp, root, planned) = try Self.folder("materializer-move-after")
        defer { tmp.remove() }
        let materializer = Materializer(root: root, trashRoot: tmp.path + "/trash")
        // The user appends to the file in the instant after the stat taken before the rename.
        let moved = try materializer.move(
            "a.txt", to: "d/b.txt", expected: planned, mode: planned.mode, mtimeNs: planned.mtimeNs,
            beforeRename: { _ in
                guard let handle = FileHandle(forWritingAtPath: root + "/a.txt") else { return }
                handle.seekToEndOfFile()
                handle.write(Data(" and more".utf8))
                do { try handle.close() } catch { Issue.record("close: \(error)") }
            })
        guard case .found(let now) = FolderRoot(root).lstat("d/b.txt") else { throw TestFailure("not moved") }
        #expect(now.size == planned.size + 9)
        #expect(moved.stat.size == planned.size, "the stat recorded is the user's file's")
        let record = LocalRecord(
            path: "d/b.txt", kind: .file, inode: moved.stat.inode, size: moved.stat.size, mtimeNs: moved.stat.mtimeNs,
            ctimeNs: moved.stat.ctimeNs, mode: moved.stat.mode, contentHash: "h", chunks: [], symlinkTarget: nil)
        #expect(!record.matches(now), "the record would hide the user's write")
    }
}
