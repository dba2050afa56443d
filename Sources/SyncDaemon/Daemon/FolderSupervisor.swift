import Logging
import ServiceLifecycle

/// Runs the folder engines as one service, and lets a reload start and stop engines while
/// the others go on. Graceful shutdown (or cancellation) stops them all, as it stopped each
/// engine when every engine was a service of its own.
actor FolderSupervisor: Service {
    private struct Running {
        var engine: FolderEngine
        var task: Task<Void, Never>
    }

    private var running: [String: Running] = [:]
    /// Folder ids in config order (for status).
    private var order: [String] = []
    private let state: DaemonState
    private let logger: Logger
    private var stopped = false

    private let initial: [FolderEngine]

    init(engines: [FolderEngine], state: DaemonState, logger: Logger) {
        self.initial = engines
        self.state = state
        self.logger = logger
    }

    var engines: [FolderEngine] { order.compactMap { running[$0]?.engine } }

    /// Starts an engine (replacing none: the id must not be running).
    func start(_ engine: FolderEngine) {
        guard !stopped, running[engine.id] == nil else { return }
        running[engine.id] = Running(engine: engine, task: Task { await engine.run() })
        order.append(engine.id)
        state.setEngines(engines)
    }

    /// Stops the engine of `id` and waits until it has: its work stays in the journal. Its big
    /// downloads cut short are saved for its next start, or given up (`discardingPartialDownloads`).
    func stop(_ id: String, discardingPartialDownloads: Bool = false) async {
        guard let stopping = running.removeValue(forKey: id) else { return }
        order.removeAll { $0 == id }
        state.setEngines(engines)
        stopping.task.cancel()
        await stopping.task.value
        if discardingPartialDownloads { await stopping.engine.discardPartialDownloads() }
    }

    func run() async throws {
        for engine in initial { start(engine) }
        do {
            try await gracefulShutdown()
        } catch {
            // Cancelled instead of shut down gracefully: the engines stop the same way.
            logger.debug("folder engines cancelled")
        }
        await stopAll()
    }

    private func stopAll() async {
        stopped = true
        let all = running.values.map(\.task)
        running = [:]
        order = []
        for task in all { task.cancel() }
        for task in all { await task.value }
    }
}
