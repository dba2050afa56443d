import SyncCore
import Testing

@testable import SyncDaemon

/// What a download expects to see again of its own work, and when the engine may drop an
/// event as that echo: a placed file while it is unchanged; a directory being made (its
/// event may come before `mkdir` returns), or made with its inode; never a path that went
/// away since; and a directory whose event was dropped but whose download then failed is
/// handed back to be journaled.
struct DownloadEchoesTests {
    static func stat(_ kind: EntryKind, inode: UInt64, size: Int64 = 0, mtimeNs: Int64 = 0) -> FileStat {
        FileStat(kind: kind, inode: inode, size: size, mtimeNs: mtimeNs, ctimeNs: 0, mode: 0o755)
    }

    @Test func aPlacedFileIsItsEchoOnceAndOnlyWhileUnchanged() {
        let echoes = DownloadEchoes()
        echoes.expect("a", stat: Self.stat(.file, inode: 7, size: 3, mtimeNs: 9))
        #expect(!echoes.consume("a", current: { Self.stat(.file, inode: 7, size: 4, mtimeNs: 9) }), "written to since")
        echoes.expect("a", stat: Self.stat(.file, inode: 7, size: 3, mtimeNs: 9))
        #expect(echoes.consume("a", current: { Self.stat(.file, inode: 7, size: 3, mtimeNs: 9) }))
        #expect(!echoes.consume("a", current: { Self.stat(.file, inode: 7, size: 3, mtimeNs: 9) }), "a second event is the user's")
        #expect(echoes.isEmpty)
    }

    /// A directory a remote move renames whole is the echo of the rename's event only, with
    /// the inode it had: not of a creation event there, not of another directory moved there.
    @Test func aDirectoryMovedWholeIsTheEchoOfItsRenameOnly() {
        let echoes = DownloadEchoes()
        echoes.expectMove("new", inode: 5)
        #expect(!echoes.consume("new", current: { Self.stat(.directory, inode: 5) }), "a creation event is not the rename's")
        #expect(!echoes.consume("new", moved: true, current: { Self.stat(.directory, inode: 8) }), "another directory moved there")
        echoes.expectMove("new", inode: 5)
        #expect(echoes.consume("new", moved: true, current: { Self.stat(.directory, inode: 5) }))
        #expect(!echoes.consume("new", moved: true, current: { Self.stat(.directory, inode: 5) }), "a second event is the user's")
        echoes.expectMove("new", inode: 5)
        echoes.forgetMove("new")
        #expect(!echoes.consume("new", moved: true, current: { Self.stat(.directory, inode: 5) }), "the move did not happen")
        // A download's directory is not a move's echo.
        echoes.expectDirectory("made")
        #expect(!echoes.consume("made", moved: true, current: { Self.stat(.directory, inode: 9) }))
        #expect(echoes.consume("made", current: { Self.stat(.directory, inode: 9) }))
    }

    @Test func aDirectoryIsItsEchoWhileMadeAndAfterWithItsInode() {
        let echoes = DownloadEchoes()
        echoes.expectDirectory("d")
        #expect(echoes.consume("d", current: { Self.stat(.directory, inode: 5) }), "seen before mkdir returned")
        echoes.recorded("d", inode: 5)
        #expect(echoes.isEmpty)
        #expect(echoes.takeUnrecorded().isEmpty)

        echoes.expectDirectory("e")
        echoes.recorded("e", inode: 6)
        #expect(!echoes.consume("e", current: { Self.stat(.directory, inode: 8) }), "another directory at the path")
        echoes.expectDirectory("e")
        echoes.recorded("e", inode: 6)
        #expect(!echoes.consume("e", current: { Self.stat(.file, inode: 6) }), "not a directory")
        echoes.expectDirectory("e")
        echoes.recorded("e", inode: 6)
        #expect(echoes.consume("e", current: { Self.stat(.directory, inode: 6, size: 4096, mtimeNs: 99) }), "filled since")
    }

    @Test func aDirectoryWhoseEventWasDroppedButWhoseDownloadFailedIsHandedBack() {
        let echoes = DownloadEchoes()
        echoes.expectDirectory("d")
        #expect(echoes.consume("d", current: { Self.stat(.directory, inode: 5) }))
        echoes.failed("d")
        #expect(echoes.takeUnrecorded() == ["d"])
        #expect(echoes.takeUnrecorded().isEmpty, "handed back once")
        // Failed before any event: nothing was dropped, nothing to hand back.
        echoes.expectDirectory("e")
        echoes.failed("e")
        #expect(echoes.takeUnrecorded().isEmpty)
        #expect(!echoes.consume("e", current: { Self.stat(.directory, inode: 6) }))
    }

    @Test func aPathThatWentAwayIsExpectedNoMoreNorAnythingBelowIt() {
        let echoes = DownloadEchoes()
        echoes.expectDirectory("p")
        echoes.recorded("p", inode: 1)
        echoes.expectDirectory("p/x")
        echoes.recorded("p/x", inode: 2)
        echoes.expect("p/x/f", stat: Self.stat(.file, inode: 3))
        echoes.expect("px", stat: Self.stat(.file, inode: 4))
        echoes.expectDirectory("p/being-made")
        echoes.forget("p")
        #expect(echoes.consume("p", current: { Self.stat(.directory, inode: 1) }), "a file gone from p is not the directory")
        echoes.expectDirectory("p")
        echoes.recorded("p", inode: 1)
        echoes.forgetDirectory("p")
        #expect(!echoes.consume("p", current: { Self.stat(.directory, inode: 1) }))
        #expect(!echoes.consume("p/x", current: { Self.stat(.directory, inode: 2) }))
        #expect(!echoes.consume("p/x/f", current: { Self.stat(.file, inode: 3) }))
        #expect(echoes.consume("px", current: { Self.stat(.file, inode: 4) }), "a sibling is not below")
        // One being made is kept: its download says how it ended.
        #expect(echoes.consume("p/being-made", current: { Self.stat(.directory, inode: 9) }))
    }

    @Test func lostEventsDropEverythingButWhatIsBeingMade() {
        let echoes = DownloadEchoes()
        echoes.expect("f", stat: Self.stat(.file, inode: 3))
        echoes.expectDirectory("d")
        echoes.recorded("d", inode: 2)
        echoes.expectDirectory("m")
        echoes.forgetAll()
        #expect(!echoes.consume("f", current: { Self.stat(.file, inode: 3) }))
        #expect(!echoes.consume("d", current: { Self.stat(.directory, inode: 2) }))
        #expect(echoes.consume("m", current: { Self.stat(.directory, inode: 7) }))
    }
}
