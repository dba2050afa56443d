import Foundation
import TestSupport

/// A process that keeps running (`syncctl status --watch`), its stdout gathered as it comes
/// (a reader thread), its stdin a pipe the test may write to (a Ctrl-C through a terminal).
final class WatchedProcess: Sendable {
    private let process: Child
    private let input: FileHandle
    private let gathered: OutputReader
    private let errors: OutputReader

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
        gathered = OutputReader(out.read)
        errors = OutputReader(err.read)
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
            _ = await process.end(hard: true)
            throw TestFailure("\(error)\n--- stdout tail:\n\(output.suffix(2000))\n--- stderr:\n\(errorOutput.suffix(2000))")
        }
        return process.terminationStatus
    }

    func stop() { _ = process.end(hard: true) }

    var isRunning: Bool { process.isRunning }
}
