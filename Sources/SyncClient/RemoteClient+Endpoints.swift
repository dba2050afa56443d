import AsyncHTTPClient
import Foundation
import NIOCore
import SyncCore

extension RemoteClient {
    static func folderPath(_ folder: String) -> String {
        "/v1/folders/" + (folder.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? folder)
    }

    /// Authenticates now (the daemon does this at start to report a bad credential early).
    public func authenticate() async throws(RemoteError) {
        _ = try await currentToken()
    }

    public func missingChunks(folder: String, hashes: [String]) async throws(RemoteError) -> [String] {
        guard !hashes.isEmpty else { return [] }
        let body = JSONWriter.bytes(of: MissingChunksRequest(hashes: hashes), escapingSlashes: false, capacity: 16 + hashes.count * 67)
        let response = try await send(.POST, Self.folderPath(folder) + "/chunks/missing", body: body)
        return try decode(MissingChunksResponse.self, response.body).missing
    }

    public func putChunk(folder: String, hash: String, bytes: [UInt8]) async throws(RemoteError) {
        await bandwidth.upload.acquire(bytes.count)
        _ = try await send(
            .PUT, Self.folderPath(folder) + "/chunks/" + hash, body: bytes, contentType: "application/octet-stream",
            timeout: .seconds(300))
    }

    public func putChunkBatch(folder: String, chunks: [(hash: String, bytes: [UInt8])]) async throws(RemoteError) {
        guard !chunks.isEmpty else { return }
        try await putChunkBatch(folder: folder, body: ByteBuffer(bytes: ChunkBatch.encode(chunks)))
    }

    /// One chunk whose bytes are in `body` (the server checks them against `hash`).
    public func putChunk(folder: String, hash: String, body: ByteBuffer) async throws(RemoteError) {
        await bandwidth.upload.acquire(body.readableBytes)
        _ = try await send(
            .PUT, Self.folderPath(folder) + "/chunks/" + hash, buffer: body, contentType: "application/octet-stream",
            timeout: .seconds(300))
    }

    /// A chunk batch already encoded (`ChunkBatch` records) in `body`.
    public func putChunkBatch(folder: String, body: ByteBuffer) async throws(RemoteError) {
        guard body.readableBytes > 0 else { return }
        await bandwidth.upload.acquire(body.readableBytes)
        _ = try await send(
            .POST, Self.folderPath(folder) + "/chunks/batch", buffer: body,
            contentType: "application/octet-stream", timeout: Self.uploadTimeout(bytes: body.readableBytes))
    }

    /// How long an upload of `bytes` may take: 300 s, and one more second for each 16 KiB
    /// (an 8 MiB batch, several in flight on a slow link, must not time out where one small
    /// chunk at a time would not).
    static func uploadTimeout(bytes: Int) -> TimeAmount {
        .seconds(300 + Int64(bytes / (16 << 10)))
    }

    public func getChunk(folder: String, hash: String) async throws(RemoteError) -> [UInt8] {
        let body = try await send(.GET, Self.folderPath(folder) + "/chunks/" + hash, timeout: .seconds(300)).body
        // Received already: the wait holds back the next request, which keeps the average rate.
        await bandwidth.download.acquire(body.count)
        return body
    }

    /// Many chunks in one request: those of `hashes` the server sent (it leaves out what it
    /// lacks, and stops at a size limit: ask again for the rest). Every record is checked
    /// against its hash; one that does not match, or that was not asked for, fails the call.
    public func fetchChunks(folder: String, hashes: [String]) async throws(RemoteError) -> [String: [UInt8]] {
        guard !hashes.isEmpty else { return [:] }
        let body = JSONWriter.bytes(of: FetchChunksRequest(hashes: hashes), escapingSlashes: false, capacity: 16 + hashes.count * 67)
        let response = try await send(.POST, Self.folderPath(folder) + "/chunks/fetch", body: body, timeout: .seconds(300))
        await bandwidth.download.acquire(response.body.count)
        let records: [(hash: String, bytes: ArraySlice<UInt8>)]
        do {
            records = try ChunkBatch.decode(response.body)
        } catch {
            throw RemoteError(kind: .transient, code: "bad_response", message: "malformed chunk batch from the server: \(error)")
        }
        let wanted = Set(hashes)
        var found: [String: [UInt8]] = [:]
        for record in records {
            guard wanted.contains(record.hash), Hashing.sha256Hex(record.bytes) == record.hash else {
                throw RemoteError(
                    kind: .transient, code: "hash_mismatch",
                    message: "the server sent chunk \(record.hash.prefix(12)) with other bytes or unasked; nothing of the batch used")
            }
            found[record.hash] = Array(record.bytes)
        }
        return found
    }

    /// `commitId`: the same id on every retry of the same changes makes a lost
    /// reply harmless (the server answers the retry with the reply it remembered).
    public func commit(folder: String, changes: [CommitChange], commitId: String? = nil) async throws(RemoteError)
        -> CommitResponse
    {
        let body = JSONWriter.bytes(
            of: CommitRequest(changes: changes, commitId: commitId), escapingSlashes: false, capacity: 64 + changes.count * 256)
        let response = try await send(.POST, Self.folderPath(folder) + "/commit", body: body, timeout: .seconds(120))
        return try read(CommitResponse.self, response.body)
    }

    /// Every version of `path` the server keeps (retention), newest first.
    public func history(folder: String, path: String) async throws(RemoteError) -> [WireEntry] {
        try await historyWithProvenance(folder: folder, path: path).versions
    }

    /// The versions of `path`, newest first, with when and by whom each was committed.
    public func historyWithProvenance(folder: String, path: String) async throws(RemoteError) -> HistoryResponse {
        let query = path.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? path
        let response = try await send(.GET, Self.folderPath(folder) + "/history?path=" + query)
        return try decode(HistoryResponse.self, response.body)
    }

    /// The change feed; with `waitSeconds` > 0 the server holds the request until something changes.
    public func changes(folder: String, since: Int64, waitSeconds: Int = 0, limit: Int = 1000) async throws(RemoteError)
        -> ChangesResponse
    {
        let path = Self.folderPath(folder) + "/changes?since=\(since)&wait=\(waitSeconds)&limit=\(limit)"
        let response = try await send(.GET, path, timeout: .seconds(Int64(waitSeconds) + 30))
        return try read(ChangesResponse.self, response.body)
    }
}

extension RemoteClient {
    /// An unauthenticated GET (health checks).
    public static func probe(_ url: String, http: HTTPClient = .shared) async throws -> (status: Int, body: [UInt8]) {
        try await execute(http, HTTPClientRequest(url: url), timeout: .seconds(5))
    }
}
