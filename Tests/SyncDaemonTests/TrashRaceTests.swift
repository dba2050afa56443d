import Foundation
import Logging
import Testing
import TestSupport

@testable import SyncDaemon

/// A remote delete moves the file into the trash only if it is still what the delete was
/// planned against; a version written since, even in the instant between the check and the
/// move, is the user's and stays in place (to be pushed).
@Suite struct TrashRaceTests {
    /// A folder under the temporary directory and a trash either beside it or on another file
    /// system (/dev/shm, a tmpfs), where the trash is filled by copying.
    struct Layout {
        let tmp: TemporaryDirectory
        let trash: String
        var folder: String { tmp.path + "/folder" }

        init(trashElsewhere: Bool) throws {
            tmp = try TemporaryDirectory("trash-race")
            trash = trashElsewhere ? "/dev/shm/syncd-test-trash-\(UUID().uuidString.prefix(8))" : tmp.path + "/trash"
            try FileManager.default.createDirectory(atPath: folder + "/sub", withIntermediateDirectories: true)
            try Data("planned".utf8).write(to: URL(fileURLWithPath: folder + "/sub/e.bin"))
        }

        func remove() {
            tmp.remove()
            if trash.hasPrefix("/dev/shm/") { try? FileManager.default.removeItem(atPath: trash) }
        }

        var planned: FileStat? {
            guard case .found(let stat) = FolderRoot(folder).lstat("sub/e.bin") else { return nil }
            return stat
        }

        func trashed() -> [String] {
            ((try? FileManager.default.subpathsOfDirectory(atPath: trash)) ?? []).filter { $0.hasSuffix("e.bin") }
        }

        /// Everything in the folder's directory `sub`: nothing left behind under a staging name.
        func inSub() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: folder + "/sub").sorted() }
    }

    @Test(arguments: [false, true])
    func aFileWrittenBetweenTheCheckAndTheMoveIsPutBack(trashElsewhere: Bool) throws {
        let layout = try Layout(trashElsewhere: trashElsewhere)
        defer { layout.remove() }
        if trashElsewhere { #expect(try Self.device((layout.trash as NSString).deletingLastPathComponent) != Self.device(layout.folder), "the trash is not on another file system") }
        let planned = try #require(layout.planned)
        var materializer = Materializer(root: layout.folder, trashRoot: layout.trash)
        let file = layout.folder + "/sub/e.bin"
        // The user appends after the check passed, just before the move.
        materializer.beforeTrashMove = {
            guard let handle = FileHandle(forWritingAtPath: file) else { return }
            handle.seekToEndOfFile()
            handle.write(Data(" and appended".utf8))
            handle.closeFile()
        }
        var code: DaemonError.Code?
        do {
            try materializer.moveToTrash("sub/e.bin", kind: .file, stamp: "20260101-000000-000", expected: planned)
        } catch {
            code = error.code
        }
        #expect(code == .changedMeanwhile)
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "planned and appended")
        #expect(layout.trashed().isEmpty, "the written version is in the trash")
        #expect(try layout.inSub() == ["e.bin"])
    }

    @Test(arguments: [false, true])
    func anUnchangedFileGoesToTheTrash(trashElsewhere: Bool) throws {
        let layout = try Layout(trashElsewhere: trashElsewhere)
        defer { layout.remove() }
        let planned = try #require(layout.planned)
        try Materializer(root: layout.folder, trashRoot: layout.trash)
            .moveToTrash("sub/e.bin", kind: .file, stamp: "20260101-000000-000", expected: planned)
        #expect(try layout.inSub().isEmpty)
        #expect(try String(contentsOfFile: layout.trash + "/20260101-000000-000/sub/e.bin", encoding: .utf8) == "planned")
    }

    /// The directories a move to the trash returns for its barrier include those new trash
    /// directories were made in: fsynced, they keep a power cut from leaving the trashed file
    /// in lost+found; the trash root, the first time, and the directories made above it too. A
    /// second move into the same directories returns only its two.
    @Test func aMoveToTheTrashReturnsTheParentsOfTheTrashDirectoriesItMade() throws {
        let layout = try Layout(trashElsewhere: false)
        defer { layout.remove() }
        try Data("second".utf8).write(to: URL(fileURLWithPath: layout.folder + "/sub/f.bin"))
        // A trash root not made yet, nor the two directories above it.
        let state = layout.tmp.path + "/state"
        let trashRoot = state + "/trash/docs"
        let materializer = Materializer(root: layout.folder, trashRoot: trashRoot)
        let stamp = "20260101-000000-000"
        func inodes(_ handles: [DirectoryHandle]) -> Set<UInt64> { Set(handles.compactMap { $0.identity?.inode }) }
        func inode(_ path: String) throws -> UInt64 {
            var st = stat()
            guard stat(path, &st) == 0 else { throw TestFailure("stat \(path): errno \(errno)") }
            return UInt64(st.st_ino)
        }
        let first = try materializer.moveToTrash("sub/e.bin", kind: .file, stamp: stamp, expected: layout.planned)
        let source = try inode(layout.folder + "/sub")
        let bin = trashRoot + "/" + stamp
        #expect(
            inodes(first) == [
                source, try inode(bin + "/sub"), try inode(bin), try inode(trashRoot), try inode(state + "/trash"),
                try inode(state), try inode(layout.tmp.path),
            ])
        guard case .found(let planned) = FolderRoot(layout.folder).lstat("sub/f.bin") else { throw TestFailure("no f.bin") }
        let second = try materializer.moveToTrash("sub/f.bin", kind: .file, stamp: stamp, expected: planned)
        #expect(inodes(second) == [source, try inode(bin + "/sub")])
    }

    /// A directory's removal checks it is the one planned: one made anew at its path since is
    /// the user's (planned again), and stays.
    @Test func aDirectoryMadeAnewAtItsPathIsNotRemoved() throws {
        let layout = try Layout(trashElsewhere: false)
        defer { layout.remove() }
        let folder = FolderRoot(layout.folder)
        try FileManager.default.createDirectory(atPath: layout.folder + "/empty", withIntermediateDirectories: false)
        guard case .found(let planned) = folder.lstat("empty") else { throw TestFailure("no directory") }
        try FileManager.default.moveItem(atPath: layout.folder + "/empty", toPath: layout.folder + "/kept")
        try FileManager.default.createDirectory(atPath: layout.folder + "/empty", withIntermediateDirectories: false)
        let materializer = Materializer(root: layout.folder, trashRoot: layout.trash)
        var code: DaemonError.Code?
        do {
            try materializer.moveToTrash("empty", kind: .directory, stamp: "20260101-000000-000", expected: planned)
        } catch {
            code = error.code
        }
        #expect(code == .changedMeanwhile)
        #expect(FileManager.default.fileExists(atPath: layout.folder + "/empty"))
        // The planned one, where it is now, goes.
        guard case .found(let kept) = folder.lstat("kept") else { throw TestFailure("no directory") }
        try materializer.moveToTrash("kept", kind: .directory, stamp: "20260101-000000-000", expected: kept)
        #expect(!FileManager.default.fileExists(atPath: layout.folder + "/kept"))
    }

    /// A file that cannot be copied to a trash on another file system (a full one: a 64 KiB
    /// tmpfs) goes back to its place whole, with nothing left under a staging name or as a
    /// partial copy in the trash; the error says the disk is full.
    @Test func aFileThatCannotBeCopiedToAFullTrashGoesBackWhole() throws {
        let tmp = try TemporaryDirectory("trash-full")
        defer { tmp.remove() }
        let folder = try tmp.sub("folder")
        let trash = try tmp.sub("trash")
        try Self.tool("/bin/mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", trash])
        defer { try? Self.tool("/bin/umount", [trash]) }
        try FileManager.default.createDirectory(atPath: folder + "/sub", withIntermediateDirectories: true)
        let bytes = Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try bytes.write(to: URL(fileURLWithPath: folder + "/sub/big.bin"))
        guard case .found(let planned) = FolderRoot(folder).lstat("sub/big.bin") else { throw TestFailure("no file") }
        var failure: DaemonError?
        do {
            try Materializer(root: folder, trashRoot: trash).moveToTrash("sub/big.bin", kind: .file, stamp: "20260101-000000-000", expected: planned)
        } catch {
            failure = error
        }
        #expect(failure?.isDiskFull == true, "\(String(describing: failure))")
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder + "/sub/big.bin")) == bytes, "back whole")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder + "/sub") == ["big.bin"], "nothing under a staging name")
        let inTrash = try FileManager.default.subpathsOfDirectory(atPath: trash).filter { $0.hasSuffix("big.bin") }
        #expect(inTrash.isEmpty, "a partial copy is left in the trash: \(inTrash)")
    }

    static func tool(_ path: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw TestFailure("\(path) \(arguments) exited \(process.terminationStatus)") }
    }

    static func device(_ path: String) throws -> UInt64 {
        var st = stat()
        guard stat(path, &st) == 0 else { throw TestFailure("stat \(path): errno \(errno)") }
        return UInt64(st.st_dev)
    }

    /// A kill during the copy to a trash on another file system leaves the file under a trash
    /// staging name beside its old place (its delete is done: its intent finds the path
    /// empty). The next start moves it to the trash rather than removing it with the download
    /// staging files, which it still removes.
    @Test(arguments: [false, true])
    func aFileLeftOnItsWayToTheTrashGoesThereAtTheNextStart(trashElsewhere: Bool) throws {
        let layout = try Layout(trashElsewhere: trashElsewhere)
        defer { layout.remove() }
        if trashElsewhere { #expect(try Self.device((layout.trash as NSString).deletingLastPathComponent) != Self.device(layout.folder), "the trash is not on another file system") }
        let onItsWay = "sub/" + Materializer.trashStagingName(for: "e2.bin")
        let download = "sub/" + Materializer.stagingName()
        try Data("the deleted file".utf8).write(to: URL(fileURLWithPath: layout.folder + "/" + onItsWay))
        try Data("half a download".utf8).write(to: URL(fileURLWithPath: layout.folder + "/" + download))
        let index = try IndexStore(path: layout.tmp.path + "/index.sqlite")
        let housekeeping = FolderHousekeeping(
            folder: "f", root: FolderRoot(layout.folder), index: index, trash: Trash(root: layout.trash),
            trashRetention: .seconds(60), logger: Logger(label: "trash-race-test"))

        housekeeping.removeStagingFiles([onItsWay, download])

        #expect(try layout.inSub() == ["e.bin"], "a staging file is left in the folder")
        let kept = try FileManager.default.subpathsOfDirectory(atPath: layout.trash).filter {
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: layout.trash + "/" + $0, isDirectory: &isDirectory) && !isDirectory.boolValue
        }
        #expect(kept.count == 1 && kept.first?.hasSuffix("/sub/e2.bin") == true, "in the trash: \(kept)")
        if let path = kept.first {
            #expect(try String(contentsOfFile: layout.trash + "/" + path, encoding: .utf8) == "the deleted file")
        }
    }

    /// A kill before the check that puts back a file written while it was moved leaves the
    /// new version under the trash staging name. The next start tells it from the file the
    /// delete planned by its intent (inode; size, mtime and mode as planned): the written one
    /// goes back to its place, journaled (to be pushed: an edit beats a delete); the one as
    /// planned goes to the trash; one with no intent too.
    @Test func aFileWrittenBeforeTheKillGoesBackNotToTheTrash() throws {
        let layout = try Layout(trashElsewhere: true)
        defer { layout.remove() }
        let index = try IndexStore(path: layout.tmp.path + "/index.sqlite")
        let housekeeping = FolderHousekeeping(
            folder: "f", root: FolderRoot(layout.folder), index: index, trash: Trash(root: layout.trash),
            trashRetention: .seconds(60), logger: Logger(label: "trash-race-test"))
        func leftOnItsWay(_ name: String, _ content: String) throws -> (String, FileStat) {
            let path = "sub/" + Materializer.trashStagingName(for: name)
            try Data(content.utf8).write(to: URL(fileURLWithPath: layout.folder + "/" + path))
            guard case .found(let stat) = FolderRoot(layout.folder).lstat(path) else { throw TestFailure("no \(path)") }
            return (path, stat)
        }
        func intent(_ path: String, planned stat: FileStat) -> DeleteIntent {
            let local = LocalRecord(
                path: path, kind: .file, inode: stat.inode, size: stat.size, mtimeNs: stat.mtimeNs, ctimeNs: stat.ctimeNs,
                mode: stat.mode, contentHash: "h", chunks: [], symlinkTarget: nil)
            return DeleteIntent(
                entry: DeleteIntentTests.tombstone(path, rev: 2), inode: stat.inode, ctimeNs: stat.ctimeNs, previousLocal: local,
                previousBase: nil)
        }
        let (written, writtenStat) = try leftOnItsWay("w.bin", "planned and then appended")
        var planned = writtenStat
        planned.size -= 13  // as it was when the delete was planned
        let (asPlanned, asPlannedStat) = try leftOnItsWay("p.bin", "as planned")
        let (noIntent, _) = try leftOnItsWay("n.bin", "no intent")
        let intents = ["sub/w.bin": intent("sub/w.bin", planned: planned), "sub/p.bin": intent("sub/p.bin", planned: asPlannedStat)]

        for path in [written, asPlanned, noIntent] { housekeeping.keepInTrash(path, intents: intents) }

        #expect(try layout.inSub() == ["e.bin", "w.bin"])
        #expect(try String(contentsOfFile: layout.folder + "/sub/w.bin", encoding: .utf8) == "planned and then appended")
        #expect(try index.journal.claim(folder: "f", limit: 10).map(\.path) == ["sub/w.bin"], "the file put back is not journaled")
        let trashed = try FileManager.default.subpathsOfDirectory(atPath: layout.trash).compactMap { $0.split(separator: "/").last }
            .filter { $0.hasSuffix(".bin") }.sorted()
        #expect(trashed == ["n.bin", "p.bin"])
    }
}
