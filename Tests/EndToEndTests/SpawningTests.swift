import Foundation
import Testing
import TestSupport

/// The tests' own way of running programs (`Child`, docs/decisions/0030): a child holds its
/// three standard streams and nothing else of the test process, and what it said and how it
/// ended come back.
@Suite(.serialized, .timeLimit(.minutes(8)))
struct SpawningTests {
    @Test func aChildHoldsOnlyItsStandardStreams() throws {
        // Made the way Foundation's pipes and SwiftNIO's sockets are: not close-on-exec.
        var ends: [Int32] = [0, 0]
        guard Glibc.pipe(&ends) == 0 else { throw TestFailure("pipe: errno \(errno)") }
        defer { ends.forEach { close($0) } }
        let child = try Child.spawn("/bin/sleep", ["30"])
        defer { child.end(hard: true) }
        let held = try Self.descriptors(of: child.processIdentifier)
        #expect(held.filter { $0.fd <= 2 }.map(\.target) == ["/dev/null", "/dev/null", "/dev/null"])
        let inherited = held.filter { $0.target.hasPrefix("pipe:") || $0.target.hasPrefix("socket:") }
        #expect(inherited.isEmpty, "the child holds \(inherited)")
    }

    @Test func whatAChildSaidAndHowItEndedComeBack() async throws {
        let said = try await Child.capture("/bin/sh", ["-c", "echo out; echo err >&2; exit 3"])
        #expect(said.status == 3 && said.out == "out\n" && said.err == "err\n")

        let killed = try Child.spawn("/bin/sleep", ["30"])
        #expect(killed.isRunning)
        killed.signal(SIGKILL)
        #expect(killed.waitForExit(within: .seconds(30)))
        #expect(killed.terminationReason == .uncaughtSignal && killed.terminationStatus == SIGKILL)
        #expect(!killed.end(hard: false), "an ended child is not ended again")
    }

    @Test func aChildThatDoesNotEndInTimeIsKilledAndReported() throws {
        let started = ContinuousClock.now
        #expect(throws: TestFailure.self) { try Child.capture("/bin/sleep", ["30"], timeout: .milliseconds(300)) }
        #expect(ContinuousClock.now - started < .seconds(20))
    }

    /// Each open descriptor of a process and what it points at (`pipe:[…]`, `socket:[…]`, a
    /// path), in descriptor order. One that closed meanwhile is left out: a program opens and
    /// closes files as it starts (its locale), while one it inherited stays open.
    static func descriptors(of pid: pid_t) throws -> [(fd: Int, target: String)] {
        let directory = "/proc/\(pid)/fd"
        return try FileManager.default.contentsOfDirectory(atPath: directory).compactMap { name in
            var target = [CChar](repeating: 0, count: 256)
            let n = readlink(directory + "/" + name, &target, target.count - 1)
            if n < 0 && errno == ENOENT { return nil }
            guard n >= 0, let fd = Int(name) else { throw TestFailure("readlink \(directory)/\(name): errno \(errno)") }
            return (fd, String(decoding: target[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }.sorted { $0.fd < $1.fd }
    }
}
