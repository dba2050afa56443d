import Foundation
import Testing
import TestSupport

/// A folder whose root disappears, is replaced or unmounted while syncd runs
/// pauses and sends nothing: the other devices keep their copies.
@Suite(.serialized)
struct RootGuardTests {
    static let files = Dictionary(uniqueKeysWithValues: (0..<5).map { ("keep\($0).txt", contentHash("content \($0)")) })

    static func synced(_ label: String) async throws -> TwoDevices {
        let two = try await TwoDevices.start(label)
        for i in 0..<5 { try writeFile(two.a.path("keep\(i).txt"), "content \(i)") }
        try await two.waitForBoth(files)
        return two
    }

    /// Beta and the server still hold every file for `window` (a delete would reach
    /// them in well under a second; the bug took ~6 s to show under load).
    static func nothingLost(_ two: TwoDevices, window: Duration = .seconds(5)) async throws {
        let until = ContinuousClock.now + window
        while ContinuousClock.now < until {
            #expect(try localTree(two.b.folderPath) == files, "beta lost files")
            try await Task.sleep(for: .milliseconds(250))
        }
        let server = try await two.server.client(credential: two.credentialA).tree(folder: "docs")
        #expect(server.filter { !$0.value.deleted }.mapValues(\.contentHash) == files)
    }

    @Test func aRootRemovedWhileRunningDeletesNothingElsewhere() async throws {
        let two = try await Self.synced("root-removed")
        defer { two.stop() }
        try FileManager.default.removeItem(atPath: two.a.folderPath)
        try await two.a.waitUntil(.error)
        #expect(try await two.a.status()?.errors.first?.message.contains("nothing is deleted") == true)
        try await Self.nothingLost(two)
    }

    @Test func aRootMovedAwayAndBackResumesWithinSeconds() async throws {
        let two = try await Self.synced("root-moved")
        defer { two.stop() }
        let away = two.a.folderPath + ".away"
        try FileManager.default.moveItem(atPath: two.a.folderPath, toPath: away)
        try await two.a.waitUntil(.error)
        try await Self.nothingLost(two, window: .seconds(2))
        try FileManager.default.moveItem(atPath: away, toPath: two.a.folderPath)
        var last: String = ""
        do {
            try await eventually("alpha resumes", timeout: .seconds(10)) {
                let status = try await two.a.status()
                last = "\(String(describing: status?.state)) \(status?.errors.map(\.message) ?? [])"
                return status?.state == .idle
            }
        } catch {
            throw TestFailure("\(error); last status \(last)\n\(two.a.log.suffix(1500))")
        }
        try writeFile(two.a.path("after.txt"), "after")
        try await two.waitForBoth(Self.files.merging(["after.txt": contentHash("after")]) { a, _ in a })
    }

    @Test func anUnmountedDiskDeletesNothingElsewhere() async throws {
        let two = try await Self.synced("root-unmounted")
        defer {
            _ = run("/bin/umount", "-l", two.a.folderPath)
            two.stop()
        }
        // Alpha's folder becomes a mounted file system holding the same files.
        await two.a.stop()
        let copy = two.a.dir + "/copy"
        try FileManager.default.copyItem(atPath: two.a.folderPath, toPath: copy)
        #expect(run("/bin/mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", two.a.folderPath) == 0)
        for name in try FileManager.default.contentsOfDirectory(atPath: copy) {
            try FileManager.default.copyItem(atPath: copy + "/" + name, toPath: two.a.path(name))
        }
        try await two.a.start()
        try await two.a.waitUntilIdle()
        // The disk goes away under the running daemon: an empty mount point is left.
        #expect(run("/bin/umount", "-l", two.a.folderPath) == 0)
        try await two.a.waitUntil(.error)
        try await Self.nothingLost(two)
    }
}

/// Runs a command, returns its exit status.
@discardableResult
func run(_ executable: String, _ arguments: String...) -> Int32 {
    guard let p = try? Child.spawn(executable, arguments) else { return -1 }
    guard p.waitForExit(within: .seconds(60)) else {
        p.end(hard: true)
        return -1
    }
    return p.terminationStatus
}
