import Foundation
import Testing
import TestSupport

extension Child {
    /// How long a program gets to end after SIGTERM. syncd and sync-server bound their own
    /// stop well below this (docs/operations.md): one still running then is a bug.
    static let termGrace: Duration = .seconds(45)

    /// Ends the process if it still runs, with SIGKILL (`hard`: no chance to tidy up) or
    /// SIGTERM, and waits for it; false if it had already ended. A process still running
    /// `termGrace` after SIGTERM is killed and the test fails: a stop never hangs the run.
    @discardableResult
    func end(hard: Bool) -> Bool {
        guard isRunning else { return false }
        if !hard {
            terminate()
            if waitForExit(within: Self.termGrace) { return true }
            Issue.record("\(programName) (pid \(processIdentifier)) was still running \(Self.termGrace) after SIGTERM; killed")
        }
        signal(SIGKILL)
        if !waitForExit(within: .seconds(30)) {
            Issue.record("\(programName) (pid \(processIdentifier)) still running 30 s after SIGKILL")
        }
        return true
    }

    /// `end(hard:)` from async code: the same, sleeping between looks at the child instead
    /// of holding a cooperative thread while it stops (the sync one is for `defer`).
    @discardableResult
    func end(hard: Bool) async -> Bool {
        guard isRunning else { return false }
        if !hard {
            terminate()
            if await waitForExit(within: Self.termGrace) { return true }
            Issue.record("\(programName) (pid \(processIdentifier)) was still running \(Self.termGrace) after SIGTERM; killed")
        }
        signal(SIGKILL)
        if await !waitForExit(within: .seconds(30)) {
            Issue.record("\(programName) (pid \(processIdentifier)) still running 30 s after SIGKILL")
        }
        return true
    }

    /// Runs `executable` to its end, at most `timeout` (a process still running then is
    /// killed and reported): exit status, stdout and stderr. `environment`: extra variables.
    static func capture(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:], timeout: Duration = .seconds(120)
    ) async throws -> (status: Int32, out: String, err: String) {
        let run = try CapturedRun(executable, arguments, environment: environment)
        guard await run.child.waitForExit(within: timeout) else {
            await run.child.end(hard: true)
            throw run.overran(timeout)
        }
        return (run.child.terminationStatus, await run.out.finished(), await run.err.finished())
    }

    /// `capture` for code that is not async (a `FaultProxy` hook, on the proxy's own thread):
    /// it holds the calling thread while the program runs.
    static func capture(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:], timeout: Duration = .seconds(120)
    ) throws -> (status: Int32, out: String, err: String) {
        let run = try CapturedRun(executable, arguments, environment: environment)
        guard run.child.waitForExit(within: timeout) else {
            run.child.end(hard: true)
            throw run.overran(timeout)
        }
        return (run.child.terminationStatus, run.out.finished(), run.err.finished())
    }

    /// Runs `executable` until it exits by itself within `timeout` (a deadline, not a
    /// hang: a process still running then is killed and reported): status and stderr.
    static func runToExit(
        _ executable: String, _ arguments: [String], timeout: TimeInterval = 15
    ) async throws -> (status: Int32, err: String) {
        let said = try await capture(executable, arguments, timeout: .seconds(timeout))
        return (said.status, said.err)
    }
}

/// A program started with its stdout and stderr read into memory as they come (`Child.capture`).
private struct CapturedRun {
    let child: Child
    let out: OutputReader
    let err: OutputReader
    let command: String

    init(_ executable: String, _ arguments: [String], environment: [String: String]) throws {
        let outPipe = try Child.pipe(), errPipe = try Child.pipe()
        do {
            child = try Child.spawn(
                executable, arguments, environment: ProcessInfo.processInfo.environment.merging(environment) { _, new in new },
                stdout: .descriptor(outPipe.write), stderr: .descriptor(errPipe.write))
        } catch {
            [outPipe.read, outPipe.write, errPipe.read, errPipe.write].forEach { close($0) }
            throw error
        }
        close(outPipe.write)
        close(errPipe.write)
        out = OutputReader(outPipe.read)
        err = OutputReader(errPipe.read)
        command = ([executable] + arguments).joined(separator: " ")
    }

    /// The failure of a run killed at its deadline, with what it had said.
    func overran(_ timeout: Duration) -> TestFailure {
        TestFailure("\(command) kept running past \(timeout)\n--- stdout:\n\(out.text.suffix(2000))\n--- stderr:\n\(err.text.suffix(2000))")
    }
}
