import Foundation

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
}
