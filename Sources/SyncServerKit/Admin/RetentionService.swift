import Logging
import ServiceLifecycle

/// Prunes history older than the retention period at start and then hourly.
/// (Chunks no longer referenced are not collected yet.)
struct RetentionService: Service {
    let admin: ServerAdmin
    let retention: Duration
    let logger: Logger
    var interval: Duration = .seconds(3600)

    func run() async throws {
        let admin = self.admin, retention = self.retention, logger = self.logger, interval = self.interval
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    let removed = try await admin.pruneHistory(retention: retention)
                    if removed > 0 { logger.info("pruned \(removed) old versions") }
                } catch {
                    logger.error("history pruning failed: \(error)")
                }
                try? await Task.sleep(for: interval)
            }
        }
    }
}
