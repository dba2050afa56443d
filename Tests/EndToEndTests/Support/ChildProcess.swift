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

    /// Runs `executable` to its end, at most `timeout` (a process still running then is
    /// killed and reported): exit status, stdout and stderr. `environment`: extra variables.
    static func capture(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:], timeout: Duration = .seconds(120)
    ) throws -> (status: Int32, out: String, err: String) {
        let out = try pipe(), err = try pipe()
        let child: Child
        do {
            child = try spawn(
                executable, arguments, environment: ProcessInfo.processInfo.environment.merging(environment) { _, new in new },
                stdout: .descriptor(out.write), stderr: .descriptor(err.write))
        } catch {
            [out.read, out.write, err.read, err.write].forEach { close($0) }
            throw error
        }
        close(out.write)
        close(err.write)
        let outText = OutputReader(out.read), errText = OutputReader(err.read)
        guard child.waitForExit(within: timeout) else {
            child.end(hard: true)
            throw TestFailure(
                "\(executable) \(arguments.joined(separator: " ")) kept running past \(timeout)\n--- stdout:\n"
                    + "\(outText.text.suffix(2000))\n--- stderr:\n\(errText.text.suffix(2000))")
        }
        return (child.terminationStatus, outText.finished(), errText.finished())
    }

    /// Runs `executable` until it exits by itself within `timeout` (a deadline, not a
    /// hang: a process still running then is killed and reported): status and stderr.
    static func runToExit(
        _ executable: String, _ arguments: [String], timeout: TimeInterval = 15
    ) throws -> (status: Int32, err: String) {
        let said = try capture(executable, arguments, timeout: .seconds(timeout))
        return (said.status, said.err)
    }
}
