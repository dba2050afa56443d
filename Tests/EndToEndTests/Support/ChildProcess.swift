import Foundation
import Synchronization
import Testing
import TestSupport

extension Process {
    /// How long a program gets to end after SIGTERM. syncd and sync-server bound their own
    /// graceful shutdown well below this (docs/operations.md): one still running then is a bug.
    static let termGrace: Duration = .seconds(45)

    /// Ends the process if it still runs, with SIGKILL (`hard`: no chance to tidy up) or
    /// SIGTERM, and waits for it; false if it had already ended. A process still running
    /// `termGrace` after SIGTERM is killed and the test fails: a stop never hangs the run.
    func end(hard: Bool) -> Bool {
        guard isRunning else { return false }
        if !hard {
            terminate()
            if waitForExit(within: Self.termGrace) { return true }
            Issue.record("\(programName) (pid \(processIdentifier)) was still running \(Self.termGrace) after SIGTERM; killed")
        }
        kill(processIdentifier, SIGKILL)
        if !waitForExit(within: .seconds(30)) {
            Issue.record("\(programName) (pid \(processIdentifier)) still seen running 30 s after SIGKILL")
        }
        return true
    }

    /// Runs `executable` to its end, at most `timeout` (a process still running then is
    /// killed and reported): exit status, stdout and stderr. `environment`: extra variables.
    static func capture(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:], timeout: Duration = .seconds(120)
    ) throws -> (status: Int32, out: String, err: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = arguments
        if !environment.isEmpty {
            p.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        }
        let (out, err) = try Spawning.exclusively {
            let out = Pipe(), err = Pipe()
            p.standardOutput = out
            p.standardError = err
            try p.run()
            return (out, err)
        }
        let outText = OutputReader(out.fileHandleForReading), errText = OutputReader(err.fileHandleForReading)
        guard p.waitForExit(within: timeout) else {
            _ = p.end(hard: true)
            throw TestFailure(
                "\(executable) \(arguments.joined(separator: " ")) kept running past \(timeout)\n--- stdout:\n"
                    + "\(outText.text.suffix(2000))\n--- stderr:\n\(errText.text.suffix(2000))")
        }
        return (p.terminationStatus, outText.finished(), errText.finished())
    }

    /// Runs `executable` until it exits by itself within `timeout` (a deadline, not a
    /// hang: a process still running then is killed and reported): status and stderr.
    static func runToExit(
        _ executable: String, _ arguments: [String], timeout: TimeInterval = 15
    ) throws -> (status: Int32, err: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = arguments
        p.standardOutput = FileHandle.nullDevice
        let err = try Spawning.exclusively {
            let err = Pipe()
            p.standardError = err
            try p.run()
            return err
        }
        let errText = OutputReader(err.fileHandleForReading)
        guard p.waitForExit(within: .seconds(timeout)) else {
            _ = p.end(hard: true)
            throw TestFailure("\(executable) \(arguments.joined(separator: " ")) kept running past \(Int(timeout)) s")
        }
        return (p.terminationStatus, errText.finished())
    }
}

/// A pipe's read end drained by a thread of its own as output comes, so that a child never
/// blocks on a full pipe and a reader never blocks a test past its deadline.
final class OutputReader: Sendable {
    private let data = Mutex(Data())
    private let done = Mutex(false)

    init(_ handle: FileHandle) {
        let fd = handle.fileDescriptor
        Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = read(fd, &buffer, buffer.count)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                data.withLock { $0.append(contentsOf: buffer[0..<n]) }
            }
            done.withLock { $0 = true }
            withExtendedLifetime(handle) {}
        }.start()
    }

    /// What was read so far.
    var text: String { String(decoding: data.withLock { $0 }, as: UTF8.self) }

    /// Everything, once the pipe's writers are gone (the process ended); what was read
    /// within 5 s when a process it started still holds the pipe open.
    func finished() -> String {
        let deadline = ContinuousClock.now + .seconds(5)
        while !done.withLock({ $0 }) && ContinuousClock.now < deadline { usleep(1_000) }
        return text
    }
}
