import Dispatch
import Foundation
import SyncControl

/// `syncctl status --watch`: polls the daemon, writes what `StatusWatch` says, and ends on
/// Ctrl-C (exit 0, the cursor shown again) or when the daemon goes away (exit 2).
enum WatchLoop {
    static func run(client: ControlClient, folder: String?, json: Bool, interval: Duration) async -> Never {
        let terminal = !json && isatty(STDOUT_FILENO) == 1
        let output: StatusWatch.Output = json ? .json : terminal ? terminalSize() : .plain
        let loop = Task {
            var watch = StatusWatch(output: output, interval: interval)
            let clock = ContinuousClock()
            let start = clock.now
            if terminal { write(StatusWatch.Terminal.hideCursor) }
            while !Task.isCancelled {
                let report: StatusReport
                do throws(ControlClient.Failure) { report = try await client.status() } catch {
                    if Task.isCancelled { break }
                    if terminal { write(StatusWatch.Terminal.showCursor + "\n") }
                    Exit.fail(error)
                }
                if terminal { watch.output = terminalSize() }
                let text: String?
                do { text = try watch.update(try Status.select(folder, of: report).get(), at: clock.now - start) } catch {
                    if terminal { write(StatusWatch.Terminal.showCursor + "\n") }
                    Exit.fail("syncctl: \(error)", code: 1)
                }
                if let text { write(terminal || json ? text : stamped(text)) }
                do { try await Task.sleep(for: interval) } catch { break }
            }
        }
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        let sources = [SIGINT, SIGTERM].map { number in
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                loop.cancel()
                // At once: a status request in flight to a busy daemon would otherwise hold
                // the exit until it is answered.
                if terminal { write(StatusWatch.Terminal.showCursor + "\n") }
                exit(0)
            }
            source.resume()
            return source
        }
        await loop.value
        withExtendedLifetime(sources) {}
        if terminal { write(StatusWatch.Terminal.showCursor + "\n") }
        exit(0)
    }

    /// The terminal's columns and rows, when the kernel knows them.
    static func terminalSize() -> StatusWatch.Output {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0 else { return .terminal(width: nil, height: nil) }
        return .terminal(width: size.ws_col > 0 ? Int(size.ws_col) : nil, height: size.ws_row > 0 ? Int(size.ws_row) : nil)
    }

    /// Each plain line starts with the time it was seen (`14:03:07 docs: idle …`).
    static func stamped(_ text: String) -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "HH:mm:ss"
        let now = formatter.string(from: Date())
        return text.split(separator: "\n").map { "\(now) \($0)\n" }.joined()
    }

    static func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }
}
