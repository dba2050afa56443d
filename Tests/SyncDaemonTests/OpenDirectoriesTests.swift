import Foundation
import SyncCore
import Testing
import TestSupport

@testable import SyncDaemon

/// A batch resolves each directory once and reaches the other names in it through the same
/// handle; what it resolves is still refused where `FolderRoot.parent(of:)` refuses it.
struct OpenDirectoriesTests {
    @Test func aDirectoryIsWalkedOnceAndSymlinksAreStillRefused() throws {
        let layout = try ContainmentTests.Layout()
        defer { layout.remove() }
        let root = FolderRoot(layout.folder)
        var open = OpenDirectories()

        let a = try open.parent(of: "real/a", in: root)
        let b = try open.parent(of: "real/b", in: root)
        #expect(a.directory === b.directory)
        #expect(b.name == "b" && b.relative == "real/b")
        _ = try open.parent(of: "top", in: root)
        #expect(open.count == 2)

        for path in ["esc-abs/x", "esc-up/x", "real/../x", "", "/etc/passwd", "real//x"] {
            #expect(throws: DaemonError.self) { try open.parent(of: path, in: root) }
        }
        #expect(open.count == 2)

        // Created on the way when asked, as `parent(of:create:)` does.
        let made = try open.parent(of: "new/dir/file", in: root, create: true)
        #expect(made.lstat() == .missing)
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: layout.folder + "/new/dir", isDirectory: &isDirectory) && isDirectory.boolValue)
        #expect(try layout.outsideContents().isEmpty)
    }

    @Test func lookupGoesThroughTheHandlesHeld() throws {
        let layout = try ContainmentTests.Layout()
        defer { layout.remove() }
        try Data("hi".utf8).write(to: URL(fileURLWithPath: layout.folder + "/real/f"))
        let root = FolderRoot(layout.folder)
        var open = OpenDirectories()
        guard case .found(let stat) = open.lookup("real/f", in: root).stat else {
            Issue.record("real/f not found")
            return
        }
        #expect(stat.size == 2)
        #expect(open.lookup("real/g", in: root).stat == .missing)
        #expect(open.lookup("esc-abs/x", in: root).stat == .missing)
        #expect(open.count == 1)
    }
}
