import Foundation
import Hummingbird
import SyncCore

/// Encoding responses and decoding request bodies, with the server's limits
/// and error codes (`bad_request` with the decoder's message, `too_large`).
enum JSONResponse {
    static func make(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        let data = try encoder.encode(value)
        return Response(
            status: status,
            headers: [.contentType: "application/json; charset=utf-8", .contentLength: String(data.count)],
            body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// The response of a hot path (a feed page, a commit's reply), written by `JSONWriter`:
    /// what `make` writes with its keys sorted, without the generic encoder's cost.
    static func make(writing value: some JSONWritable, capacity: Int = 256, status: HTTPResponse.Status = .ok) -> Response {
        let bytes = JSONWriter.bytes(of: value, escapingSlashes: false, capacity: capacity)
        return Response(
            status: status,
            headers: [.contentType: "application/json; charset=utf-8", .contentLength: String(bytes.count)],
            body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}

enum RequestBodyLimit {
    /// JSON bodies of ordinary requests (a 100,000-hash missing-chunks query is ~7 MB).
    static let json = 16 << 20
    /// A commit of many thousands of changes.
    static let commit = 64 << 20
    /// One chunk: FastCDC's 4 MiB maximum plus slack.
    static let chunk = 8 << 20
    /// A chunk batch.
    static let batch = 64 << 20
}

extension Request {
    /// Collects the body, turning an oversized one into `413 too_large`.
    func collectBody(limit: Int) async throws -> ByteBuffer {
        if let length = headers[.contentLength].flatMap(Int.init), length > limit {
            throw APIError.tooLarge("request body of \(length) bytes exceeds the limit of \(limit) bytes")
        }
        do {
            return try await body.collect(upTo: limit)
        } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
            throw APIError.tooLarge("request body exceeds the limit of \(limit) bytes")
        }
    }

    /// Decodes a JSON body; malformed JSON becomes `400 bad_request` with the decoder's reason.
    func decodeJSON<T: Decodable>(_ type: T.Type, limit: Int = RequestBodyLimit.json) async throws -> T {
        let buffer = try await collectBody(limit: limit)
        do {
            return try JSONDecoder().decode(T.self, from: Data(buffer.readableBytesView))
        } catch let error as DecodingError {
            throw APIError.badRequest("malformed JSON body: \(DecodingErrorText.describe(error))", cause: error)
        } catch {
            throw APIError.badRequest("malformed JSON body: \(error)", cause: error)
        }
    }
}

extension Request {
    /// Reads a hot path's JSON body (a commit) with `JSONReader`; what it refuses becomes
    /// `400 bad_request` with the reason and the byte offset.
    func readJSON<T: JSONReadable>(_ type: T.Type, limit: Int) async throws -> T {
        let buffer = try await collectBody(limit: limit)
        do {
            return try buffer.withUnsafeReadableBytes { raw in
                Result { () throws(JSONReadError) -> T in try JSONReader.read(type, from: raw) }
            }.get()
        } catch {
            throw APIError.badRequest("malformed JSON body: \(error)", cause: error)
        }
    }
}

enum DecodingErrorText {
    static func describe(_ error: DecodingError) -> String {
        func at(_ context: DecodingError.Context) -> String {
            let path = context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
            return path.isEmpty ? context.debugDescription : "\(path): \(context.debugDescription)"
        }
        switch error {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return at(context)
        case .keyNotFound(let key, let context):
            return at(.init(codingPath: context.codingPath + [key], debugDescription: "required key missing"))
        @unknown default:
            return "\(error)"
        }
    }
}
