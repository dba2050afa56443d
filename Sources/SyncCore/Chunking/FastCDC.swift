/// Content-defined chunk boundaries (FastCDC with normalized chunking).
/// min 256 KiB, average 1 MiB, max 4 MiB by default; a small file is one chunk.
public struct FastCDC: Sendable {
    public let minSize: Int
    public let avgSize: Int
    public let maxSize: Int
    private let maskS: UInt64
    private let maskL: UInt64

    public static let standard = FastCDC(minSize: 256 << 10, avgSize: 1 << 20, maxSize: 4 << 20)

    public init(minSize: Int, avgSize: Int, maxSize: Int) {
        precondition(minSize > 0 && minSize <= avgSize && avgSize <= maxSize, "FastCDC sizes out of order")
        self.minSize = minSize
        self.avgSize = avgSize
        self.maxSize = maxSize
        let bits = UInt64(avgSize.trailingZeroBitCount)
        // Normalization level 2: harder before the average, easier after it.
        self.maskS = FastCDC.mask(bits: bits + 2)
        self.maskL = FastCDC.mask(bits: bits >= 2 ? bits - 2 : 1)
    }

    private static func mask(bits: UInt64) -> UInt64 {
        // Spread the mask's bits over the high part of the word, as FastCDC does.
        var m: UInt64 = 0
        var placed: UInt64 = 0
        var bit: UInt64 = 63
        while placed < bits {
            m |= 1 << bit
            placed += 1
            bit = bit >= 2 ? bit - 2 : 62
        }
        return m
    }

    /// Length of the first chunk of `buffer`. `buffer` holds either at least
    /// `maxSize` bytes or the rest of the stream.
    public func cut(_ buffer: UnsafeRawBufferPointer) -> Int {
        var n = buffer.count
        if n <= minSize { return n }
        if n > maxSize { n = maxSize }
        let normal = min(avgSize, n)
        var fp: UInt64 = 0
        var i = minSize
        let bytes = buffer.bindMemory(to: UInt8.self)
        return Gear.table.withUnsafeBufferPointer { gear in
            while i < normal {
                fp = (fp &<< 1) &+ gear[Int(bytes[i])]
                if fp & maskS == 0 { return i }
                i += 1
            }
            while i < n {
                fp = (fp &<< 1) &+ gear[Int(bytes[i])]
                if fp & maskL == 0 { return i }
                i += 1
            }
            return n
        }
    }
}

enum Gear {
    /// 256 pseudo-random words from splitmix64 with a fixed seed: the table
    /// must never change, or chunk boundaries (and deduplication) change too.
    static let table: [UInt64] = {
        var state: UInt64 = 0x5EED_F00D_CAFE_D00D
        return (0..<256).map { _ in
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z &>> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z &>> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z &>> 31)
        }
    }()
}
