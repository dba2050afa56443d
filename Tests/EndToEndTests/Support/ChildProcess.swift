import Foundation
import TestSupport

extension Process {
    /// Ends the process if it still runs, with SIGKILL (`hard`: no chance to tidy up) or
    /// SIGTERM, and waits for it; false if it had already ended.
    func end(hard: Bool) -> Bool {
        guard isRunning else { return false }
        if hard { kill(processIdentifier, SIGKILL) } else { terminate() }
        waitUntilExit()
        return true
    }

    /// Runs `executable` to its end: exit status, stdout and stderr. `environment`
    /// replaces the test's own when given.
    static func capture(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil
    ) throws -> (status: Int32, out: String, err: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = arguments
        if let environment { p.environment = environment }
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self))
    }

    /// Runs `executable` until it exits by itself within `timeout` (a deadline, not a
    /// hang: a process still running then is killed and reported): status and stderr.
    static func runToExit(
        _ executable: String, _ arguments: [String], timeout: TimeInterval = 15
    ) throws -> (status: Int32, err: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = arguments
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        let deadline = Date().addingTimeInterval(timeout)
        while p.isRunning && Date() < deadline { usleep(20_000) }
        if p.isRunning {
            _ = p.end(hard: true)
            throw TestFailure("\(executable) \(arguments.joined(separator: " ")) kept running past \(Int(timeout)) s")
        }
        return (p.terminationStatus, String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
    }
}
