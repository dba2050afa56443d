import Foundation
import Testing
import TestSupport

@testable import SyncCore

/// `JSONWriter` must write exactly what JSONEncoder writes with sorted keys: the same
/// bytes for every value, so no reader can tell them apart and the server's commit hash
/// (idempotent retries) is unchanged.
struct JSONWriterTests {
    /// Seeded random values of every written type, with every optional both present and
    /// absent, and strings that hold what needs escaping.
    struct Values {
        var random: SplitMix64

        mutating func string() -> String {
            let pieces = [
                "a", "dir/file.txt", "\"", "\\", "/", "\u{0}", "\u{1}", "\u{8}", "\t", "\n", "\u{b}", "\u{c}", "\r",
                "\u{1f}", " ", "\u{7f}", "é", "\u{2028}", "\u{feff}", "😀", "ü\u{308}", "{}[],:", "-1e5", "",
            ]
            return (0..<random.below(6)).map { _ in random.pick(pieces) }.joined()
        }

        mutating func int() -> Int64 {
            random.pick([0, 1, -1, .max, .min, Int64(bitPattern: random.next()), Int64(random.below(1_000_000))])
        }

        mutating func optional<T>(_ make: (inout Values) -> T) -> T? { random.chance(0.5) ? make(&self) : nil }

        mutating func strings() -> [String] { (0..<random.below(4)).map { _ in string() } }

        mutating func entry() -> WireEntry {
            WireEntry(
                path: string(), kind: random.pick([.file, .directory, .symlink]), size: int(), mtimeNs: int(),
                mode: UInt32(truncatingIfNeeded: random.next()), chunks: strings(), contentHash: string(),
                deleted: random.chance(0.5), rev: int(), symlinkTarget: optional { $0.string() },
                device: optional { $0.string() }, movedFrom: optional { $0.string() }, movedTo: optional { $0.string() })
        }

        mutating func change() -> CommitChange {
            CommitChange(
                path: string(), baseRev: int(), kind: random.pick([.file, .directory, .symlink]), size: int(),
                mtimeNs: int(), mode: UInt32(truncatingIfNeeded: random.next()), chunks: strings(),
                contentHash: string(), deleted: random.chance(0.5), symlinkTarget: optional { $0.string() },
                moveFrom: optional { $0.string() })
        }

        mutating func result() -> CommitResult {
            CommitResult(
                path: string(), status: random.pick([.ok, .conflict]), rev: int(), current: optional { $0.entry() },
                moved: optional { values in (0..<values.random.below(3)).map { _ in MovedEntry(path: values.string(), rev: values.int()) } })
        }
    }

    func expectSameBytes<T: Encodable & JSONWritable>(_ value: T, _ note: @autoclosure () -> String = "") throws {
        for escapingSlashes in [true, false] {
            let encoder = JSONEncoder()
            encoder.outputFormatting = escapingSlashes ? [.sortedKeys] : [.sortedKeys, .withoutEscapingSlashes]
            let expected = String(decoding: try encoder.encode(value), as: UTF8.self)
            let written = String(decoding: JSONWriter.bytes(of: value, escapingSlashes: escapingSlashes), as: UTF8.self)
            #expect(written == expected, "\(T.self), escaping slashes: \(escapingSlashes) \(note())")
        }
    }

    @Test func writesWhatJSONEncoderWritesForEveryWireType() throws {
        var values = Values(random: SplitMix64(seed: 2026_1126))
        for round in 0..<300 {
            let entries = (0..<values.random.below(4)).map { _ in values.entry() }
            let head = values.optional { $0.int() }
            try expectSameBytes(
                ChangesResponse(entries: entries, cursor: values.int(), hasMore: values.random.chance(0.5), head: head),
                "round \(round)")
            let changes = (0..<values.random.below(4)).map { _ in values.change() }
            try expectSameBytes(CommitRequest(changes: changes, commitId: values.optional { $0.string() }), "round \(round)")
            let results = (0..<values.random.below(4)).map { _ in values.result() }
            try expectSameBytes(CommitResponse(results: results, folderRev: values.int()), "round \(round)")
            try expectSameBytes(MissingChunksRequest(hashes: values.strings()), "round \(round)")
            try expectSameBytes(MissingChunksResponse(missing: values.strings()), "round \(round)")
            try expectSameBytes(FetchChunksRequest(hashes: values.strings()), "round \(round)")
        }
    }

    /// The server hashes a commit's changes (a top-level array, slashes escaped) to match
    /// a retry with the reply it remembered, before this writer too.
    @Test func theCommitHashInputIsWhatJSONEncoderWrote() throws {
        var values = Values(random: SplitMix64(seed: 11))
        let changes = (0..<40).map { _ in values.change() }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        #expect(JSONWriter.bytes(of: changes, escapingSlashes: true) == Array(try encoder.encode(changes)))
    }

    @Test func everyControlCharacterAndSlashIsEscapedAsFoundationDoes() throws {
        let all = String(String.UnicodeScalarView((0..<0x80).compactMap(Unicode.Scalar.init)))
        try expectSameBytes(MissingChunksRequest(hashes: [all, "a/b//", "\\/\""]))
    }

    @Test func anArrayOfCommitChangesReadsBackAsWritten() throws {
        var values = Values(random: SplitMix64(seed: 7))
        let request = CommitRequest(changes: (0..<50).map { _ in values.change() }, commitId: "retry-0001")
        let decoded = try JSONDecoder().decode(
            CommitRequest.self, from: Data(JSONWriter.bytes(of: request, escapingSlashes: false)))
        #expect(decoded.changes == request.changes)
        #expect(decoded.commitId == request.commitId)
    }
}
