import Foundation

/// A shell script run in a session of its own, detached from the test process's terminal and
/// output: the watchdogs that stop a test server when the test process ends, however it ends.
enum DetachedShell {
    static func start(_ script: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setsid")
        process.arguments = ["/bin/sh", "-c", script]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
    }
}
