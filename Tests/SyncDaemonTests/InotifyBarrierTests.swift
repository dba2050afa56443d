import Foundation
import Inotify
import Testing
import TestSupport

/// `InotifyWatcher.barrier` (what `syncctl wait` stands on): every event the kernel had
/// queued when it was asked comes out of the stream before the barrier. Real inotify.
struct InotifyBarrierTests {
    @Test func everyEventQueuedBeforeTheBarrierComesBeforeIt() async throws {
        let tmp = try TemporaryDirectory("inotify-barrier")
        defer { tmp.remove() }
        let root = try tmp.sub("root")
        let (stream, watched) = await InotifyWatcher.shared.subscribe(root: root)
        #expect(throws: Never.self) { try watched.get() }
        var names: Set<String> = []
        for i in 0..<1000 {
            let name = "f\(i)"
            #expect(FileManager.default.createFile(atPath: root + "/" + name, contents: Data("x".utf8)))
            names.insert(name)
        }
        #expect(await InotifyWatcher.shared.barrier(root: root, token: 7))
        var seen: Set<String> = []
        var barrier: UInt64?
        for await message in stream {
            switch message {
            case .event(let event): seen.insert((event.path as NSString).lastPathComponent)
            case .barrier(let token): barrier = token
            case .rescanNeeded, .watchFailed: Issue.record("unexpected \(message)")
            }
            if barrier != nil { break }
        }
        #expect(barrier == 7)
        #expect(names.subtracting(seen).isEmpty, "\(names.subtracting(seen).count) files' events came after the barrier")
        // A root nobody subscribed: no barrier, said so.
        #expect(await !InotifyWatcher.shared.barrier(root: root + "/elsewhere", token: 8))
    }
}
