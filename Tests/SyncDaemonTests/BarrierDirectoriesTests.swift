import Foundation
import Testing
import TestSupport

@testable import SyncDaemon

/// `BarrierDirectories`: up to 8 distinct directories are kept (each fsynced by the
/// barrier); past that, one handle per file system (each synced once). Real directories.
struct BarrierDirectoriesTests {
    @Test func pastEightDirectoriesOneHandlePerFileSystemIsKept() throws {
        let tmp = try TemporaryDirectory("barrier")
        defer { tmp.remove() }
        let root = FolderRoot(tmp.path)
        var barrier = BarrierDirectories()
        for i in 0..<8 {
            // Each rename opens its own handles: the same directory twice is one.
            barrier.add([try root.parent(of: "d\(i)/a", create: true).directory, try root.parent(of: "d\(i)/b").directory])
        }
        #expect(barrier.handles.count == 8)
        #expect(!barrier.wide)
        try barrier.sync()
        barrier.add([try root.parent(of: "d8/a", create: true).directory])
        #expect(barrier.wide)
        #expect(barrier.handles.count == 1, "one file system")
        barrier.add([try root.parent(of: "d9/a", create: true).directory])
        #expect(barrier.handles.count == 1)
        try barrier.sync()
    }
}
