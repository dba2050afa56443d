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
            let raw = Hashing.rawBytes(hex: chunk.hash) ?? [UInt8](repeating: 0, count: 32)
            chunk.bytes.withUnsafeBytes { appendRecord(rawHash: raw, bytes: $0, to: &out) }
        }
        return out
    }

    /// Appends one record: the 32 raw hash bytes, the length, the bytes.
    public static func appendRecord(rawHash: [UInt8], bytes: UnsafeRawBufferPointer, to out: inout [UInt8]) {
        withUnsafeTemporaryAllocation(byteCount: headerSize, alignment: 1) { header in
            writeHeader(rawHash: rawHash, length: bytes.count, to: header)
            out.append(contentsOf: header)
        }
        out.append(contentsOf: bytes)
    }

    /// A record's 40-byte header (the 32 raw hash bytes, the length) at the start of `space`.
    public static func writeHeader(rawHash: [UInt8], length: Int, to space: UnsafeMutableRawBufferPointer) {
        space.copyBytes(from: rawHash.prefix(32))
        withUnsafeBytes(of: UInt64(length).bigEndian) { UnsafeMutableRawBufferPointer(rebasing: space[32..<headerSize]).copyMemory(from: $0) }
    }

    /// The hash (hex) and length named by a record's 40-byte header (`header` holds at
    /// least `headerSize` bytes). Not generic: it is called for every record the server takes
    /// in or scans, from other modules, where a generic one runs unspecialized.
    public static func parseHeader(_ header: UnsafeRawBufferPointer) -> (hash: String, length: UInt64) {
        precondition(header.count >= headerSize, "a chunk record header is \(headerSize) bytes")
        let hex = Hashing.hex(UnsafeRawBufferPointer(rebasing: header[0..<32]))
        var length: UInt64 = 0
        for i in 32..<headerSize { length = length << 8 | UInt64(header[i]) }
        return (hex, length)
    }

    public struct DecodeError: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// Splits a batch body into records; says exactly where a malformed body goes wrong.
    public static func decode(_ body: [UInt8]) throws(DecodeError) -> [(hash: String, bytes: ArraySlice<UInt8>)] {
        let ranges = body.withUnsafeBytes { bytes in Result { () throws(DecodeError) in try records(in: bytes) } }
        return try ranges.get().map { ($0.hash, body[$0.range]) }
    }

    /// Where each record's bytes are in `body`, with its hash (a receiver that holds the body in
    /// a buffer of its own reads them there, without a copy).
    public static func records(in body: UnsafeRawBufferPointer) throws(DecodeError) -> [(hash: String, range: Range<Int>)] {
        var records: [(hash: String, range: Range<Int>)] = []
        var i = 0
        while i < body.count {
            guard body.count - i >= headerSize else {
                throw DecodeError(description: "truncated record header at byte \(i)")
            }
            let (hash, length) = parseHeader(UnsafeRawBufferPointer(rebasing: body[i..<i + headerSize]))
            let start = i + headerSize
            guard length <= UInt64(body.count - start) else {
                throw DecodeError(description: "record at byte \(i) claims \(length) bytes, only \(body.count - start) left")
            }
            records.append((hash, start..<start + Int(length)))
            i = start + Int(length)
        }
        return records
    }
}
