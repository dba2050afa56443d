import Foundation
import Synchronization
import TestSupport

/// A process that keeps running (`syncctl status --watch`), its stdout gathered as it comes
/// (a reader thread), its stdin a pipe the test may write to (a Ctrl-C through a terminal).
final class WatchedProcess: Sendable {
    private let process: Child
    private let input: FileHandle
    private final class Sink: Sendable {
        let data = Mutex(Data())
        var text: String { String(decoding: data.withLock { $0 }, as: UTF8.self) }
    }
    private let gathered = Sink()
    private let errors = Sink()

    init(_ executable: String, _ arguments: [String]) throws {
        let out = try Child.pipe(), err = try Child.pipe(), input = try Child.pipe()
        let ends = [out.read, out.write, err.read, err.write, input.read, input.write]
        do {
            process = try Child.spawn(
                executable, arguments, stdin: .descriptor(input.read), stdout: .descriptor(out.write), stderr: .descriptor(err.write))
        } catch {
            ends.forEach { close($0) }
            throw error
        }
        [input.read, out.write, err.write].forEach { close($0) }
        self.input = FileHandle(fileDescriptor: input.write, closeOnDealloc: true)
        Self.gather(out.read, into: gathered)
        Self.gather(err.read, into: errors)
    }

    private static func gather(_ fd: Int32, into sink: Sink) {
        Thread {
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = read(fd, &buffer, buffer.count)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                sink.data.withLock { $0.append(contentsOf: buffer[0..<n]) }
            }
            close(fd)
        }.start()
    }

    /// Everything written to stdout so far.
    var output: String { gathered.text }
    var errorOutput: String { errors.text }

    var pid: Int32 { process.processIdentifier }

    func type(_ text: String) {
        input.write(Data(text.utf8))
    }

    func signal(_ number: Int32) { process.signal(number) }

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
