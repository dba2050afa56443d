import Foundation
import Testing
import TestSupport

@testable import SyncCore

/// `JSONReader` must read what JSONDecoder reads, and never accept what JSONDecoder
/// refuses: documents written any way JSON allows (key order, whitespace, unknown keys,
/// explicit nulls) read to the value they were made from, and of randomly damaged ones,
/// whatever the reader accepts JSONDecoder accepts as the same value.
struct JSONReaderTests {
    /// A JSON value as a test writes it, rendered with random key order and whitespace.
    indirect enum Doc {
        case string(String), int(Int64), bool(Bool), null, array([Doc]), object([(String, Doc)])

        func render(_ random: inout SplitMix64, into out: inout String) {
            func space() { out += random.pick(["", "", " ", "\n", "\t ", "\r\n  "]) }
            switch self {
            case .string(let text): out += JSONReaderTests.quoted(text, &random)
            case .int(let value): out += String(value)
            case .bool(let value): out += value ? "true" : "false"
            case .null: out += "null"
            case .array(let items):
                out += "["
                for (index, item) in items.enumerated() {
                    if index > 0 { out += "," }
                    space()
                    item.render(&random, into: &out)
                    space()
                }
                out += "]"
            case .object(let members):
                out += "{"
                var shuffled = members
                for index in shuffled.indices.reversed() { shuffled.swapAt(index, random.below(index + 1)) }
                for (index, (key, value)) in shuffled.enumerated() {
                    if index > 0 { out += "," }
                    space()
                    out += JSONReaderTests.quoted(key, &random)
                    space()
                    out += ":"
                    space()
                    value.render(&random, into: &out)
                    space()
                }
                out += "}"
            }
        }
    }

    /// A JSON string of `text`, each character either as it is or (at random) escaped.
    static func quoted(_ text: String, _ random: inout SplitMix64) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += random.chance(0.5) ? "\\n" : "\\u000a"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04X", scalar.value)
            case "/": out += random.chance(0.5) ? "\\/" : "/"
            case _ where random.chance(0.2):
                for unit in String(scalar).utf16 { out += String(format: "\\u%04x", unit) }
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    struct Maker {
        var values: JSONWriterTests.Values
        var random: SplitMix64 { get { values.random } set { values.random = newValue } }

        /// Optional members: absent, or null when nil; sometimes an unknown member too.
        mutating func object(_ members: [(String, Doc)], optionals: [(String, Doc?)]) -> Doc {
            var all = members
            for (key, value) in optionals {
                if let value { all.append((key, value)) } else if random.chance(0.5) { all.append((key, .null)) }
            }
            if random.chance(0.3) { all.append(("x_unknown", unknown(depth: 0))) }
            return .object(all)
        }

        mutating func unknown(depth: Int) -> Doc {
            switch random.below(depth > 2 ? 4 : 6) {
            case 0: return .string(values.string())
            case 1: return .int(values.int())
            case 2: return .bool(random.chance(0.5))
            case 3: return .null
            case 4: return .array((0..<random.below(3)).map { _ in unknown(depth: depth + 1) })
            default: return .object((0..<random.below(3)).map { _ in (values.string(), unknown(depth: depth + 1)) })
            }
        }

        mutating func doc(_ entry: WireEntry) -> Doc {
            object(
                [
                    ("path", .string(entry.path)), ("kind", .string(entry.kind.rawValue)), ("size", .int(entry.size)),
                    ("mtime_ns", .int(entry.mtimeNs)), ("mode", .int(Int64(entry.mode))),
                    ("chunks", .array(entry.chunks.map(Doc.string))), ("content_hash", .string(entry.contentHash)),
                    ("deleted", .bool(entry.deleted)), ("rev", .int(entry.rev)),
                ],
                optionals: [
                    ("symlink_target", entry.symlinkTarget.map(Doc.string)), ("device", entry.device.map(Doc.string)),
                    ("moved_from", entry.movedFrom.map(Doc.string)), ("moved_to", entry.movedTo.map(Doc.string)),
                ])
        }

        mutating func doc(_ page: ChangesResponse) -> Doc {
            object(
                [("entries", .array(page.entries.map { doc($0) })), ("cursor", .int(page.cursor)), ("has_more", .bool(page.hasMore))],
                optionals: [("head", page.head.map(Doc.int))])
        }

        mutating func doc(_ change: CommitChange) -> Doc {
            object(
                [
                    ("path", .string(change.path)), ("base_rev", .int(change.baseRev)), ("kind", .string(change.kind.rawValue)),
                    ("size", .int(change.size)), ("mtime_ns", .int(change.mtimeNs)), ("mode", .int(Int64(change.mode))),
                    ("chunks", .array(change.chunks.map(Doc.string))), ("content_hash", .string(change.contentHash)),
                    ("deleted", .bool(change.deleted)),
                ],
                optionals: [("symlink_target", change.symlinkTarget.map(Doc.string)), ("move_from", change.moveFrom.map(Doc.string))])
        }

        mutating func doc(_ request: CommitRequest) -> Doc {
            object([("changes", .array(request.changes.map { doc($0) }))], optionals: [("commit_id", request.commitId.map(Doc.string))])
        }

        mutating func doc(_ result: CommitResult) -> Doc {
            let current = result.current.map { doc($0) }
            let moved = result.moved.map { moved in Doc.array(moved.map { .object([("path", .string($0.path)), ("rev", .int($0.rev))]) }) }
            return object(
                [("path", .string(result.path)), ("status", .string(result.status.rawValue)), ("rev", .int(result.rev))],
                optionals: [("current", current), ("moved", moved)])
        }

        mutating func doc(_ response: CommitResponse) -> Doc {
            object([("results", .array(response.results.map { doc($0) })), ("folder_rev", .int(response.folderRev))], optionals: [])
        }

        mutating func render(_ doc: Doc) -> [UInt8] {
            var out = random.pick(["", " ", "\n"])
            doc.render(&random, into: &out)
            out += random.pick(["", " ", "\n"])
            return Array(out.utf8)
        }
    }

    /// Two reads are the same when they write the same bytes: `String ==` would take
    /// canonically equivalent strings (`ü` and `u\u{308}`) as equal, and the server's commit
    /// hash and the paths it stores depend on the exact bytes.
    static func same<T: JSONWritable>(_ a: T, _ b: T) -> Bool {
        JSONWriter.bytes(of: a, escapingSlashes: true) == JSONWriter.bytes(of: b, escapingSlashes: true)
    }

    /// The documents of one round: a feed page, a commit and its reply.
    static func documents(_ maker: inout Maker) -> [(ChangesResponse, CommitRequest, CommitResponse, [[UInt8]])] {
        let page = ChangesResponse(
            entries: (0..<maker.random.below(4)).map { _ in maker.values.entry() }, cursor: maker.values.int(),
            hasMore: maker.random.chance(0.5), head: maker.values.optional { $0.int() })
        let request = CommitRequest(
            changes: (0..<maker.random.below(4)).map { _ in maker.values.change() }, commitId: maker.values.optional { $0.string() })
        let response = CommitResponse(results: (0..<maker.random.below(4)).map { _ in maker.values.result() }, folderRev: maker.values.int())
        return [(page, request, response, [maker.render(maker.doc(page)), maker.render(maker.doc(request)), maker.render(maker.doc(response))])]
    }

    @Test func readsWhatJSONDecoderReadsHoweverItIsWritten() throws {
        var maker = Maker(values: .init(random: SplitMix64(seed: 2026_1126)))
        for round in 0..<300 {
            for (page, request, response, docs) in Self.documents(&maker) {
                let readPage = try JSONReader.read(ChangesResponse.self, from: docs[0])
                #expect(Self.same(readPage, page), "round \(round): \(String(decoding: docs[0], as: UTF8.self))")
                #expect(Self.same(try JSONDecoder().decode(ChangesResponse.self, from: Data(docs[0])), page))
                let readRequest = try JSONReader.read(CommitRequest.self, from: docs[1])
                #expect(Self.same(readRequest, request), "round \(round): \(String(decoding: docs[1], as: UTF8.self))")
                #expect(Self.same(try JSONDecoder().decode(CommitRequest.self, from: Data(docs[1])), request))
                let readResponse = try JSONReader.read(CommitResponse.self, from: docs[2])
                #expect(Self.same(readResponse, response), "round \(round): \(String(decoding: docs[2], as: UTF8.self))")
                #expect(Self.same(try JSONDecoder().decode(CommitResponse.self, from: Data(docs[2])), response))
                // and what the writer writes
                #expect(Self.same(try JSONReader.read(ChangesResponse.self, from: JSONWriter.bytes(of: page, escapingSlashes: true)), page))
            }
        }
    }

    /// Damaged documents (bytes flipped, cut, repeated): whatever the reader accepts,
    /// JSONDecoder accepts as the same value. Both sides must be exercised.
    @Test func neverAcceptsWhatJSONDecoderRefuses() throws {
        var maker = Maker(values: .init(random: SplitMix64(seed: 77)))
        var accepted = 0
        var refused = 0
        for _ in 0..<150 {
            for (_, _, _, docs) in Self.documents(&maker) {
                for (index, doc) in docs.enumerated() {
                    for _ in 0..<8 {
                        var bytes = doc
                        for _ in 0..<(1 + maker.random.below(2)) where !bytes.isEmpty {
                            let at = maker.random.below(bytes.count)
                            switch maker.random.below(4) {
                            case 0: bytes[at] = maker.random.pick(Array("{}[]\",:\\0123456789-.eEtfnul x\u{7f}".utf8) + [0x00, 0xC3, 0xFF])
                            case 1: bytes.remove(at: at)
                            case 2: bytes.insert(bytes[at], at: at)
                            default: bytes = Array(bytes[..<at])
                            }
                        }
                        let ok: Bool
                        switch index {
                        case 0: ok = Self.check(bytes, ChangesResponse.self)
                        case 1: ok = Self.check(bytes, CommitRequest.self)
                        default: ok = Self.check(bytes, CommitResponse.self)
                        }
                        if ok { accepted += 1 } else { refused += 1 }
                    }
                }
            }
        }
        #expect(accepted > 100, "accepted \(accepted), refused \(refused)")
        #expect(refused > 1000, "accepted \(accepted), refused \(refused)")
    }

    /// True if the reader accepted `bytes`; records an issue if JSONDecoder then differs.
    static func check<T: JSONReadable & JSONWritable & Decodable>(_ bytes: [UInt8], _ type: T.Type) -> Bool {
        let read: T
        do { read = try JSONReader.read(type, from: bytes) } catch { return false }
        let text = String(decoding: bytes, as: UTF8.self)
        do {
            let decoded = try JSONDecoder().decode(type, from: Data(bytes))
            #expect(same(read, decoded), "read differently: \(text)")
        } catch {
            Issue.record("JSONReader accepted what JSONDecoder refuses (\(error)): \(text)")
        }
        return true
    }

    /// Inputs random damage does not reach: each either refused, or read as JSONDecoder reads it.
    @Test func edgeCasesAreReadAsJSONDecoderReadsThemOrRefused() {
        let entry = #"{"path":"a","kind":"file","size":1,"mtime_ns":2,"mode":420,"chunks":[],"content_hash":"h","deleted":false,"rev":"#
        let rawText: [[UInt8]] = [
            [0xC0, 0xAF], [0xE0, 0x80, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xFF], [0x80], [0xC3],
            Array(#"\uDC00"#.utf8), Array(#"\uD800\u0041"#.utf8), Array(#"\uD83D\uDE00"#.utf8), Array(#"\u00G1"#.utf8),
            Array(#"\u00e9"#.utf8), Array(#"\U00e9"#.utf8), Array(#"\x41"#.utf8), Array(#"\'"#.utf8), [0x7F], [0x09],
        ]
        var documents: [[UInt8]] = rawText.map { Array((entry + #"1,"device":""#).utf8) + $0 + Array(#""}"#.utf8) }
        for number in ["-", "-0", "0", "00", "-01", "+1", "1.", ".5", "9223372036854775807", "-9223372036854775808", "1E2", "0x10", "Infinity", "NaN"] {
            documents.append(Array((entry + number + "}").utf8))
        }
        documents.append([0xEF, 0xBB, 0xBF] + Array((entry + "1}").utf8))  // a byte-order mark
        for depth in [508, 509, 510, 511, 512] {
            documents.append(Array((entry + #"1,"x":"# + String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + "}").utf8))
        }
        var read = 0
        for document in documents {
            var page = Array(#"{"cursor":1,"has_more":false,"entries":["#.utf8)
            page += document
            page += Array("]}".utf8)
            if Self.check(page, ChangesResponse.self) { read += 1 }
        }
        // read: the pair, é, DEL; -0, 0, Int64's bounds; nesting to 512 levels in all (508, 509)
        #expect(read == 9, "read \(read) of \(documents.count)")
    }

    @Test func refusesWhatItIsStricterAbout() throws {
        let entry = #""path":"a","kind":"file","size":1,"mtime_ns":2,"mode":420,"chunks":[],"content_hash":"h","deleted":false"#
        let refused = [
            #"{"entries":[],"cursor":1.0,"has_more":false}"#,  // an integer written as a fraction
            #"{"entries":[],"cursor":1e2,"has_more":false}"#,
            #"{"entries":[],"cursor":1,"cursor":2,"has_more":false}"#,  // a known key twice
            #"{"entries":[],"cursor":1,"has_more":false,}"#,  // a trailing comma
            #"{"entries":[{"# + entry + #","rev":9223372036854775808}],"cursor":1,"has_more":false}"#,
            #"{"entries":[{"# + entry.replacingOccurrences(of: #""mode":420"#, with: #""mode":-1"#) + #","rev":1}],"cursor":1,"has_more":false}"#,
            #"{"entries":[{"# + entry + #","rev":1,"mode":1}],"cursor":1,"has_more":false}"#,  // a known key twice
            #"{"entries":[{"# + entry + #"}],"cursor":1,"has_more":false}"#,  // rev missing
            #"{"entries":[],"cursor":1,"has_more":false,"x":"\ud800"}"#,  // a lone surrogate, even unknown
            #"{"entries":[],"cursor":1,"has_more":false} {}"#,
            String(repeating: "[", count: 600) + String(repeating: "]", count: 600),
            #"{"entries":[],"cursor":1,"has_more":false,"x":"# + String(repeating: "[", count: 600) + String(repeating: "]", count: 600) + "}",
        ]
        for text in refused {
            #expect(throws: JSONReadError.self, "\(text.prefix(120))") { try JSONReader.read(ChangesResponse.self, from: Array(text.utf8)) }
        }
        do {
            _ = try JSONReader.read(ChangesResponse.self, from: Array(refused[5].utf8))
            Issue.record("a negative mode was read")
        } catch {
            #expect(error.description.hasPrefix("entries.0.mode: integer out of range at byte "), "\(error)")
        }
        // What an error quotes from a hostile body is cut short (a key of 100,000 bytes).
        let hugeKey = String(repeating: "k", count: 100_000)
        do {
            _ = try JSONReader.read(ChangesResponse.self, from: Array(#"{"\#(hugeKey)":[1,}]}"#.utf8))
            Issue.record("a broken unknown member was read")
        } catch {
            #expect(error.description.count < 200, "\(error.description.prefix(300))")
        }
        // and reads what it is not stricter about: Int64's least value, a null optional
        let page = try JSONReader.read(ChangesResponse.self, from: Array(#"{"entries":[{"# .utf8) + Array(entry.utf8) + Array(#","rev":-9223372036854775808,"device":null}],"cursor":0,"has_more":true,"head":null}"#.utf8))
        #expect(page.entries.first?.rev == .min)
        #expect(page.entries.first?.device == nil)
    }
}
