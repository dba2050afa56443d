import Foundation
import Glibc
import SyncCore
import Testing
import TestSupport

@testable import SyncDaemon

/// Nothing a remote entry names may touch a file outside the folder: every
/// path is resolved beneath the root without following a symlink, on real
/// directories with real symlinks pointing out of the folder.
struct ContainmentTests {
    /// A folder `<dir>/folder` with `esc-abs → <dir>/outside` (absolute),
    /// `esc-up → ..` and `real/` (a plain directory), and the trash beside it.
    struct Layout {
        let tmp: TemporaryDirectory
        var dir: String { tmp.path }
        var folder: String { dir + "/folder" }
        var outside: String { dir + "/outside" }
        var trash: String { dir + "/trash" }
        var materializer: Materializer { Materializer(root: folder, trashRoot: trash) }

        init() throws {
            tmp = try TemporaryDirectory("contain")
            for d in [dir + "/folder/real", dir + "/outside"] {
                try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
            }
            try FileManager.default.createSymbolicLink(atPath: folder + "/esc-abs", withDestinationPath: outside)
            try FileManager.default.createSymbolicLink(atPath: folder + "/esc-up", withDestinationPath: "..")
        }

        /// Everything in the outside directory and next to the folder, recursively.
        func outsideContents() throws -> [String] {
            let inOutside = try FileManager.default.subpathsOfDirectory(atPath: outside)
            let beside = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0 != "folder" && $0 != "outside" }
            return inOutside + beside
        }

        func remove() { tmp.remove() }
    }

    static func fileEntry(_ path: String, bytes: [UInt8], mode: UInt32 = 0o644, mtimeNs: Int64 = 1_700_000_000_000_000_000)
        -> WireEntry
    {
        let chunked = FileChunker().chunk(bytes: bytes)
        return WireEntry(
            path: path, kind: .file, size: chunked.size, mtimeNs: mtimeNs, mode: mode, chunks: chunked.chunks.map(\.hash),
            contentHash: chunked.contentHash, deleted: false, rev: 1)
    }

    static func write(_ entry: WireEntry, bytes: [UInt8], with materializer: Materializer, expected: FileStat? = nil)
        async throws -> FileStat
    {
        try await FileAssembler(materializer: materializer).writeFile(
            entry, expected: expected, copySource: nil, localChunks: nil, fetch: { _ in bytes }, progress: { _ in },
            beforeRename: { _ in }
        ).stat
    }

    /// The code of the `DaemonError` that `body` throws (nil when it does not throw one).
    static func code(_ body: () throws -> Void) -> DaemonError.Code? {
        do {
            try body()
            return nil
        } catch let error as DaemonError {
            return error.code
        } catch {
            Issue.record("unexpected error \(error)")
            return nil
        }
    }

    static func refusal(_ body: () async throws -> Void) async -> DaemonError? {
        do {
            try await body()
            return nil
        } catch let error as DaemonError {
            return error
        } catch {
            Issue.record("unexpected error \(error)")
            return nil
        }
    }

    @Test(arguments: ["esc-abs/pwned.txt", "esc-up/pwned.txt", "esc-abs/deeper/pwned.txt", "real/../esc-up/pwned.txt"])
    func aFileBelowASymlinkIsRefusedAndNothingIsWrittenOutside(path: String) async throws {
        let layout = try Layout()
        defer { layout.remove() }
        let bytes = Array("owned\n".utf8)
        let error = await Self.refusal {
            _ = try await Self.write(Self.fileEntry(path, bytes: bytes), bytes: bytes, with: layout.materializer)
        }
        #expect(error?.isRefusal == true, "got \(String(describing: error))")
        #expect(try layout.outsideContents().isEmpty)
        #expect(!FileManager.default.fileExists(atPath: layout.folder + "/real/pwned.txt"))
    }

    /// A rename into a place planned as empty never replaces what appeared there meanwhile.
    @Test func aRenameIntoAnEmptyPlaceDoesNotReplaceANewFile() throws {
        let layout = try Layout()
        defer { layout.remove() }
        try Data("staged".utf8).write(to: URL(fileURLWithPath: layout.folder + "/real/staged"))
        try Data("the user's".utf8).write(to: URL(fileURLWithPath: layout.folder + "/real/target"))
        let root = FolderRoot(layout.folder)
        let staged = try root.parent(of: "real/staged")
        #expect(staged.renameNoReplace(to: try root.parent(of: "real/target")) == -1 && errno == EEXIST)
        #expect(try String(contentsOfFile: layout.folder + "/real/target", encoding: .utf8) == "the user's")
        #expect(staged.renameNoReplace(to: try root.parent(of: "real/free")) == 0)
        #expect(try String(contentsOfFile: layout.folder + "/real/free", encoding: .utf8) == "staged")
    }

    /// A pinned root that is another directory now (an unmounted disk's mount point)
    /// is neither written nor read as empty.
    @Test func aPinnedRootThatChangedIsNotWrittenNorReadAsEmpty() throws {
        let layout = try Layout()
        defer { layout.remove() }
        try Data("kept".utf8).write(to: URL(fileURLWithPath: layout.folder + "/real/kept.txt"))
        var st = stat()
        #expect(stat(layout.folder, &st) == 0)
        let pin = RootPin()
        let root = FolderRoot(layout.folder, pin: pin)
        pin.set(RootIdentity(device: UInt64(st.st_dev), inode: UInt64(st.st_ino)))
        guard case .found = root.lstat("real/kept.txt") else {
            Issue.record("the pinned root itself must work")
            return
        }
        pin.set(RootIdentity(device: UInt64(st.st_dev), inode: UInt64(st.st_ino) &+ 1))
        #expect(throws: DaemonError.self) { try root.parent(of: "real/new.txt", create: true) }
        #expect(Self.code { _ = try root.parent(of: "real/new.txt", create: true) } == .rootChanged)
        guard case .failed(let code) = root.lstat("real/kept.txt") else {
            Issue.record("a changed root must not read as 'missing'")
            return
        }
        #expect(code == ESTALE)
        #expect(!FileManager.default.fileExists(atPath: layout.folder + "/real/new.txt"))
    }

    @Test func directoriesSymlinksRenamesAndTrashBelowASymlinkAreRefused() async throws {
        let layout = try Layout()
        defer { layout.remove() }
        let m = layout.materializer
        #expect(await Self.refusal { _ = try m.makeDirectory("esc-abs/sub", mode: 0o755) }?.code == .symlinkInPath)
        #expect(await Self.refusal { _ = try m.makeDirectory("esc-up/sub", mode: 0o755) }?.code == .symlinkInPath)
        #expect(await Self.refusal { _ = try m.makeSymlink("esc-abs/link", target: "/etc/passwd", expected: nil) }?.code == .symlinkInPath)
        try Data("mine".utf8).write(to: URL(fileURLWithPath: layout.folder + "/real/mine.txt"))
        #expect(await Self.refusal { try m.rename("real/mine.txt", to: "esc-abs/mine.txt") }?.code == .symlinkInPath)
        // A file outside, reached through the link, is not moved into the trash.
        try Data("keep".utf8).write(to: URL(fileURLWithPath: layout.outside + "/keep.txt"))
        try m.moveToTrash("esc-abs/keep.txt", kind: .file, stamp: "20260101-000000-000")
        #expect(FileManager.default.fileExists(atPath: layout.outside + "/keep.txt"))
        // What is below a symlink does not exist as far as the folder is concerned.
        #expect(try m.inspect("esc-abs/keep.txt", record: nil).view == .absent)
        #expect(FolderRoot(layout.folder).lstat("esc-abs/keep.txt") == .missing)
        #expect(try layout.outsideContents() == ["keep.txt"])
    }

    @Test func theSymlinkItselfIsReplacedNotFollowed() async throws {
        let layout = try Layout()
        defer { layout.remove() }
        // A remote file at the symlink's own path replaces the link; the target is untouched.
        let bytes = Array("plain file now\n".utf8)
        guard case .found(let link) = FolderRoot(layout.folder).lstat("esc-abs"), link.kind == .symlink else {
            Issue.record("esc-abs should be a symlink")
            return
        }
        _ = try await Self.write(Self.fileEntry("esc-abs", bytes: bytes), bytes: bytes, with: layout.materializer, expected: link)
        var st = stat()
        #expect(lstat(layout.folder + "/esc-abs", &st) == 0 && st.st_mode & S_IFMT == S_IFREG)
        #expect(try layout.outsideContents().isEmpty)
    }

    @Test func setuidAndSetgidBitsAreNeverSet() async throws {
        let layout = try Layout()
        defer { layout.remove() }
        let bytes = Array("#!/bin/sh\n".utf8)
        let stat = try await Self.write(Self.fileEntry("real/tool", bytes: bytes, mode: 0o6755), bytes: bytes, with: layout.materializer)
        #expect(stat.mode == 0o755)
        let dir = try layout.materializer.makeDirectory("real/shared", mode: 0o3777)
        #expect(dir.mode & 0o6000 == 0)
    }

    @Test(arguments: [Int64.min, Int64.max, -1, -1_500_000_001])
    func anyMtimeLandsAsAValidTime(mtimeNs: Int64) async throws {
        let layout = try Layout()
        defer { layout.remove() }
        let bytes = Array("t".utf8)
        let stat = try await Self.write(Self.fileEntry("real/t", bytes: bytes, mtimeNs: mtimeNs), bytes: bytes, with: layout.materializer)
        let clamped = min(max(mtimeNs, EntryLimits.mtimeNs.lowerBound), EntryLimits.mtimeNs.upperBound)
        if abs(clamped) < 1 << 31 * 1_000_000_000 {
            #expect(stat.mtimeNs == clamped)
        } else {
            // The file system may clamp further (ext4 with small inodes: 1901-2038); the direction holds.
            #expect(stat.mtimeNs.signum() == clamped.signum())
        }
    }

    @Test func scansAndPreparationsDoNotGoBelowASymlink() throws {
        let layout = try Layout()
        defer { layout.remove() }
        try Data("secret".utf8).write(to: URL(fileURLWithPath: layout.outside + "/secret.txt"))
        let scanner = Scanner(root: layout.folder, skip: { _, _ in false })
        #expect(Self.code { _ = try scanner.scan(below: "esc-abs") } == .unreadableDirectory)
        #expect(try scanner.scan().items.map(\.path).sorted() == ["esc-abs", "esc-up", "real"])
        let preparer = Preparer(folder: FolderRoot(layout.folder))
        let prepared = preparer.prepare(path: "esc-abs/secret.txt", local: nil, base: nil, liveBelow: { [] })
        guard case .unchanged(nil, "esc-abs/secret.txt", false) = prepared else {
            Issue.record("a path below a symlink must read as gone, got \(prepared)")
            return
        }
        // A .syncignore that is a symlink is not read through.
        try FileManager.default.createSymbolicLink(atPath: layout.folder + "/.syncignore", withDestinationPath: layout.outside + "/secret.txt")
        #expect(Self.code { _ = try IgnoreRules.readFile(in: FolderRoot(layout.folder)) } == .symlinkInPath)
    }

    @Test func aDirectoryReplacedByASymlinkCommitsTheTombstonesBelowIt() throws {
        let layout = try Layout()
        defer { layout.remove() }
        let preparer = Preparer(folder: FolderRoot(layout.folder))
        let base = BaseRecord(path: "esc-abs", kind: .directory, rev: 3, contentHash: Hashing.contentHash(chunks: []), deleted: false)
        let below = BaseRecord(path: "esc-abs/a.txt", kind: .file, rev: 4, contentHash: "h", deleted: false)
        // (The index's `liveBase(under:)` lists the path itself too.)
        guard case .change(let changes) = preparer.prepare(path: "esc-abs", local: nil, base: base, liveBelow: { [base, below] }) else {
            Issue.record("expected a change")
            return
        }
        #expect(changes.map(\.change.path) == ["esc-abs/a.txt", "esc-abs"])
        #expect(changes.map(\.change.deleted) == [true, false])
        #expect(changes.last?.change.kind == .symlink)
        // The symlink replaces the directory: it is sent on the directory's base rev (a
        // tombstone of the directory first would leave that rev stale and the link refused).
        #expect(changes.last?.change.baseRev == 3)
    }

    @Test func aDirectoryReplacedByAFileReplacesItOnItsBaseRev() throws {
        let layout = try Layout()
        defer { layout.remove() }
        try Data("now a file".utf8).write(to: URL(fileURLWithPath: layout.folder + "/real-dir"))
        let preparer = Preparer(folder: FolderRoot(layout.folder))
        let base = BaseRecord(path: "real-dir", kind: .directory, rev: 5, contentHash: Hashing.contentHash(chunks: []), deleted: false)
        let below = BaseRecord(path: "real-dir/x", kind: .file, rev: 6, contentHash: "h", deleted: false)
        guard case .change(let changes) = preparer.prepare(path: "real-dir", local: nil, base: base, liveBelow: { [base, below] })
        else {
            Issue.record("expected a change")
            return
        }
        #expect(changes.map(\.change.path) == ["real-dir/x", "real-dir"])
        #expect(changes.map(\.change.deleted) == [true, false])
        #expect(changes.last?.change.kind == .file)
        #expect(changes.last?.change.baseRev == 5)
    }

    /// An upload's read of a path whose root is no longer the pinned directory (a disk
    /// unmounted under its mount point) is "look again", never "deleted": a tombstone
    /// from an empty mount point would delete the file on every other device.
    @Test func aPreparationUnderAReplacedRootIsNotADelete() throws {
        let layout = try Layout()
        defer { layout.remove() }
        let pin = RootPin()
        pin.set(RootIdentity(device: 0, inode: 1))  // not this root
        let preparer = Preparer(folder: FolderRoot(layout.folder, pin: pin))
        let base = BaseRecord(path: "real/gone.txt", kind: .file, rev: 4, contentHash: "h", deleted: false)
        let prepared = preparer.prepare(path: "real/gone.txt", local: nil, base: base, liveBelow: { [base] })
        guard case .unstable = prepared else {
            Issue.record("expected to look again, got \(prepared)")
            return
        }
    }
}
