import Dispatch
import Foundation
import SyncControl

/// `syncctl status --watch`: polls the daemon, writes what `StatusWatch` says, and ends on
/// Ctrl-C or `q` (exit 0, the cursor shown again) or when the daemon goes away (exit 2). On a
/// terminal, `r` retries now what waits for a retry (`syncctl retry` for the folders shown).
enum WatchLoop {
    /// How long what a key did stays under the header.
    static let noticeShown: Duration = .seconds(10)

    static func run(client: ControlClient, folder: String?, json: Bool, interval: Duration) async -> Never {
        let terminal = !json && isatty(STDOUT_FILENO) == 1
        let output: StatusWatch.Output = json ? .json : terminal ? terminalSize() : .plain
        let clock = ContinuousClock()
        let notice = WatchNotice()
        // Signals first: a Ctrl-C once the terminal is in key mode must go through `exit`,
        // whose handler puts the terminal back.
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        var sources = [SIGINT, SIGTERM].map { number in
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                // At once: a status request in flight to a busy daemon would otherwise hold
                // the exit until it is answered.
                if terminal { write(StatusWatch.Terminal.showCursor + "\n") }
                exit(0)
            }
            source.resume()
            return source
        }
        let keys = terminal && WatchTerminal.takeKeys()
        if keys {
            // Back from a stop (Ctrl-Z, then `fg`): the shell put its own settings back, and
            // wrote over the screen.
            let resumed = DispatchSource.makeSignalSource(signal: SIGCONT, queue: .global())
            resumed.setEventHandler {
                WatchTerminal.applyKeys()
                notice.resume()
            }
            resumed.resume()
            sources.append(resumed)
            WatchTerminal.readKeys { action in
                switch action {
                case .quit:
                    write(StatusWatch.Terminal.showCursor + "\n")
                    exit(0)
                case .retry:
                    notice.set("retrying…", at: clock.now)
                    Task {
                        let said: String
                        do throws(ControlClient.Failure) { said = try await client.retry(folder: folder).said } catch {
                            said = "retry: \(error)"
                        }
                        notice.set(said, at: clock.now)
                    }
                }
            }
        }
        let loop = Task {
            var watch = StatusWatch(output: output, interval: interval)
            watch.keys = keys
            let start = clock.now
            if terminal { write(StatusWatch.Terminal.hideCursor) }
            while !Task.isCancelled {
                watch.notice = notice.text(at: clock.now, shownFor: noticeShown)
                if notice.takeResumed() { watch.redrawNext() }
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
