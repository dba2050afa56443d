/// Reads the JSON of the wire types on the hot paths (a feed page, a commit and its
/// reply) straight from bytes, without `JSONDecoder`'s generic `Codable` machinery,
/// which cost a tenth of each side's CPU in a 100,000-file push.
///
/// It is never more lenient than `JSONDecoder`: whatever it reads, JSONDecoder reads to
/// the same value (`JSONReaderTests` holds it to that on seeded random and mutated
/// documents). It is stricter: an integer must be written as one (no `1.0` or `1e2`), a
/// key the type knows may appear only once (JSONDecoder keeps the first), no trailing
/// comma, UTF-8 only (no byte-order mark, no UTF-16), and every string must be valid
/// even in a member the type does not know. Nesting stops at 512 levels, as in
/// JSONDecoder. The bytes may come from a hostile peer: every read is bounds-checked,
/// every failure is a `JSONReadError`, and what it quotes from the input is cut short.
public struct JSONReader {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var at = 0
    private var depth = 0
    static let maxDepth = 512

    private init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    /// Reads one `T` that must be all of `bytes` (whitespace aside).
    public static func read<T: JSONReadable>(_ type: T.Type, from bytes: UnsafeRawBufferPointer) throws(JSONReadError) -> T {
        var reader = JSONReader(bytes.assumingMemoryBound(to: UInt8.self))
        reader.skipWhitespace()
        let value = try T(reading: &reader)
        reader.skipWhitespace()
        guard reader.at == reader.bytes.count else { throw reader.failure("unexpected bytes after the value") }
        return value
    }

    public static func read<T: JSONReadable>(_ type: T.Type, from bytes: [UInt8]) throws(JSONReadError) -> T {
        try bytes.withUnsafeBytes { raw in
            Result { () throws(JSONReadError) -> T in try read(type, from: raw) }
        }.get()
    }

    public func failure(_ message: String) -> JSONReadError { JSONReadError(message: message, offset: at) }

    // MARK: containers

    /// Reads an object, calling `member` with each key; `member` reads the value, or
    /// `skipValue()`s a key the type does not know. The type marks the keys it knows in its
    /// `JSONMembers`, so that a known key seen twice fails.
    public mutating func object(_ member: (inout JSONReader, String) throws(JSONReadError) -> Void) throws(JSONReadError) {
        try open(UInt8(ascii: "{"), "an object")
        skipWhitespace()
        if peek() == UInt8(ascii: "}") {
            at += 1
            depth -= 1
            return
        }
        while true {
            skipWhitespace()
            guard peek() == UInt8(ascii: "\"") else { throw failure("expected a key") }
            let key = try string()
            skipWhitespace()
            try expect(UInt8(ascii: ":"))
            skipWhitespace()
            do { try member(&self, key) } catch { throw error.within(JSONReadError.step(key)) }
            skipWhitespace()
            if peek() == UInt8(ascii: ",") {
                at += 1
                continue
            }
            guard peek() == UInt8(ascii: "}") else { throw failure("expected , or }") }
            at += 1
            depth -= 1
            return
        }
    }

    public mutating func array(_ element: (inout JSONReader) throws(JSONReadError) -> Void) throws(JSONReadError) {
        try open(UInt8(ascii: "["), "an array")
        skipWhitespace()
        if peek() == UInt8(ascii: "]") {
            at += 1
            depth -= 1
            return
        }
        var index = 0
        while true {
            skipWhitespace()
            do { try element(&self) } catch { throw error.within(String(index)) }
            index += 1
            skipWhitespace()
            if peek() == UInt8(ascii: ",") {
                at += 1
                continue
            }
            guard peek() == UInt8(ascii: "]") else { throw failure("expected , or ]") }
            at += 1
            depth -= 1
            return
        }
    }

    public mutating func array<Element: JSONReadable>(of type: Element.Type) throws(JSONReadError) -> [Element] {
        var values: [Element] = []
        try array { (reader) throws(JSONReadError) in values.append(try Element(reading: &reader)) }
        return values
    }

    /// An optional member: `null` is nil, as JSONDecoder reads it.
    public mutating func optional<T>(_ read: (inout JSONReader) throws(JSONReadError) -> T) throws(JSONReadError) -> T? {
        null() ? nil : try read(&self)
    }

    public mutating func strings() throws(JSONReadError) -> [String] {
        var values: [String] = []
        try array { (reader) throws(JSONReadError) in values.append(try reader.string()) }
        return values
    }

    // MARK: values

    /// `null` is next: reads it and returns true (an optional member left absent).
    public mutating func null() -> Bool {
        guard at + 4 <= bytes.count, bytes[at] == UInt8(ascii: "n"), bytes[at + 1] == UInt8(ascii: "u"),
            bytes[at + 2] == UInt8(ascii: "l"), bytes[at + 3] == UInt8(ascii: "l")
        else { return false }
        at += 4
        return true
    }

    public mutating func bool() throws(JSONReadError) -> Bool {
        if literal("true") { return true }
        if literal("false") { return false }
        throw failure("expected true or false")
    }

    /// An integer written as one: `-?(0|[1-9][0-9]*)` within Int64's range.
    public mutating func int64() throws(JSONReadError) -> Int64 {
        let negative = peek() == UInt8(ascii: "-")
        if negative { at += 1 }
        let start = at
        var magnitude: UInt64 = 0
        while at < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[at]) {
            let (times, overflowTimes) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, overflowSum) = times.addingReportingOverflow(UInt64(bytes[at] - UInt8(ascii: "0")))
            guard !overflowTimes, !overflowSum else { throw failure("integer out of range") }
            magnitude = sum
            at += 1
        }
        guard at > start else { throw failure("expected an integer") }
        guard bytes[start] != UInt8(ascii: "0") || at == start + 1 else { throw failure("an integer with a leading zero") }
        if let next = peek(), next == UInt8(ascii: ".") || next == UInt8(ascii: "e") || next == UInt8(ascii: "E") {
            throw failure("expected an integer, not a fraction or an exponent")
        }
        if negative {
            guard magnitude <= UInt64(Int64.max) + 1 else { throw failure("integer out of range") }
            return magnitude == UInt64(Int64.max) + 1 ? .min : -Int64(magnitude)
        }
        guard magnitude <= UInt64(Int64.max) else { throw failure("integer out of range") }
        return Int64(magnitude)
    }

    public mutating func uint32() throws(JSONReadError) -> UInt32 {
        let value = try int64()
        guard let exact = UInt32(exactly: value) else { throw failure("integer out of range") }
        return exact
    }

    public mutating func string() throws(JSONReadError) -> String {
        guard peek() == UInt8(ascii: "\"") else { throw failure("expected a string") }
        at += 1
        let start = at
        // The common case: no escape, so the string is the bytes as they are.
        while at < bytes.count {
            let byte = bytes[at]
            if byte == UInt8(ascii: "\"") {
                let raw = UnsafeBufferPointer(rebasing: bytes[start..<at])
                at += 1
                guard let text = String(validating: raw, as: UTF8.self) else { throw failure("a string that is not UTF-8") }
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            guard byte >= 0x20 else { throw failure("a control character in a string") }
            at += 1
        }
        var unescaped = Array(UnsafeBufferPointer(rebasing: bytes[start..<at]))
        while at < bytes.count {
            let byte = bytes[at]
            at += 1
            switch byte {
            case UInt8(ascii: "\""):
                guard let text = String(validating: unescaped, as: UTF8.self) else {
                    throw failure("a string that is not UTF-8")
                }
                return text
            case UInt8(ascii: "\\"):
                try unescape(into: &unescaped)
            case 0..<0x20:
                throw failure("a control character in a string")
            default:
                unescaped.append(byte)
            }
        }
        throw failure("an unterminated string")
    }

    /// Skips a value of any kind (a member the type does not know).
    public mutating func skipValue() throws(JSONReadError) {
        switch peek() {
        case UInt8(ascii: "{"):
            try object { (reader, _) throws(JSONReadError) in try reader.skipValue() }
        case UInt8(ascii: "["):
            try array { (reader) throws(JSONReadError) in try reader.skipValue() }
        case UInt8(ascii: "\""):
            _ = try string()
        case UInt8(ascii: "t"), UInt8(ascii: "f"):
            _ = try bool()
        case UInt8(ascii: "n"):
            guard null() else { throw failure("expected a value") }
        default:
            try skipNumber()
        }
    }

    // MARK: bytes

    private func peek() -> UInt8? { at < bytes.count ? bytes[at] : nil }

    private mutating func skipWhitespace() {
        while at < bytes.count {
            switch bytes[at] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"): at += 1
            default: return
            }
        }
    }

    private mutating func expect(_ byte: UInt8) throws(JSONReadError) {
        guard peek() == byte else { throw failure("expected \(Character(Unicode.Scalar(byte)))") }
        at += 1
    }

    private mutating func open(_ byte: UInt8, _ what: String) throws(JSONReadError) {
        guard peek() == byte else { throw failure("expected \(what)") }
        guard depth < Self.maxDepth else { throw failure("nested deeper than \(Self.maxDepth) levels") }
        depth += 1
        at += 1
    }

    private mutating func literal(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard at + count <= bytes.count else { return false }
        let matches = word.withUTF8Buffer { word in (0..<count).allSatisfy { bytes[at + $0] == word[$0] } }
        if matches { at += count }
        return matches
    }

    /// A number of any form JSON allows (an unknown member's value).
    private mutating func skipNumber() throws(JSONReadError) {
        if peek() == UInt8(ascii: "-") { at += 1 }
        let digits = at
        while let byte = peek(), (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { at += 1 }
        guard at > digits else { throw failure("expected a value") }
        guard bytes[digits] != UInt8(ascii: "0") || at == digits + 1 else { throw failure("a number with a leading zero") }
        if peek() == UInt8(ascii: ".") {
            at += 1
            let fraction = at
            while let byte = peek(), (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { at += 1 }
            guard at > fraction else { throw failure("a number with an empty fraction") }
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            at += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { at += 1 }
            let exponent = at
            while let byte = peek(), (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { at += 1 }
            guard at > exponent else { throw failure("a number with an empty exponent") }
        }
    }

    /// One escape after its backslash, as UTF-8; a `\u` surrogate must come in a pair.
    private mutating func unescape(into out: inout [UInt8]) throws(JSONReadError) {
        guard let byte = peek() else { throw failure("an unterminated string") }
        at += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(byte)
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "r"): out.append(0x0D)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = UInt32(try hex4())
            if (0xD800..<0xDC00).contains(scalar) {
                guard literal("\\u") else { throw failure("a lone surrogate in a \\u escape") }
                let low = UInt32(try hex4())
                guard (0xDC00..<0xE000).contains(low) else { throw failure("a lone surrogate in a \\u escape") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw failure("a lone surrogate in a \\u escape") }
            out.append(contentsOf: UTF8.encode(unicode)!)
        default:
            throw failure("an unknown escape")
        }
    }

    private mutating func hex4() throws(JSONReadError) -> UInt16 {
        guard at + 4 <= bytes.count else { throw failure("a short \\u escape") }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let byte = bytes[at]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure("a bad \\u escape")
            }
            value = value << 4 | UInt16(digit)
            at += 1
        }
        return value
    }
}

/// Why a document could not be read, and where: the keys and indices down to the value
/// (`changes.0.path`), and the byte offset.
public struct JSONReadError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var offset: Int
    public var path: [String] = []

    public var description: String {
        path.isEmpty ? "\(message) at byte \(offset)" : "\(path.joined(separator: ".")): \(message) at byte \(offset)"
    }

    /// `text` from the input as an error shows it: quoted, escaped, at most 64 characters
    /// (a hostile body may hold a key of megabytes).
    public static func shown(_ text: String) -> String {
        text.count > 64 ? String(reflecting: String(text.prefix(64))) + "…" : String(reflecting: text)
    }

    /// A key as a path shows it: as it is when it is a short plain name, else `shown`.
    static func step(_ key: String) -> String {
        let plain = key.utf8.count <= 64 && !key.isEmpty
            && key.utf8.allSatisfy { $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }
        return plain ? key : shown(key)
    }

    /// The same failure, one level further out (inside member or element `step`).
    func within(_ step: String) -> JSONReadError {
        var outer = self
        outer.path.insert(step, at: 0)
        return outer
    }
}

/// A value `JSONReader` reads: the same keys as its `Codable` conformance.
public protocol JSONReadable {
    init(reading reader: inout JSONReader) throws(JSONReadError)
}

/// The members of one object as a type reads them: which it has seen (a known key seen
/// twice fails) and which it still needs.
public struct JSONMembers {
    private var seen: UInt32 = 0

    public init() {}

    /// Marks member `index` (0-31) as read; a second time fails.
    public mutating func mark(_ index: Int, _ key: String, _ reader: JSONReader) throws(JSONReadError) {
        let bit = UInt32(1) << UInt32(index)
        guard seen & bit == 0 else { throw reader.failure("the key \"\(key)\" twice in one object") }
        seen |= bit
    }

    /// The value of a required member, or the failure that names it.
    public func required<T>(_ value: T?, _ key: String, _ reader: JSONReader) throws(JSONReadError) -> T {
        guard let value else { throw reader.failure("the required key \"\(key)\" is missing") }
        return value
    }
}
