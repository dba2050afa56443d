import Foundation
import Testing
import TestSupport

@testable import SyncDaemon

/// A remote delete moves the file into the trash only if it is still what the delete was
/// planned against; a version written since is the user's, and stays in place.
@Suite struct TrashRaceTests {
    @Test func aFileWrittenSinceThePlanIsPutBackFromTheTrash() throws {
        let tmp = try TemporaryDirectory("trash-race")
        defer { tmp.remove() }
        let folder = tmp.path + "/folder", trash = tmp.path + "/trash"
        try FileManager.default.createDirectory(atPath: folder + "/sub", withIntermediateDirectories: true)
        try Data("planned".utf8).write(to: URL(fileURLWithPath: folder + "/sub/e.bin"))
        guard case .found(let planned) = FolderRoot(folder).lstat("sub/e.bin") else {
            Issue.record("no stat for the file")
            return
        }
        // The user appends after the delete was planned (and after any check made then).
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: folder + "/sub/e.bin"))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(" and appended".utf8))
        try handle.close()

        let materializer = Materializer(root: folder, trashRoot: trash)
        #expect(throws: DaemonError.self) {
            try materializer.moveToTrash("sub/e.bin", kind: .file, stamp: "20260101-000000-000", expected: planned)
        }
        #expect(try String(contentsOfFile: folder + "/sub/e.bin", encoding: .utf8) == "planned and appended")
        let trashed = (try? FileManager.default.subpathsOfDirectory(atPath: trash)) ?? []
        #expect(!trashed.contains { $0.hasSuffix("e.bin") }, "the written version is in the trash: \(trashed)")
    }

    @Test func anUnchangedFileGoesToTheTrash() throws {
        let tmp = try TemporaryDirectory("trash-plain")
        defer { tmp.remove() }
        let folder = tmp.path + "/folder", trash = tmp.path + "/trash"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Data("planned".utf8).write(to: URL(fileURLWithPath: folder + "/e.bin"))
        guard case .found(let planned) = FolderRoot(folder).lstat("e.bin") else {
            Issue.record("no stat for the file")
            return
        }
        try Materializer(root: folder, trashRoot: trash).moveToTrash("e.bin", kind: .file, stamp: "20260101-000000-000", expected: planned)
        #expect(!FileManager.default.fileExists(atPath: folder + "/e.bin"))
        #expect(try String(contentsOfFile: trash + "/20260101-000000-000/e.bin", encoding: .utf8) == "planned")
    }
}
