import Foundation
import SyncCore
import Testing
import TestSupport

@testable import SyncDaemon

/// A batch renames each staged file into place through the directory it held since staging.
/// A directory the user moved or replaced in between is noticed before the rename, so the
/// file does not land where the records do not say (it goes the one-by-one way instead).
struct StagedPlacementTests {
    @Test func aDirectoryMovedOrReplacedAfterStagingIsNotInPlace() throws {
        let layout = try ContainmentTests.Layout()
        defer { layout.remove() }
        let assembler = FileAssembler(materializer: layout.materializer)
        let bytes = Array("hello".utf8)
        let entry = ContainmentTests.fileEntry("x/f", bytes: bytes)
        try #require(entry.chunks.count == 1)
        var open = OpenDirectories()
        let staged = try assembler.stage(entry, chunks: [entry.chunks[0]: bytes], reusing: &open)
        defer { assembler.discard(staged) }
        #expect(assembler.isInPlace(staged))

        let fm = FileManager.default
        try fm.moveItem(atPath: layout.folder + "/x", toPath: layout.folder + "/y")
        #expect(!assembler.isInPlace(staged))
        // Made again at the same path: another directory.
        try fm.createDirectory(atPath: layout.folder + "/x", withIntermediateDirectories: false)
        #expect(!assembler.isInPlace(staged))
        // The one it was staged in, back at its path.
        try fm.removeItem(atPath: layout.folder + "/x")
        try fm.moveItem(atPath: layout.folder + "/y", toPath: layout.folder + "/x")
        #expect(assembler.isInPlace(staged))
        // Replaced by a symlink to it: nothing below a symlink is part of the folder.
        try fm.moveItem(atPath: layout.folder + "/x", toPath: layout.folder + "/z")
        try fm.createSymbolicLink(atPath: layout.folder + "/x", withDestinationPath: "z")
        #expect(!assembler.isInPlace(staged))
        try fm.removeItem(atPath: layout.folder + "/x")
        try fm.moveItem(atPath: layout.folder + "/z", toPath: layout.folder + "/x")
    }

    /// A staged file has exactly the entry's mode, whatever the umask took when it was made
    /// (a `fchmod` then puts it back; a mode its owner cannot write is always put back so, the
    /// file being made writable for its writes), never setuid or setgid; the stat it carries,
    /// which the records keep, is the file's as it is on disk.
    @Test(arguments: [
        (0o644, 0o644), (0o600, 0o600), (0o777, 0o777), (0o666, 0o666), (0o444, 0o444), (0o1755, 0o1755), (0o4755, 0o755),
        (0, 0o644),
    ])
    func aStagedFileHasTheEntrysModeWhateverTheUmask(mode: UInt32, expected: UInt32) throws {
        let layout = try ContainmentTests.Layout()
        defer { layout.remove() }
        let assembler = FileAssembler(materializer: layout.materializer)
        let bytes = Array("mode \(mode)".utf8)
        let entry = ContainmentTests.fileEntry("m/f", bytes: bytes, mode: mode)
        var open = OpenDirectories()
        let staged = try assembler.stage(entry, chunks: [entry.chunks[0]: bytes], reusing: &open)
        defer { assembler.discard(staged) }
        #expect(staged.stat.mode & 0o7777 == expected)
        guard case .found(let onDisk) = staged.staging.lstat() else {
            Issue.record("the staging file is not there")
            return
        }
        #expect(onDisk == staged.stat)
        #expect(onDisk.mtimeNs == entry.mtimeNs)
    }
}
