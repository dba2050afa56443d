import SyncCore
import Testing

@testable import SyncDaemon

/// `Uploader.namesToLookAt`: after a batch committed a file with hard links, which of its
/// names are looked at again. Pure.
struct HardLinkNamesTests {
    /// Which names of a committed file with hard links are looked at again: the ones not in the
    /// batch, and a committed one read before a write through another name landed (another
    /// stat); not one read with the same stat as every committed name of its inode.
    @Test func theNamesLookedAtAgainAreTheOnesTheBatchDidNotReadAsWritten() {
        let a = LocalFileStoreTests.record("a", content: "new", inode: 5)
        var b = LocalFileStoreTests.record("b", content: "new", inode: 5)
        b.path = "b"
        #expect(Uploader.namesToLookAt(["a", "b", "c"], committed: ["a": a]) == ["b", "c"])
        #expect(Uploader.namesToLookAt(["a", "b", "c"], committed: ["a": a, "b": b]) == ["c"])
        var early = b
        early.mtimeNs -= 1
        early.ctimeNs -= 1
        #expect(Uploader.namesToLookAt(["a", "b"], committed: ["a": a, "b": early]) == ["a", "b"])
        // Another inode's stat does not count.
        let other = LocalFileStoreTests.record("o", content: "x", inode: 6)
        #expect(Uploader.namesToLookAt(["a", "o"], committed: ["a": a, "o": other]) == [])
    }
}
