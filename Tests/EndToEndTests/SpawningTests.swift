import Foundation
import Synchronization
import Testing
import TestSupport

/// The tests' own plumbing: a child started through `Spawning` holds no descriptor of another
/// test's child (docs/decisions/0030). Foundation's `Process` leaks a pipe made by another
/// thread while it starts a child; a watchdog that lived as long as the test process and held
/// such a pipe made a test wait for ever on it.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct SpawningTests {
    private final class Flag: Sendable {
        let raised = Atomic<Bool>(false)
    }

    @Test func aChildStartedHereHoldsNoPipeOfAChildStartedMeanwhile() throws {
        // Another "test" starts short children with pipes as fast as it can.
        let done = Flag()
        let failures = Mutex<[String]>([])
        let other = Thread {
            while !done.raised.load(ordering: .relaxed) {
                do {
                    _ = try Process.capture("/bin/true", [], timeout: .seconds(30))
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        other.start()
        defer { done.raised.store(true, ordering: .relaxed) }

        // This one starts long-lived children and looks at what each holds.
        var leaks: [String] = []
        for _ in 0..<300 {
            let child = Process()
            child.executableURL = URL(fileURLWithPath: "/bin/sleep")
            child.arguments = ["30"]
            child.standardInput = FileHandle.nullDevice
            child.standardOutput = FileHandle.nullDevice
            child.standardError = FileHandle.nullDevice
            try Spawning.exclusively { try child.run() }
            let held = try Self.descriptors(of: child.processIdentifier)
            _ = child.end(hard: true)
            // Its own: /dev/null three times, and the socket through which Foundation sees it end.
            let pipes = held.filter { $0.hasPrefix("pipe:") }
            let sockets = held.filter { $0.hasPrefix("socket:") }
            if !pipes.isEmpty || sockets.count > 1 {
                leaks.append("pid \(child.processIdentifier) holds \(held.sorted())")
            }
        }
        #expect(leaks.isEmpty, "\(leaks.count) of 300 children held a descriptor they were not given: \(leaks.prefix(5))")
        #expect(failures.withLock { $0 }.isEmpty)
    }

    /// What each open descriptor of a process points at (`pipe:[…]`, `socket:[…]`, a path).
    /// One that closed meanwhile is left out: the program opens and closes files as it starts
    /// (its locale), while a descriptor it inherited stays open.
    static func descriptors(of pid: pid_t) throws -> [String] {
        let directory = "/proc/\(pid)/fd"
        return try FileManager.default.contentsOfDirectory(atPath: directory).compactMap { fd in
            var target = [CChar](repeating: 0, count: 256)
            let n = readlink(directory + "/" + fd, &target, target.count - 1)
            if n < 0 && errno == ENOENT { return nil }
            guard n >= 0 else { throw TestFailure("readlink \(directory)/\(fd): errno \(errno)") }
            return String(decoding: target[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }
}
