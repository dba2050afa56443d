import Logging
import ServiceLifecycle
import UnixSignals

extension ServiceGroupConfiguration {
    /// How long a graceful shutdown may take before the services are cancelled.
    public static let gracefulStopLimit: Duration = .seconds(20)
    /// How long the services then have to end before the program stops itself.
    public static let cancelledStopLimit: Duration = .seconds(10)

    /// A program's group: SIGTERM and SIGINT begin a graceful shutdown (`signals`), and a stop
    /// is bounded. A service still running `graceful` after the signal is cancelled, and one
    /// that ignores cancellation for `cancelled` more ends the process (ServiceLifecycle
    /// traps). What was acknowledged is already durable, so a stop that hangs would only keep
    /// a supervisor, or an operator, waiting.
    public static func stoppingWithin(
        services: [any Service], signals: [UnixSignal], logger: Logger,
        graceful: Duration = gracefulStopLimit, cancelled: Duration = cancelledStopLimit
    ) -> ServiceGroupConfiguration {
        var configuration = ServiceGroupConfiguration(services: services, gracefulShutdownSignals: signals, logger: logger)
        configuration.maximumGracefulShutdownDuration = graceful
        configuration.maximumCancellationDuration = cancelled
        return configuration
    }
}
