import Crypto
import Foundation

/// SHA-256 helpers. Hashes travel as lowercase hex strings of 64 characters.
public enum Hashing {
    public static func sha256Hex<D: DataProtocol>(_ data: D) -> String {
        SHA256.hash(data: data).withUnsafeBytes { hex($0) }
    }

    public static func sha256Hex(_ buffer: UnsafeRawBufferPointer) -> String {
        SHA256.hash(data: buffer).withUnsafeBytes { hex($0) }
    }

    /// The content hash of an entry: SHA-256 over the concatenated raw chunk
    /// hashes. An empty file has no chunks and hashes to SHA-256("").
    public static func contentHash(chunks: [String]) -> String {
        var hasher = SHA256()
        for chunk in chunks {
            if let raw = rawBytes(hex: chunk) { hasher.update(data: raw) }
        }
        return hex(hasher.finalize())
    }

    public static func isValidHex(_ s: String) -> Bool {
        s.utf8.count == 64 && s.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    public static func rawBytes(hex: String) -> [UInt8]? {
        guard isValidHex(hex) else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(32)
        var high: UInt8 = 0
        for (i, c) in hex.utf8.enumerated() {
            let v = c <= 57 ? c - 48 : c - 87
            if i % 2 == 0 { high = v } else { out.append(high << 4 | v) }
        }
        return out
    }

    private static let digits = Array("0123456789abcdef".utf8)

    /// `bytes` as lowercase hex, written straight into the string's storage (hot: every hash
    /// the server reads from a chunk record or computes goes through it).
    public static func hex(_ bytes: UnsafeRawBufferPointer) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { out in
            for (i, b) in bytes.enumerated() {
                out[2 * i] = digits[Int(b >> 4)]
                out[2 * i + 1] = digits[Int(b & 0x0f)]
            }
            return bytes.count * 2
        }
    }

    public static func hex<S: Sequence>(_ bytes: S) -> String where S.Element == UInt8 {
        bytes.withContiguousStorageIfAvailable { hex(UnsafeRawBufferPointer($0)) }
            ?? Array(bytes).withUnsafeBytes { hex($0) }
    }
}
