import Foundation
@testable import Inotify
import Testing
import TestSupport

/// The watcher thread rests its inotify descriptor after each read (`EventRest`): a burst is
/// read a few hundred events at a time. Nothing may be lost or split by it.
@Suite(.timeLimit(.minutes(1)))
struct InotifyEventRestTests {
    @Test func aRestEndsOnTimeAndNeverLengthensAShorterTimeout() {
        var rest = EventRest()
        #expect(!rest.isResting(at: 5_000))
        #expect(rest.timeout(at: 5_000, otherwise: -1) == -1)
        #expect(rest.timeout(at: 5_000, otherwise: 20) == 20)
        rest.start(at: 5_000)
        #expect(rest.isResting(at: 5_000))
        #expect(rest.timeout(at: 5_000, otherwise: -1) == 1)
        // Rounded up: a poll that wakes a little early rests again for the rest of it.
        #expect(rest.timeout(at: 5_000 + 999_999, otherwise: -1) == 1)
        #expect(rest.timeout(at: 5_000, otherwise: 0) == 0)
        #expect(!rest.isResting(at: 5_000 + EventRest.length))
        #expect(rest.timeout(at: 5_000 + EventRest.length, otherwise: -1) == -1)
    }

    /// Real inotify: 2,000 files created, then each renamed within the tree, in bursts the
    /// thread reads with rests between: every create arrives, and every rename arrives as one
    /// move, in order, before a barrier asked for after them (a MOVED_FROM read without its
    /// MOVED_TO waits for the next read instead of becoming a delete).
    @Test func aBurstOfCreatesAndRenamesArrivesWholeAndPaired() async throws {
        let tmp = try TemporaryDirectory("inotify-rest")
        defer { tmp.remove() }
        let root = try tmp.sub("root")
        let (stream, watched) = await InotifyWatcher.shared.subscribe(root: root)
        _ = try watched.get()
        let count = 2000
        for i in 0..<count {
            // (Not `FileManager.createFile`: it writes a temporary file and renames it.)
            let fd = open("\(root)/f\(i)", O_WRONLY | O_CREAT | O_EXCL, 0o644)
            #expect(fd >= 0)
            close(fd)
        }
        for i in 0..<count {
            #expect(rename("\(root)/f\(i)", "\(root)/g\(i)") == 0)
        }
        #expect(await InotifyWatcher.shared.barrier(root: root, token: 22))
        var created: Set<String> = [], moved: [Int] = [], unpaired: [String] = []
        for await message in stream {
            if case .barrier(22) = message { break }
            guard case .event(let event) = message else {
                Issue.record("unexpected \(message)")
                break
            }
            let name = (event.path as NSString).lastPathComponent
            if event.flags.contains(.created) { created.insert(name) }
            if event.flags.contains(.movedTo) {
                if let from = event.movedFrom, from == "\(root)/f\(name.dropFirst())", let i = Int(name.dropFirst()) {
                    moved.append(i)
                } else {
                    unpaired.append(name)
                }
            }
            if event.flags == .movedFrom { unpaired.append(name) }
        }
        #expect(created.count == count, "\(created.count) creates")
        let firstUnpaired = unpaired.prefix(5).joined(separator: ", ")
        #expect(unpaired.count == 0, "\(unpaired.count) renames not read as one move, the first: \(firstUnpaired)")
        let inOrder = moved == Array(0..<count)
        #expect(inOrder, "\(moved.count) moves, or not in order")
    }
}

/// A MOVED_FROM that waits for its MOVED_TO is delivered as gone once the rest is over, with
/// no other event or barrier to wake the thread; a directory moved out and made again at once
/// keeps the watch of the new one. Real inotify.
@Suite(.timeLimit(.minutes(1)))
struct InotifyUnpairedMoveTests {
    @Test func aMoveOutOfTheTreeIsGoneWithoutAnotherEventAndANewDirectoryThereIsWatched() async throws {
        let tmp = try TemporaryDirectory("inotify-unpaired")
        defer { tmp.remove() }
        let root = try tmp.sub("root")
        let outside = try tmp.sub("outside")
        try FileManager.default.createDirectory(atPath: root + "/d", withIntermediateDirectories: true)
        let fd = open(root + "/leaving", O_WRONLY | O_CREAT | O_EXCL, 0o644)
        #expect(fd >= 0)
        close(fd)
        let (stream, watched) = await InotifyWatcher.shared.subscribe(root: root)
        _ = try watched.get()
        var events = stream.makeAsyncIterator()
        #expect(rename(root + "/leaving", outside + "/leaving") == 0)
        // No barrier, no other event: the thread must deliver it by itself.
        var gone = false
        while !gone, let message = await events.next() {
            if case .event(let event) = message, event.path == root + "/leaving", event.flags == .movedFrom { gone = true }
        }
        #expect(gone)
        // Moved out and made again in one go: the new directory's files are seen.
        #expect(rename(root + "/d", outside + "/d") == 0)
        #expect(mkdir(root + "/d", 0o755) == 0)
        // Its creation delivered: the new directory's watch was added before.
        var made = false
        while !made, let message = await events.next() {
            if case .event(let event) = message, event.path == root + "/d", event.flags.contains(.created) { made = true }
        }
        let inside = open(root + "/d/inside", O_WRONLY | O_CREAT | O_EXCL, 0o644)
        #expect(inside >= 0)
        close(inside)
        var seen = false
        while !seen, let message = await events.next() {
            if case .event(let event) = message, event.path == root + "/d/inside", event.flags.contains(.created) { seen = true }
        }
        #expect(seen, "a file in the directory made again was not seen")
    }
}
