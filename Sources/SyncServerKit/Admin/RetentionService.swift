import Logging
import ServiceLifecycle

/// Reclaims storage at start and then every `interval`: prunes history older than the
/// retention period, drops unreferenced chunks and compacts packs (`StorageGC`). Logs a
/// summary at info level when a round reclaimed something.
/// Each round reads the retention in force (a reload may have changed it).
struct RetentionService: Service {
    let server: SyncServer
    let logger: Logger

    /// A tenth of the retention period, at most an hour, at least a second: a version is
    /// pruned, and its chunks collected, at most 10 % of `retention` (or an hour) late.
    static func interval(retention: Duration) -> Duration {
        max(.seconds(1), min(retention / 10, .seconds(3600)))
    }

    func run() async throws {
        let server = self.server, logger = self.logger
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                let gc = server.storageGC
                let interval = Self.interval(retention: gc.retention)
                let report: StorageGC.Report?
                do {
                    // With several instances on one database, one of them runs the round.
                    report = try await server.chunks.index.exclusively { try await gc.run(now: ServerClock.now()) }
                    if report == nil { logger.debug("storage round skipped: another instance is running one") }
                } catch {
                    report = nil
                    logger.error("storage gc failed: \(error)")
                }
                if let report, report.reclaimedAnything { logger.info("\(report.summary)") }
                // The exact figures after the round, then the round counted (a scrape that sees
                // the round sees its figures).
                do {
                    let totals = try await server.chunks.index.totals()
                    server.metrics.stored(chunks: totals.chunks, bytes: totals.bytes)
                } catch {
                    logger.warning("cannot count the stored chunks for the metrics: \(error)")
                }
                server.metrics.storageRound(report)
                do { try await Task.sleep(for: interval) } catch { return }
            }
        }
    }
}
