import Foundation
import Hummingbird
import Logging
import NIOCore
import SyncClient
import SyncConfig
import SyncControl
import SyncCore
import Synchronization

/// The daemon's side of the control socket: HTTP/1.1 on a Unix socket with
/// mode 0600 inside the (0700) state directory. Routes mirror `syncctl` verbs.
enum ControlServer {
    /// `onReady` runs once the socket listens (syncd tells systemd it is ready then).
    static func application(
        socketPath: String, daemon: DaemonState, logger: Logger, onReady: @escaping @Sendable () -> Void = {}
    ) -> some ApplicationProtocol {
        let router = Router()
        router.get("/v1/status") { _, _ in
            try json(await daemon.report())
        }
        router.post("/v1/pause") { request, _ in
            try json(FolderActionReply(folders: try await daemon.setPaused(true, folder: request.uri.queryParameters["folder"].map(String.init))))
        }
        router.post("/v1/resume") { request, _ in
            try json(FolderActionReply(folders: try await daemon.setPaused(false, folder: request.uri.queryParameters["folder"].map(String.init))))
        }
        router.post("/v1/approve-deletes") { request, _ in
            try json(try await daemon.approveDeletes(folder: request.uri.queryParameters["folder"].map(String.init)))
        }
        router.get("/v1/log") { request, _ in
            let query = request.uri.queryParameters
            var after: Int64?
            if let text = query["after"] {
                guard let value = Int64(text), value >= 0 else { throw HTTPError(.badRequest, message: "after must be a sequence number") }
                after = value
            }
            var limit = 100
            if let text = query["limit"] {
                guard let value = Int(text), value > 0 else { throw HTTPError(.badRequest, message: "limit must be a positive number") }
                limit = value
            }
            guard let log = daemon.recentLog else { return try json(LogReply(entries: [], last: 0, dropped: 0)) }
            return try json(log.entries(after: after, limit: limit))
        }
        router.get("/v1/deletes") { request, _ in
            try json(try await daemon.heldDeletes(folder: request.uri.queryParameters["folder"].map(String.init)))
        }
        router.post("/v1/reject-deletes") { request, _ in
            try json(try await daemon.rejectDeletes(folder: request.uri.queryParameters["folder"].map(String.init)))
        }
        router.post("/v1/restore") { request, _ in
            let query = request.uri.queryParameters
            guard let path = query["path"].map(String.init) else { throw HTTPError(.badRequest, message: "path is required") }
            var rev: Int64?
            if let text = query["rev"] {
                guard let value = Int64(text), value > 0 else { throw HTTPError(.badRequest, message: "rev must be a positive integer") }
                rev = value
            }
            return try json(try await daemon.restore(path: path, rev: rev, folder: query["folder"].map(String.init)))
        }
        router.post("/v1/rescan") { request, _ in
            try json(FolderActionReply(folders: try await daemon.rescan(folder: request.uri.queryParameters["folder"].map(String.init))))
        }
        router.post("/v1/retry") { request, _ in
            let query = request.uri.queryParameters
            let folder = query["folder"].map(String.init)
            if let path = query["path"].map(String.init) {
                return try json(try await daemon.retry(path: path, folder: folder, cwd: query["cwd"].map(String.init)))
            }
            return try json(try await daemon.retry(folder: folder))
        }
        router.post("/v1/wait") { request, _ in
            let query = request.uri.queryParameters
            var timeout = Duration.seconds(365 * 86_400)
            if let text = query["timeout_ms"] {
                guard let ms = Int64(text), ms >= 0 else { throw HTTPError(.badRequest, message: "timeout_ms must be a whole number of milliseconds") }
                timeout = .milliseconds(ms)
            }
            return try json(try await daemon.wait(folder: query["folder"].map(String.init), timeout: timeout))
        }
        router.get("/v1/explain") { request, _ in
            let query = request.uri.queryParameters
            guard let path = query["path"].map(String.init) else { throw HTTPError(.badRequest, message: "path is required") }
            return try json(
                try await daemon.explain(path: path, folder: query["folder"].map(String.init), cwd: query["cwd"].map(String.init)))
        }
        router.get("/v1/history") { request, _ in
            let query = request.uri.queryParameters
            guard let path = query["path"].map(String.init) else { throw HTTPError(.badRequest, message: "path is required") }
            return try json(
                try await daemon.history(path: path, folder: query["folder"].map(String.init), cwd: query["cwd"].map(String.init)))
        }
        router.get("/v1/conflicts") { _, _ in
            try json(try await daemon.conflicts())
        }
        return Application(
            router: router,
            configuration: .init(address: .unixDomainSocket(path: socketPath), serverName: "syncd"),
            onServerRunning: { _ in
                // Only the owner may talk to the daemon.
                if chmod(socketPath, 0o600) != 0 {
                    logger.error("cannot chmod control socket", metadata: ["path": "\(socketPath)", "errno": "\(errno)"])
                }
                logger.info("control socket ready", metadata: ["path": "\(socketPath)"])
                onReady()
            },
            logger: logger)
    }

    static func json<T: Encodable>(_ value: T) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = try encoder.encode(value)
        return Response(
            status: .ok, headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}

/// What the control server needs from the running daemon.
final class DaemonState: Sendable {
    /// The folders running now (a reload adds and removes).
    private let running: Mutex<[FolderEngine]>
    let version: String
    let started = Date()
    let recentLog: RecentLog?

    init(engines: [FolderEngine], version: String, recentLog: RecentLog? = nil) {
        self.running = Mutex(engines)
        self.version = version
        self.recentLog = recentLog
    }

    var engines: [FolderEngine] { running.withLock { $0 } }

    func setEngines(_ engines: [FolderEngine]) {
        running.withLock { $0 = engines }
    }

    func report() async throws -> StatusReport {
        var folders: [FolderStatus] = []
        for engine in engines { folders.append(try await engine.status()) }
        return StatusReport(
            daemon: .init(version: version, pid: getpid(), uptimeS: Date().timeIntervalSince(started)), folders: folders)
    }

    func approveDeletes(folder: String?) async throws -> ApprovalReply {
        let chosen = try choose(folder)
        var released = 0
        for engine in chosen { released += try await engine.approveDeletes() }
        return ApprovalReply(folders: chosen.map(\.id), released: released)
    }

    func heldDeletes(folder: String?) async throws -> DeletesReply {
        var folders: [DeletesReply.Folder] = []
        for engine in try choose(folder) { folders.append(.init(id: engine.id, paths: try await engine.heldDeletes())) }
        return DeletesReply(folders: folders)
    }

    func rejectDeletes(folder: String?) async throws -> RejectReply {
        let chosen = try choose(folder)
        var rejected = 0, restored = 0
        for engine in chosen {
            let outcome: (rejected: Int, restored: Int)
            do {
                outcome = try await engine.rejectDeletes()
            } catch let error as DaemonError {
                // Said to the user as it is (a 500 said nothing of why).
                throw HTTPError(error.code == .serverUnreachable ? .badGateway : .conflict, message: "\(engine.id): \(error.message)")
            }
            rejected += outcome.rejected
            restored += outcome.restored
        }
        return RejectReply(folders: chosen.map(\.id), rejected: rejected, restored: restored)
    }

    /// A full scan of each chosen folder now; returns once they are done.
    func rescan(folder: String?) async throws -> [String] {
        let chosen = try choose(folder)
        for engine in chosen { await engine.rescanNow() }
        return chosen.map(\.id)
    }

    /// What waits out a backoff in each chosen folder is tried now.
    func retry(folder: String?) async throws -> RetryReply {
        let chosen = try choose(folder)
        var paths = 0
        for engine in chosen { paths += try await engine.retryNow() }
        return RetryReply(folders: chosen.map(\.id), paths: paths)
    }

    /// `syncctl retry --path`: what waits for a retry at one path (and below it) is tried now.
    /// A folder's root is the whole folder (`path` "" in the reply).
    func retry(path given: String, folder: String?, cwd: String?) async throws -> RetryReply {
        let raw = fromWorkingDirectory(given, folder: folder, cwd: cwd)
        if let whole = try wholeFolder(raw, folder: folder) {
            return RetryReply(folders: [whole.id], paths: try await whole.retryNow(), path: "")
        }
        guard let (engine, path) = try locate(raw, folder: folder) else {
            throw HTTPError(.badRequest, message: "\(raw) is not inside a synced folder")
        }
        return RetryReply(folders: [engine.id], paths: try await engine.retryNow(under: path), path: path)
    }

    /// `syncctl wait`: the chosen folders wait side by side, each until it is in sync, stuck,
    /// or out of time.
    func wait(folder: String?, timeout: Duration) async throws -> WaitReply {
        let chosen = try choose(folder)
        let results = await withTaskGroup(of: FolderWaitResult.self) { group in
            for engine in chosen { group.addTask { await engine.waitUntilSynced(timeout: timeout) } }
            var all: [FolderWaitResult] = []
            for await result in group { all.append(result) }
            return all
        }
        return WaitReply(folders: results.sorted { $0.id < $1.id })
    }

    func conflicts() async throws -> [ConflictInfo] {
        var all: [ConflictInfo] = []
        for engine in engines { all += try await engine.conflicts() }
        return all
    }

    /// `path` is absolute (inside a folder's root) or relative to `folder` (which may be
    /// omitted when there is one folder).
    func restore(path raw: String, rev: Int64?, folder: String?) async throws -> RestoreReply {
        guard let (engine, path) = try locate(raw, folder: folder) else {
            throw HTTPError(.badRequest, message: "\(raw) is not inside a synced folder")
        }
        do {
            return try await engine.restore(path: path, rev: rev)
        } catch {
            throw HTTPError(.conflict, message: error.message)
        }
    }

    /// `syncctl explain`: what the daemon knows about one path (anywhere: outside every
    /// folder is an answer too).
    /// A relative path is taken from `cwd` when that is inside a folder.
    func explain(path given: String, folder: String?, cwd: String?) async throws -> ExplainReply {
        let raw = fromWorkingDirectory(given, folder: folder, cwd: cwd)
        guard let (engine, path) = try locate(raw, folder: folder) else {
            let roots = engines.map(\.root).joined(separator: ", ")
            return ExplainReply(
                folder: nil, path: raw, verdict: .outside,
                sentence: "Not inside any synced folder (synced here: \(roots.isEmpty ? "none" : roots)).", details: PathDetails())
        }
        return try await engine.explain(path)
    }

    /// `syncctl history`: the server's versions of one path.
    func history(path given: String, folder: String?, cwd: String?) async throws -> HistoryReply {
        let raw = fromWorkingDirectory(given, folder: folder, cwd: cwd)
        guard let (engine, path) = try locate(raw, folder: folder) else {
            throw HTTPError(.badRequest, message: "\(raw) is not inside a synced folder")
        }
        do {
            return try await engine.history(path)
        } catch let error as RemoteError {
            throw HTTPError(.badGateway, message: "the server did not answer: \(error.message)")
        }
    }

    /// `given` made absolute from `cwd` when it is relative and `cwd` is inside a folder
    /// (`cd ~/Sync/docs && syncctl explain notes.txt`); else as given.
    private func fromWorkingDirectory(_ given: String, folder: String?, cwd: String?) -> String {
        guard !given.hasPrefix("/"), folder == nil, let cwd, cwd.hasPrefix("/") else { return given }
        guard engines.contains(where: { FolderRootMatch.relative(cwd, to: $0.root) != nil }) else { return given }
        return PathExpansion.normalize(cwd) + "/" + given
    }

    /// The folder holding `raw` and the path inside it; nil for an absolute path outside
    /// every folder. A relative path needs `folder` when several are synced.
    private func locate(_ raw: String, folder: String?) throws -> (FolderEngine, String)? {
        var relative = raw
        let engine: FolderEngine
        if raw.hasPrefix("/") {
            let found = engines.lazy.filter { folder == nil || $0.id == folder }
                .compactMap { engine in FolderRootMatch.relative(raw, to: engine.root).map { (engine, $0) } }
                .first { !$0.1.isEmpty }
            guard let (owner, below) = found else { return nil }
            engine = owner
            relative = below
        } else {
            engine = try onlyFolder(folder)
            // `photos/2026/` (a shell's completion) names the directory.
            while relative.hasSuffix("/") { relative.removeLast() }
        }
        do {
            return (engine, try RelativePath(validating: relative).string)
        } catch {
            throw HTTPError(.badRequest, message: "\(raw): \(error)")
        }
    }

    /// The folder `raw` names as a whole: its root (absolute), or `.` relative to it.
    private func wholeFolder(_ raw: String, folder: String?) throws -> FolderEngine? {
        if raw.hasPrefix("/") {
            return engines.first { FolderRootMatch.relative(raw, to: $0.root) == "" && (folder == nil || $0.id == folder) }
        }
        guard !raw.isEmpty, raw.split(separator: "/").allSatisfy({ $0 == "." }) else { return nil }
        return try onlyFolder(folder)
    }

    /// The one folder a path relative to a folder's root belongs to: `folder`, or the only one.
    private func onlyFolder(_ folder: String?) throws -> FolderEngine {
        let chosen = try choose(folder)
        guard chosen.count == 1, let only = chosen.first else {
            throw HTTPError(.badRequest, message: "several folders are synced: name one, or give an absolute path")
        }
        return only
    }

    private func choose(_ folder: String?) throws -> [FolderEngine] {
        let chosen = engines.filter { folder == nil || $0.id == folder }
        guard !chosen.isEmpty else { throw HTTPError(.notFound, message: "no folder with id \(folder ?? "")") }
        return chosen
    }

    /// Pauses or resumes one folder (or all when `folder` is nil); names the folders touched.
    func setPaused(_ paused: Bool, folder: String?) async throws -> [String] {
        let chosen = try choose(folder)
        for engine in chosen { try await engine.setPaused(paused) }
        return chosen.map(\.id)
    }
}
