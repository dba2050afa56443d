import ServiceLifecycle

/// Runs beside a program's other services under systemd: pings the watchdog at half
/// the interval systemd asked for, and says `STOPPING=1` when a graceful shutdown
/// begins. (`READY=1` is the program's to send, once it really serves.) Put it last in
/// the service group: services stop in reverse order, so it is told first.
public struct SystemdWatchdog: Service {
    let notifier: SystemdNotifier

    public init(notifier: SystemdNotifier) {
        self.notifier = notifier
    }

    public func run() async throws {
        let notifier = self.notifier
        await withGracefulShutdownHandler {
            await cancelWhenGracefulShutdown {
                let interval = notifier.watchdogInterval ?? .seconds(3600)
                while !Task.isCancelled {
                    if notifier.watchdogInterval != nil { notifier.notify("WATCHDOG=1") }
                    do { try await Task.sleep(for: interval / 2) } catch { return }
                }
            }
        } onGracefulShutdown: {
            notifier.notify("STOPPING=1")
        }
    }
}
