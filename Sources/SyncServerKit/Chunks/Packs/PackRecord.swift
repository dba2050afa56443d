import Foundation
import NIOCore
import SyncCore

/// A pack file's id: its name is the id in 16 hex digits plus `.pack`.
typealias PackID = Int64

enum PackName {
    static let suffix = ".pack"

    static func file(_ id: PackID) -> String { String(format: "%016llx", UInt64(id)) + suffix }

    /// The id in a pack file's name; nil for any other name.
    static func id(of name: String) -> PackID? {
        guard name.hasSuffix(suffix), name.utf8.count == 16 + suffix.utf8.count else { return nil }
        return UInt64(name.dropLast(suffix.utf8.count), radix: 16).flatMap { PackID(exactly: $0) }
    }
}

/// Where a chunk's bytes are: `offset` is the first byte of the chunk itself (its record
/// header is the `PackRecord.headerSize` bytes before it). `checksum`: what its bytes give
/// `ChunkChecksum.of` (nil for rows indexed before it was kept).
struct ChunkLocation: Sendable, Equatable {
    var pack: PackID
    var offset: Int64
    var length: Int64
    var checksum: Int64? = nil

    /// Whether both name the same bytes in the same pack, whatever their checksums say.
    func isSamePlace(as other: ChunkLocation?) -> Bool {
        guard let other else { return false }
        return pack == other.pack && offset == other.offset && length == other.length
    }

    var recordStart: Int64 { offset - Int64(PackRecord.headerSize) }
    var recordEnd: Int64 { offset + length }
}

/// One record of a pack: 32 raw SHA-256 bytes, the chunk's length as 8 bytes big-endian,
/// the chunk's bytes (the chunk batch format of the wire). A pack is records back to back,
/// so it can be verified, and its tail checked, without the index.
enum PackRecord {
    static let headerSize = ChunkBatch.headerSize

    /// Writes the header of a record for a chunk of `length` bytes (whose hash is `hash`,
    /// valid hex) to `out`; the chunk's bytes go right after it.
    static func writeHeader(hash: String, length: Int, to out: inout ByteBuffer) {
        guard let raw = Hashing.rawBytes(hex: hash) else {
            preconditionFailure("PackRecord.writeHeader: \(hash) is not a hash (callers check)")
        }
        out.writeWithUnsafeMutableBytes(minimumWritableBytes: headerSize) { space in
            ChunkBatch.writeHeader(rawHash: raw, length: length, to: space)
            return headerSize
        }
    }
}

/// A verified record found by `PackScan`.
struct ScannedRecord: Sendable, Equatable {
    var hash: String
    var location: ChunkLocation
}

/// Reads a local pack file from its start, record by record, checking each chunk against
/// its hash. A record cut short ends the scan (nothing after it can be found), and so does,
/// beyond `trustedEnd` (the length made durable and indexed), one whose bytes do not match:
/// a torn tail. Below `trustedEnd`, a record whose bytes do not match (or cannot be read)
/// is skipped by its header's length and counted as damaged: the intact records after it,
/// which the server acknowledged, are kept.
enum PackScan {
    struct Result: Sendable {
        var records: [ScannedRecord]
        /// End of the last record read (intact or skipped): a torn tail, if any, starts here.
        var validEnd: Int64
        var fileSize: Int64
        /// Records below `trustedEnd` whose bytes did not match their hash.
        var damaged = 0
    }

    static func scan(fd: Int32, pack: PackID, path: String, trustedEnd: Int64 = 0) throws(StoreIOError) -> Result {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw StoreIOError(operation: "fstat", path: path, code: errno) }
        let size = Int64(info.st_size)
        var records: [ScannedRecord] = []
        var damaged = 0
        var at: Int64 = 0
        while size - at >= Int64(PackRecord.headerSize) {
            let header = try POSIX.readExactly(fd: fd, offset: at, count: PackRecord.headerSize, path: path)
            let (hash, length) = header.withUnsafeBytes { ChunkBatch.parseHeader($0) }
            let start = at + Int64(PackRecord.headerSize)
            guard length <= UInt64(size - start) else { break }
            let end = start + Int64(length)
            var checksum: Int64? = nil
            do {
                let bytes = try POSIX.readExactly(fd: fd, offset: start, count: Int(length), path: path)
                if Hashing.sha256Hex(bytes) == hash { checksum = ChunkChecksum.of(bytes) }
            } catch {
                guard end <= trustedEnd else { throw error }
            }
            let intact = checksum != nil
            if !intact {
                guard end <= trustedEnd else { break }
                damaged += 1
                at = end
                continue
            }
            records.append(
                ScannedRecord(hash: hash, location: ChunkLocation(pack: pack, offset: start, length: Int64(length), checksum: checksum)))
            at = end
        }
        return Result(records: records, validEnd: at, fileSize: size, damaged: damaged)
    }
}
