import Foundation
import Glibc
import Testing
import TestSupport

@testable import SyncCore

/// Chunking a file again with its previous chunk list as a guide gives exactly what chunking
/// it from scratch gives, whatever the edit: small chunk sizes, so that edits land on and
/// around many boundaries, and seeded random edits of every kind.
struct ChunkingAgainTests {
    static let cdc = FastCDC(minSize: 1024, avgSize: 4096, maxSize: 16384)
    static let chunker = FileChunker(cdc: cdc, windowSize: 64 << 10)

    /// What the guided chunking and the one from scratch give for `new`, after `old`.
    static func both(old: [UInt8], new: [UInt8], in dir: String) throws -> (guided: ChunkedFile, scratch: ChunkedFile) {
        try both(new, previous: chunker.chunk(bytes: old).chunks, in: dir)
    }

    /// The same for a file holding `bytes`, guided by `previous`.
    static func both(_ bytes: [UInt8], previous: [ChunkRef], chunker: FileChunker = chunker, in dir: String) throws
        -> (guided: ChunkedFile, scratch: ChunkedFile)
    {
        let path = dir + "/f"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let fd = open(path, O_RDONLY)
        try #require(fd >= 0)
        defer { close(fd) }
        return (try chunker.chunk(fd: fd, path: path, previous: previous), try chunker.chunk(fd: fd, path: path))
    }

    enum Edit: CaseIterable {
        case overwrite, insert, remove, append, truncate, boundaryByte, lastByte, firstByte, twoPlaces, twoShifts, zeros,
            everything
    }

    static func apply(_ edit: Edit, to old: [UInt8], previous: [ChunkRef], random: inout SeededRandom) -> [UInt8] {
        var new = old
        let at = Int(random.next() % UInt64(max(1, old.count)))
        let count = 1 + Int(random.next() % 9000)
        switch edit {
        case .overwrite:
            for i in at..<min(old.count, at + count) { new[i] ^= 0xA5 }
        case .insert:
            new.insert(contentsOf: pseudoRandomBytes(count: count, seed: random.next()), at: at)
        case .remove:
            new.removeSubrange(at..<min(old.count, at + count))
        case .append:
            new += pseudoRandomBytes(count: count, seed: random.next())
        case .truncate:
            new.removeSubrange(at..<old.count)
        case .boundaryByte:
            // The first byte of a chunk: the byte the cut before it looked at.
            let ref = previous[Int(random.next() % UInt64(previous.count))]
            new[Int(ref.offset)] ^= 0xFF
        case .lastByte:
            new[old.count - 1] ^= 0xFF
        case .firstByte:
            new[0] ^= 0xFF
        case .twoPlaces:
            new[at] ^= 0x01
            new.insert(contentsOf: [1, 2, 3], at: Int(random.next() % UInt64(new.count)))
        case .twoShifts:
            // An insertion and a removal elsewhere: the chunks between them moved by another shift.
            new.insert(contentsOf: pseudoRandomBytes(count: count, seed: random.next()), at: at)
            let later = Int(random.next() % UInt64(new.count))
            new.removeSubrange(later..<min(new.count, later + 1 + Int(random.next() % 5000)))
        case .zeros:
            // A run of zeros: chunks cut at maxSize, the same hash many times over.
            new.replaceSubrange(at..<min(old.count, at + count), with: [UInt8](repeating: 0, count: 40_000 + count))
        case .everything:
            new = pseudoRandomBytes(count: old.count, seed: random.next())
        }
        return new
    }

    @Test(arguments: Edit.allCases)
    func aFileChunkedAgainAfterAnEditIsChunkedAsFromScratch(edit: Edit) throws {
        let tmp = try TemporaryDirectory("chunk-again")
        defer { tmp.remove() }
        var random = SeededRandom(seed: 0x5EED + UInt64(Edit.allCases.firstIndex(of: edit)!))
        for round in 0..<12 {
            let old = pseudoRandomBytes(count: 20_000 + Int(random.next() % 300_000), seed: random.next())
            let new = Self.apply(edit, to: old, previous: Self.chunker.chunk(bytes: old).chunks, random: &random)
            let (guided, scratch) = try Self.both(old: old, new: new, in: tmp.path)
            #expect(guided == scratch, "\(edit), round \(round): \(old.count) → \(new.count) bytes")
        }
    }

    /// The same with the standard sizes and a file of many chunks, edited in the middle.
    @Test func aBigFileEditedInTheMiddle() throws {
        let tmp = try TemporaryDirectory("chunk-again-big")
        defer { tmp.remove() }
        let old = pseudoRandomBytes(count: 24 << 20, seed: 99)
        var new = old
        for i in 0..<(1 << 20) { new[(12 << 20) + i] ^= 0x5A }
        let previous = FileChunker().chunk(bytes: old).chunks
        let (guided, scratch) = try Self.both(new, previous: previous, chunker: FileChunker(), in: tmp.path)
        #expect(guided == scratch)
        let kept = Set(previous.map(\.hash)).intersection(guided.chunks.map(\.hash)).count
        #expect(kept >= guided.chunks.count - 8, "only the chunks around the edit are new: \(kept) of \(guided.chunks.count)")
    }

    /// A file of zeros and runs of zeros, edited: every chunk cut at maxSize, one hash for all.
    @Test func zerosAndTheirEdits() throws {
        let tmp = try TemporaryDirectory("chunk-again-zeros")
        defer { tmp.remove() }
        let zeros = [UInt8](repeating: 0, count: 200_000)
        var grown = zeros
        grown.insert(contentsOf: [1, 2, 3], at: 70_000)
        for new in [zeros, grown, Array(zeros.prefix(150_000)), zeros + [9]] {
            let (guided, scratch) = try Self.both(old: zeros, new: new, in: tmp.path)
            #expect(guided == scratch, "\(new.count) bytes")
        }
    }

    /// A list FastCDC would not have cut (chunks over its maximum, or another chunker's sizes)
    /// is not taken as a guide: the chunking is the one from scratch.
    @Test func aListFastCDCWouldNotCutIsNoGuide() throws {
        let tmp = try TemporaryDirectory("chunk-again-other")
        defer { tmp.remove() }
        let bytes = pseudoRandomBytes(count: 100_000, seed: 12)
        let scratch = Self.chunker.chunk(bytes: bytes)
        // Chunks of 50,000 bytes (over maxSize), hashed right: they would be found unchanged.
        let halves = [0, 50_000].map { ChunkRef(hash: Hashing.sha256Hex(bytes[$0..<($0 + 50_000)]), offset: Int64($0), length: 50_000) }
        #expect(!Self.chunker.isGuide(halves))
        #expect(try Self.both(bytes, previous: halves, in: tmp.path).guided == scratch)
        // Chunks of 500 bytes (under minSize), and a list with a gap.
        let small = stride(from: 0, to: 100_000, by: 500).map {
            ChunkRef(hash: Hashing.sha256Hex(bytes[$0..<($0 + 500)]), offset: Int64($0), length: 500)
        }
        #expect(!Self.chunker.isGuide(small))
        #expect(try Self.both(bytes, previous: small, in: tmp.path).guided == scratch)
        let own = Self.chunker.chunk(bytes: bytes).chunks
        #expect(Self.chunker.isGuide(own))
        #expect(!Self.chunker.isGuide(Array(own.dropFirst())), "does not start at 0")
    }

    /// A previous list that does not describe the file at all (another file's) changes nothing.
    @Test func aWrongGuideChangesNothing() throws {
        let tmp = try TemporaryDirectory("chunk-again-wrong")
        defer { tmp.remove() }
        let other = Self.chunker.chunk(bytes: pseudoRandomBytes(count: 200_000, seed: 3)).chunks
        let bytes = pseudoRandomBytes(count: 150_000, seed: 4)
        #expect(try Self.both(bytes, previous: other, in: tmp.path).guided == Self.chunker.chunk(bytes: bytes))
        #expect(try Self.both(bytes, previous: [], in: tmp.path).guided == Self.chunker.chunk(bytes: bytes))
    }
}

/// splitmix64: the same edits on every run.
struct SeededRandom {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z &>> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z &>> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z &>> 31)
    }
}
