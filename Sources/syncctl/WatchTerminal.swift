import Foundation
import Synchronization
import SyncControl

/// The live view's keys (`StatusWatchKeys`): the terminal is read a key at a time, without
/// echo (signals stay as they were: Ctrl-C still ends the view), and put back as it was when
/// syncctl exits, however it exits. Only a view in the terminal's foreground takes keys (one
/// started with `&` would be stopped for touching it); one stopped (Ctrl-Z) and brought back
/// takes them again, as the shell put its own settings back meanwhile.
enum WatchTerminal {
    /// The terminal's settings before the view took its keys.
    private static let saved = Mutex<termios?>(nil)

    /// Takes the keys of stdin if it is a terminal whose foreground this process is in; false
    /// (nothing changed) otherwise.
    static func takeKeys() -> Bool {
        guard isatty(STDIN_FILENO) == 1, tcgetpgrp(STDIN_FILENO) == getpgrp() else { return false }
        var settings = termios()
        guard tcgetattr(STDIN_FILENO, &settings) == 0 else { return false }
        saved.withLock { $0 = settings }
        atexit { WatchTerminal.restore() }
        return applyKeys()
    }

    /// Sets the key-at-a-time mode over the saved settings (again after a stop and `fg`).
    @discardableResult
    static func applyKeys() -> Bool {
        guard var keys = saved.withLock({ $0 }), tcgetpgrp(STDIN_FILENO) == getpgrp() else { return false }
        keys.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &keys.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        return tcsetattr(STDIN_FILENO, TCSANOW, &keys) == 0
    }

    /// Puts the terminal back as it was (once). From the background too: SIGTTOU, which would
    /// stop the exiting process there, is ignored first.
    static func restore() {
        guard var settings = saved.withLock({ $0.take() }) else { return }
        signal(SIGTTOU, SIG_IGN)
        _ = tcsetattr(STDIN_FILENO, TCSANOW, &settings)
    }

    /// Reads keys on a thread of their own for as long as syncctl runs, handing each action
    /// to `act`. End of input (the terminal gone) ends the reading, not the view.
    static func readKeys(_ act: @escaping @Sendable (StatusWatchKeys.Action) -> Void) {
        let reader = Thread {
            var byte: UInt8 = 0
            while true {
                let n = read(STDIN_FILENO, &byte, 1)
                if n < 0 && errno == EINTR { continue }
                guard n == 1 else { return }
                if let action = StatusWatchKeys.action(for: byte) { act(action) }
            }
        }
        reader.start()
    }
}

/// What the last key did, and when: shown under the header for a while; and whether the view
/// was brought back from a stop (its screen is drawn whole again).
final class WatchNotice: Sendable {
    private let last = Mutex<(text: String, at: ContinuousClock.Instant)?>(nil)
    private let resumed = Mutex(false)

    func resume() {
        resumed.withLock { $0 = true }
    }

    /// Whether the view was brought back since the last ask.
    func takeResumed() -> Bool {
        resumed.withLock { was in
            defer { was = false }
            return was
        }
    }

    func set(_ text: String, at time: ContinuousClock.Instant) {
        last.withLock { $0 = (text, time) }
    }

    /// The text, if it was set less than `shown` before `now`.
    func text(at now: ContinuousClock.Instant, shownFor shown: Duration) -> String? {
        last.withLock { last in last.flatMap { now - $0.at < shown ? $0.text : nil } }
    }
}
