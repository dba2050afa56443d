import Foundation
import ServiceLifecycle
import UnixSignals

/// Runs `reload` on every SIGHUP until graceful shutdown, telling systemd (Type=notify)
/// RELOADING=1 before and READY=1 after. Made with `trapping`, which installs the handler
/// at once: from then on SIGHUP no longer ends the process.
public struct ReloadService: Service {
    private let signals: UnixSignalsSequence
    private let notifier: SystemdNotifier?
    private let reload: @Sendable () async -> Void

    public static func trapping(
        notifier: SystemdNotifier?, reload: @escaping @Sendable () async -> Void
    ) async -> ReloadService {
        ReloadService(signals: await UnixSignalsSequence(trapping: .sighup), notifier: notifier, reload: reload)
    }

    private init(signals: UnixSignalsSequence, notifier: SystemdNotifier?, reload: @escaping @Sendable () async -> Void) {
        self.signals = signals
        self.notifier = notifier
        self.reload = reload
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            for await _ in signals {
                if let notifier { _ = notifier.notify("RELOADING=1\nMONOTONIC_USEC=\(Self.monotonicMicroseconds())") }
                await reload()
                if let notifier { _ = notifier.notify("READY=1") }
            }
        }
    }

    /// CLOCK_MONOTONIC in microseconds, which systemd wants with RELOADING=1.
    static func monotonicMicroseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1_000
    }
}
