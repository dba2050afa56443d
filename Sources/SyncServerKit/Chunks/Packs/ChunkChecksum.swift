/// A fast checksum of a stored chunk's bytes (XXH64, seed 0), kept in its index row
/// (decision 0028). The server checks a chunk's SHA-256 when it takes the chunk in, then
/// keeps this beside it: serving checks the checksum (about ten times faster than SHA-256
/// here), which catches damage done to the bytes at rest. Not a defence against someone who
/// writes the data directory: every client checks each chunk's SHA-256 again anyway.
enum ChunkChecksum {
    /// The checksum of `bytes`, as the signed 64-bit integer the databases store.
    static func of(_ bytes: UnsafeRawBufferPointer) -> Int64 {
        Int64(bitPattern: XXH64.hash(bytes))
    }

    static func of(_ bytes: [UInt8]) -> Int64 {
        bytes.withUnsafeBytes { of($0) }
    }
}

/// XXH64 (Yann Collet's xxHash, 64-bit), written from its specification.
enum XXH64 {
    private static let prime1: UInt64 = 0x9E37_79B1_85EB_CA87
    private static let prime2: UInt64 = 0xC2B2_AE3D_27D4_EB4F
    private static let prime3: UInt64 = 0x1656_67B1_9E37_79F9
    private static let prime4: UInt64 = 0x85EB_CA77_C2B2_AE63
    private static let prime5: UInt64 = 0x27D4_EB2F_1656_67C5

    static func hash(_ bytes: UnsafeRawBufferPointer, seed: UInt64 = 0) -> UInt64 {
        let count = bytes.count
        var at = 0
        var h: UInt64
        if count >= 32 {
            var v1 = seed &+ prime1 &+ prime2
            var v2 = seed &+ prime2
            var v3 = seed
            var v4 = seed &- prime1
            while at <= count - 32 {
                v1 = round(v1, load64(bytes, at))
                v2 = round(v2, load64(bytes, at + 8))
                v3 = round(v3, load64(bytes, at + 16))
                v4 = round(v4, load64(bytes, at + 24))
                at += 32
            }
            h = rotl(v1, 1) &+ rotl(v2, 7) &+ rotl(v3, 12) &+ rotl(v4, 18)
            h = merge(h, v1)
            h = merge(h, v2)
            h = merge(h, v3)
            h = merge(h, v4)
        } else {
            h = seed &+ prime5
        }
        h &+= UInt64(count)
        while count - at >= 8 {
            h ^= round(0, load64(bytes, at))
            h = rotl(h, 27) &* prime1 &+ prime4
            at += 8
        }
        if count - at >= 4 {
            h ^= UInt64(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self))) &* prime1
            h = rotl(h, 23) &* prime2 &+ prime3
            at += 4
        }
        while at < count {
            h ^= UInt64(bytes[at]) &* prime5
            h = rotl(h, 11) &* prime1
            at += 1
        }
        h ^= h >> 33
        h &*= prime2
        h ^= h >> 29
        h &*= prime3
        h ^= h >> 32
        return h
    }

    @inline(__always)
    private static func load64(_ bytes: UnsafeRawBufferPointer, _ at: Int) -> UInt64 {
        UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt64.self))
    }

    @inline(__always)
    private static func rotl(_ x: UInt64, _ r: UInt64) -> UInt64 { (x << r) | (x >> (64 - r)) }

    @inline(__always)
    private static func round(_ acc: UInt64, _ input: UInt64) -> UInt64 {
        rotl(acc &+ input &* prime2, 31) &* prime1
    }

    @inline(__always)
    private static func merge(_ acc: UInt64, _ value: UInt64) -> UInt64 {
        (acc ^ round(0, value)) &* prime1 &+ prime4
    }
}
