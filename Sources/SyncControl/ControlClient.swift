import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// syncctl's side of the control socket: HTTP/1.1 over a Unix socket.
public struct ControlClient: Sendable {
    public enum Failure: Error, Sendable, CustomStringConvertible {
        /// No daemon listens on the socket (exit status 2).
        case unreachable(socket: String, reason: String)
        /// The daemon answered with an error (exit status 1).
        case failed(String)

        public var description: String {
            switch self {
            case .unreachable(let socket, let reason): "syncd is not running (no answer on \(socket): \(reason))"
            case .failed(let message): message
            }
        }
    }

    public let socketPath: String

    public init(socketPath: String) { self.socketPath = socketPath }

    /// Every request to the daemon goes through this client: `HTTPClient.shared`'s settings,
    /// except that a connection that cannot be made fails the request at once. (By default it
    /// is tried again until the request's deadline: `status --watch` took 10 s to see that
    /// the daemon had gone; a local socket with no daemon does not come back meanwhile.)
    private static let http: HTTPClient = {
        var configuration = HTTPClient.Configuration.singletonConfiguration
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()

    public func status() async throws(Failure) -> StatusReport {
        try decode(StatusReport.self, try await request(.GET, "/v1/status"))
    }

    public func pause(folder: String?) async throws(Failure) -> FolderActionReply {
        try decode(FolderActionReply.self, try await request(.POST, "/v1/pause" + query(folder)))
    }

    public func resume(folder: String?) async throws(Failure) -> FolderActionReply {
        try decode(FolderActionReply.self, try await request(.POST, "/v1/resume" + query(folder)))
    }

    public func approveDeletes(folder: String?) async throws(Failure) -> ApprovalReply {
        try decode(ApprovalReply.self, try await request(.POST, "/v1/approve-deletes" + query(folder)))
    }

    /// Recent log events: after `after` (oldest first, at most `limit`), or the newest `limit`.
    public func log(after: Int64?, limit: Int) async throws(Failure) -> LogReply {
        var path = "/v1/log?limit=\(limit)"
        if let after { path += "&after=\(after)" }
        return try decode(LogReply.self, try await request(.GET, path))
    }

    /// The paths of the held delete waves.
    public func heldDeletes(folder: String?) async throws(Failure) -> DeletesReply {
        try decode(DeletesReply.self, try await request(.GET, "/v1/deletes" + query(folder)))
    }

    /// Drops the held delete waves and brings their files back from the server.
    public func rejectDeletes(folder: String?) async throws(Failure) -> RejectReply {
        try decode(RejectReply.self, try await request(.POST, "/v1/reject-deletes" + query(folder), timeout: .seconds(600)))
    }

    /// A full scan now (what the watcher cannot see, e.g. a write through another hard link).
    public func rescan(folder: String?) async throws(Failure) -> FolderActionReply {
        try decode(FolderActionReply.self, try await request(.POST, "/v1/rescan" + query(folder)))
    }

    public func retry(folder: String?) async throws(Failure) -> RetryReply {
        try decode(RetryReply.self, try await request(.POST, "/v1/retry" + query(folder)))
    }

    /// What waits for a retry at `path` (absolute, or relative to `workingDirectory` when that
    /// is inside a folder, else to the folder's root) and below it is tried now.
    public func retry(path: String, folder: String?, workingDirectory: String? = nil) async throws(Failure) -> RetryReply {
        var query = "/v1/retry?path=" + Self.escape(path)
        if let folder { query += "&folder=" + Self.escape(folder) }
        if let workingDirectory { query += "&cwd=" + Self.escape(workingDirectory) }
        return try decode(RetryReply.self, try await request(.POST, query))
    }

    /// Returns once the folder (or every folder) is in sync as of the call, or is stuck, or
    /// `timeout` passed (nil: no limit).
    public func wait(folder: String?, timeout: Duration?) async throws(Failure) -> WaitReply {
        var parameters: [String] = []
        if let folder { parameters.append("folder=" + Self.escape(folder)) }
        var answerWithin = TimeAmount.hours(24 * 365)
        if let timeout {
            let ms = timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000
            parameters.append("timeout_ms=\(ms)")
            answerWithin = .milliseconds(ms) + .seconds(30)
        }
        let query = parameters.isEmpty ? "" : "?" + parameters.joined(separator: "&")
        return try decode(WaitReply.self, try await request(.POST, "/v1/wait" + query, timeout: answerWithin))
    }

    public func conflicts() async throws(Failure) -> [ConflictInfo] {
        try decode([ConflictInfo].self, try await request(.GET, "/v1/conflicts"))
    }

    /// Brings back an older version of `path` (relative to a folder, or absolute inside one).
    public func restore(path: String, rev: Int64?, folder: String?) async throws(Failure) -> RestoreReply {
        var query = "?path=" + Self.escape(path)
        if let rev { query += "&rev=\(rev)" }
        if let folder { query += "&folder=" + Self.escape(folder) }
        return try decode(RestoreReply.self, try await request(.POST, "/v1/restore" + query))
    }

    /// Everything the daemon knows about one path: absolute, or relative to
    /// `workingDirectory` when that is inside a synced folder, else to the folder's root.
    public func explain(path: String, folder: String?, workingDirectory: String? = nil) async throws(Failure) -> ExplainReply {
        var query = "?path=" + Self.escape(path)
        if let folder { query += "&folder=" + Self.escape(folder) }
        if let workingDirectory { query += "&cwd=" + Self.escape(workingDirectory) }
        return try decode(ExplainReply.self, try await request(.GET, "/v1/explain" + query))
    }

    /// The server's versions of one path, newest first (path as for `explain`).
    public func history(path: String, folder: String?, workingDirectory: String? = nil) async throws(Failure) -> HistoryReply {
        var query = "?path=" + Self.escape(path)
        if let folder { query += "&folder=" + Self.escape(folder) }
        if let workingDirectory { query += "&cwd=" + Self.escape(workingDirectory) }
        return try decode(HistoryReply.self, try await request(.GET, "/v1/history" + query, timeout: .seconds(40)))
    }

    private static func escape(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
    }

    private func query(_ folder: String?) -> String {
        guard let folder else { return "" }
        return "?folder=" + (folder.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? folder)
    }

    private func request(_ method: HTTPMethod, _ path: String, timeout: TimeAmount = .seconds(10)) async throws(Failure) -> [UInt8] {
        guard let url = URL(httpURLWithSocketPath: socketPath, uri: path) else {
            throw .failed("bad control socket path \(socketPath)")
        }
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = method
        let response: HTTPClientResponse
        do {
            response = try await Self.http.execute(request, timeout: timeout)
        } catch {
            throw .unreachable(socket: socketPath, reason: "\(error)")
        }
        let body: [UInt8]
        do {
            body = Array(try await response.body.collect(upTo: 16 << 20).readableBytesView)
        } catch {
            throw .failed("reading the daemon's answer: \(error)")
        }
        guard response.status == .ok else {
            throw .failed("syncd: " + Self.message(body, status: response.status))
        }
        return body
    }

    /// The sentence inside an error answer (`{"error": {"message": …}}`), never the raw JSON.
    static func message(_ body: [UInt8], status: HTTPResponseStatus) -> String {
        struct Answer: Decodable {
            struct Detail: Decodable { var message: String }
            var error: Detail
        }
        if let answer = try? JSONDecoder().decode(Answer.self, from: Data(body)) { return answer.error.message }
        let text = String(decoding: body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? "\(status.code) \(status.reasonPhrase)" : text
    }

    private func decode<T: Decodable>(_ type: T.Type, _ body: [UInt8]) throws(Failure) -> T {
        do { return try JSONDecoder().decode(type, from: Data(body)) } catch {
            throw .failed("cannot read the daemon's answer: \(error)")
        }
    }
}
