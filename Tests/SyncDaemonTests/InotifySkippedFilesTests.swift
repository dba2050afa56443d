import Foundation
import Inotify
import Testing
import TestSupport

/// A subscriber's filter drops the events of files named with its skipped prefix (the
/// daemon's own staging files) on the watcher thread. Real inotify.
struct InotifySkippedFilesTests {
    @Test func eventsOfSkippedFilesAreDroppedAndRenamesOutOfThemArriveAsArrivals() async throws {
        let tmp = try TemporaryDirectory("inotify-skipped")
        defer { tmp.remove() }
        let root = try tmp.sub("root")
        let filter = WatchFilter(skippingFilesNamed: ".tmp-")
        let (stream, watched) = await InotifyWatcher.shared.subscribe(root: root, filter: filter)
        #expect(throws: Never.self) { try watched.get() }
        // Written under a skipped name and renamed into place, as a download lands.
        #expect(FileManager.default.createFile(atPath: root + "/.tmp-1", contents: Data("staged".utf8)))
        try FileManager.default.moveItem(atPath: root + "/.tmp-1", toPath: root + "/landed")
        // A file renamed to a skipped name has left.
        #expect(FileManager.default.createFile(atPath: root + "/leaving", contents: Data("x".utf8)))
        try FileManager.default.moveItem(atPath: root + "/leaving", toPath: root + "/.tmp-2")
        // A directory with that prefix is not a file: its events arrive.
        try FileManager.default.createDirectory(atPath: root + "/.tmp-dir", withIntermediateDirectories: false)
        #expect(await InotifyWatcher.shared.barrier(root: root, token: 1))
        var events: [InotifyEvent] = []
        for await message in stream {
            if case .event(let event) = message { events.append(event) }
            if case .barrier = message { break }
        }
        let names = events.map { ($0.path as NSString).lastPathComponent }
        #expect(!names.contains { $0.hasPrefix(".tmp-") && $0 != ".tmp-dir" }, "a skipped file's event arrived: \(names)")
        let landed = events.first { $0.path.hasSuffix("/landed") && $0.flags.contains(.movedTo) }
        #expect(landed != nil && landed?.movedFrom == nil, "the rename into place is an arrival: \(events)")
        #expect(events.contains { $0.path.hasSuffix("/leaving") && $0.flags.contains(.movedFrom) }, "the rename away is a departure")
        #expect(names.contains(".tmp-dir"))
    }
}
