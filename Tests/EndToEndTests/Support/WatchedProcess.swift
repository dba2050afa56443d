import Foundation
import Synchronization
import TestSupport

/// A process that keeps running (`syncctl status --watch`), its stdout gathered as it comes
/// (a reader thread), its stdin a pipe the test may write to (a Ctrl-C through a terminal).
final class WatchedProcess: Sendable {
    private let process: Process
    private let input: Pipe
    private final class Sink: Sendable {
        let data = Mutex(Data())
        var text: String { String(decoding: data.withLock { $0 }, as: UTF8.self) }
    }
    private let gathered = Sink()
    private let errors = Sink()

    init(_ executable: String, _ arguments: [String]) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = arguments
        let (out, err, input) = try Spawning.exclusively {
            let out = Pipe(), err = Pipe(), input = Pipe()
            p.standardOutput = out
            p.standardError = err
            p.standardInput = input
            try p.run()
            return (out, err, input)
        }
        process = p
        self.input = input
        Self.gather(out.fileHandleForReading, into: gathered)
        Self.gather(err.fileHandleForReading, into: errors)
    }

    private static func gather(_ handle: FileHandle, into sink: Sink) {
        let fd = handle.fileDescriptor
        Thread {
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = read(fd, &buffer, buffer.count)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                sink.data.withLock { $0.append(contentsOf: buffer[0..<n]) }
            }
            withExtendedLifetime(handle) {}
        }.start()
    }

    /// Everything written to stdout so far.
    var output: String { gathered.text }
    var errorOutput: String { errors.text }

    var pid: Int32 { process.processIdentifier }

    func type(_ text: String) {
        input.fileHandleForWriting.write(Data(text.utf8))
    }

    func signal(_ number: Int32) { kill(process.processIdentifier, number) }

    /// The exit status once it ended by itself within `timeout`; a process still running then
    /// is killed and the test fails.
    func exitStatus(within timeout: Duration) async throws -> Int32 {
        do {
            try await eventually("the process ends", timeout: timeout) { !self.process.isRunning }
        } catch {
            _ = process.end(hard: true)
            throw TestFailure("\(error)\n--- stdout tail:\n\(output.suffix(2000))\n--- stderr:\n\(errorOutput.suffix(2000))")
        }
        return process.terminationStatus
    }

    func stop() { _ = process.end(hard: true) }

    var isRunning: Bool { process.isRunning }
}
