/// `POST /v1/folders/{folder}/chunks/missing`: which of these chunks does the server lack?
public struct MissingChunksRequest: Codable, Sendable {
    public var hashes: [String]
    public init(hashes: [String]) { self.hashes = hashes }
}

public struct MissingChunksResponse: Codable, Sendable {
    public var missing: [String]
    public init(missing: [String]) { self.missing = missing }
}

/// `POST /v1/folders/{folder}/chunks/fetch`: many chunks in one response (a chunk batch,
/// in request order, the ones the server does not have left out, cut off at a byte limit).
public struct FetchChunksRequest: Codable, Sendable {
    public var hashes: [String]
    public init(hashes: [String]) { self.hashes = hashes }

    /// At most this many hashes per request.
    public static let maxHashes = 10_000
    /// The server stops adding records once the response holds this many bytes (it always
    /// sends at least one record): the client asks again for what was left out.
    public static let maxResponseBytes = 16 << 20
}

/// Body of `POST /v1/folders/{folder}/chunks/batch`: many small chunks in one request.
/// Each record is 32 raw hash bytes, an 8-byte big-endian length, then the bytes.
public enum ChunkBatch {
    public static let headerSize = 40

    public static func encode(_ chunks: [(hash: String, bytes: [UInt8])]) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(chunks.reduce(0) { $0 + headerSize + $1.bytes.count })
        for chunk in chunks {
            out.append(contentsOf: Hashing.rawBytes(hex: chunk.hash) ?? [UInt8](repeating: 0, count: 32))
            let length = UInt64(chunk.bytes.count)
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: length >> UInt64(shift))) }
            out.append(contentsOf: chunk.bytes)
        }
        return out
    }

    public struct DecodeError: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// Splits a batch body into records; says exactly where a malformed body goes wrong.
    public static func decode(_ body: [UInt8]) throws(DecodeError) -> [(hash: String, bytes: ArraySlice<UInt8>)] {
        var records: [(hash: String, bytes: ArraySlice<UInt8>)] = []
        var i = 0
        while i < body.count {
            guard body.count - i >= headerSize else {
                throw DecodeError(description: "truncated record header at byte \(i)")
            }
            let hash = Hashing.hex(body[i..<i + 32])
            var length: UInt64 = 0
            for b in body[i + 32..<i + 40] { length = length << 8 | UInt64(b) }
            let start = i + headerSize
            guard length <= UInt64(body.count - start) else {
                throw DecodeError(description: "record at byte \(i) claims \(length) bytes, only \(body.count - start) left")
            }
            records.append((hash, body[start..<start + Int(length)]))
            i = start + Int(length)
        }
        return records
    }
}
