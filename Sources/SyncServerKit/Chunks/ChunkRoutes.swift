import Hummingbird
import SyncCore

/// Chunk endpoints under `/v1/folders/{folder}/chunks`.
struct ChunkRoutes {
    let chunks: ChunkStore
    let metrics: ServerMetrics

    static let maxMissingQuery = 100_000

    func register(on group: RouterGroup<ServerRequestContext>) {
        group.post("chunks/missing") { request, context in try await missing(request, context: context) }
        group.post("chunks/batch") { request, context in try await batch(request, context: context) }
        group.post("chunks/fetch") { request, context in try await fetch(request, context: context) }
        group.put("chunks/{hash}") { request, context in try await put(request, context: context) }
        group.get("chunks/{hash}") { request, context in try await get(request, context: context) }
    }

    func missing(_ request: Request, context: ServerRequestContext) async throws -> Response {
        _ = try context.grantedFolder()
        let query = try await request.decodeJSON(MissingChunksRequest.self)
        try Self.check(query.hashes, atMost: Self.maxMissingQuery)
        return JSONResponse.make(writing: MissingChunksResponse(missing: try await chunks.missing(query.hashes)))
    }

    func put(_ request: Request, context: ServerRequestContext) async throws -> Response {
        _ = try context.grantedFolder()
        let hash = try Self.hashParameter(context)
        let body = try await request.collectBody(limit: RequestBodyLimit.chunk)
        let actual = body.withUnsafeReadableBytes { Hashing.sha256Hex($0) }
        guard actual == hash else {
            throw APIError.hashMismatch("body hashes to \(actual), not \(hash); nothing stored")
        }
        let created = try await chunks.store(hash: hash, bytes: body)
        metrics.chunksReceived(
            bytes: body.readableBytes, newChunks: created ? 1 : 0, newBytes: created ? body.readableBytes : 0)
        return try JSONResponse.make(StoredChunk(hash: hash, size: body.readableBytes), status: created ? .created : .ok)
    }

    func batch(_ request: Request, context: ServerRequestContext) async throws -> Response {
        _ = try context.grantedFolder()
        let body = try await request.collectBody(limit: RequestBodyLimit.batch)
        // The records are read where they arrived (a batch is up to 8 MiB, several in flight).
        let records = try body.withUnsafeReadableBytes { bytes in
            let records: [(hash: String, range: Range<Int>)]
            do {
                records = try ChunkBatch.records(in: bytes)
            } catch {
                throw APIError.badRequest("malformed chunk batch: \(error)", cause: error)
            }
            // Verify everything before storing anything.
            for record in records {
                let actual = Hashing.sha256Hex(UnsafeRawBufferPointer(rebasing: bytes[record.range]))
                guard actual == record.hash else {
                    throw APIError.hashMismatch(
                        "batch record \(record.hash) hashes to \(actual); nothing from this batch was stored")
                }
            }
            return records
        }
        let stored = try await chunks.storeNew(records: records, in: body)
        metrics.chunksReceived(
            bytes: records.reduce(0) { $0 + $1.range.count }, newChunks: stored.chunks, newBytes: Int(stored.bytes))
        return try JSONResponse.make(BatchStored(stored: stored.chunks, received: records.count))
    }

    /// Many chunks in one response (a chunk batch): the receiving side of many small files.
    func fetch(_ request: Request, context: ServerRequestContext) async throws -> Response {
        _ = try context.grantedFolder()
        let query = try await request.decodeJSON(FetchChunksRequest.self)
        try Self.check(query.hashes, atMost: FetchChunksRequest.maxHashes)
        let body = try await chunks.batch(of: query.hashes, limit: FetchChunksRequest.maxResponseBytes)
        metrics.chunksSent(bytes: body.readableBytes)
        return Response(
            status: .ok,
            headers: [.contentType: "application/octet-stream", .contentLength: String(body.readableBytes)],
            body: .init(byteBuffer: body))
    }

    func get(_ request: Request, context: ServerRequestContext) async throws -> Response {
        _ = try context.grantedFolder()
        let hash = try Self.hashParameter(context)
        guard let read = try await chunks.read(hash: hash, rangeHeader: request.headers[.range]) else {
            throw APIError.notFound("no chunk \(hash)")
        }
        guard read.satisfiable else {
            throw APIError(
                .rangeNotSatisfiable, status: .rangeNotSatisfiable,
                "range \(request.headers[.range] ?? "") is outside the chunk's \(read.total) bytes",
                headers: [.contentRange: "bytes */\(read.total)"])
        }
        var headers: HTTPFields = [
            .contentType: "application/octet-stream",
            .contentLength: String(read.bytes.readableBytes),
            .acceptRanges: "bytes",
            .eTag: "\"\(hash)\"",
        ]
        if let range = read.range {
            headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(read.total)"
        }
        metrics.chunksSent(bytes: read.bytes.readableBytes)
        return Response(
            status: read.range == nil ? .ok : .partialContent, headers: headers, body: .init(byteBuffer: read.bytes))
    }

    /// A list of chunk hashes in a request body: not too many, each 64 lowercase hex characters.
    static func check(_ hashes: [String], atMost limit: Int) throws {
        guard hashes.count <= limit else {
            throw APIError.badRequest("at most \(limit) hashes per request, got \(hashes.count)")
        }
        if let bad = hashes.first(where: { !Hashing.isValidHex($0) }) {
            throw APIError.badRequest("not a chunk hash (64 lowercase hex characters): \(bad.debugDescription)")
        }
    }

    static func hashParameter(_ context: ServerRequestContext) throws -> String {
        guard let hash = context.parameters.get("hash"), Hashing.isValidHex(hash) else {
            throw APIError.badRequest("the chunk hash in the URL must be 64 lowercase hex characters")
        }
        return hash
    }
}

struct StoredChunk: Codable, Sendable {
    var hash: String
    var size: Int
}

/// `stored`: records newly written; `received`: records in the batch (already-present ones are skipped).
struct BatchStored: Codable, Sendable {
    var stored: Int
    var received: Int
}
