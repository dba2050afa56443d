import Foundation

extension Process {
    /// Waits until the process has ended, at most `timeout`; false if it still ran then.
    ///
    /// `waitUntilExit` waits the same way (it polls `isRunning`) but for ever. Foundation sees
    /// a child end only when a socket it gave the child reaches its end, so a process that
    /// holds a copy (one the child started, or one that inherited it by accident) keeps the
    /// child "running": `pg_ctl start`'s server did, here. From a thread of Swift's cooperative
    /// pool such a wait parks the thread and the test for good, beyond `.timeLimit`'s reach.
    public func waitForExit(within timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while isRunning {
            guard ContinuousClock.now < deadline else { return false }
            usleep(5_000)
        }
        return true
    }

    /// The program's file name, for messages.
    public var programName: String { executableURL?.lastPathComponent ?? "process \(processIdentifier)" }
}
