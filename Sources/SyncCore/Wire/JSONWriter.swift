/// Writes the JSON of the wire types on the hot paths (a feed page, a commit and its
/// reply, a chunk query) straight into bytes, without `JSONEncoder`'s generic `Codable`
/// machinery, which cost a fifth of the server's CPU in a 100,000-file push.
///
/// The output is byte for byte what `JSONEncoder` with `.sortedKeys` writes (plus
/// `.withoutEscapingSlashes` when `escapingSlashes` is false): keys in code-unit order,
/// absent optionals left out, strings escaped as Foundation escapes them. The tests hold
/// it to that against `JSONEncoder` itself, so a reader cannot tell the two apart and
/// the commit hash the server keeps for idempotent retries did not change.
public struct JSONWriter {
    public private(set) var bytes: [UInt8] = []
    /// Whether `/` is written as `\/` (JSONEncoder's default).
    public let escapingSlashes: Bool
    /// No value written yet in the innermost open object or array.
    private var atFirst = true

    public init(escapingSlashes: Bool, capacity: Int = 256) {
        self.escapingSlashes = escapingSlashes
        bytes.reserveCapacity(capacity)
    }

    /// The JSON of `value`.
    public static func bytes(of value: some JSONWritable, escapingSlashes: Bool, capacity: Int = 256) -> [UInt8] {
        var writer = JSONWriter(escapingSlashes: escapingSlashes, capacity: capacity)
        value.write(to: &writer)
        return writer.bytes
    }

    /// The JSON array of `values`.
    public static func bytes<Element: JSONWritable>(of values: [Element], escapingSlashes: Bool, capacity: Int = 256) -> [UInt8] {
        var writer = JSONWriter(escapingSlashes: escapingSlashes, capacity: capacity)
        writer.array(values)
        return writer.bytes
    }

    // MARK: containers

    public mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        atFirst = true
    }

    public mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        atFirst = false
    }

    public mutating func beginArray() {
        separate()
        bytes.append(UInt8(ascii: "["))
        atFirst = true
    }

    public mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        atFirst = false
    }

    /// Writes `"name":`; the value written next belongs to it. Keys are ASCII and written
    /// as they are: the callers name them in code-unit order.
    public mutating func key(_ name: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        append(name)
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        atFirst = true
    }

    // MARK: values

    public mutating func string(_ value: String) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { appendEscaped($0) }
        bytes.append(UInt8(ascii: "\""))
    }

    public mutating func int(_ value: Int64) {
        separate()
        if value < 0 {
            bytes.append(UInt8(ascii: "-"))
        }
        appendDigits(value.magnitude)
    }

    public mutating func uint(_ value: UInt32) {
        separate()
        appendDigits(UInt64(value))
    }

    public mutating func bool(_ value: Bool) {
        separate()
        append(value ? "true" : "false")
    }

    public mutating func strings(_ values: [String]) {
        beginArray()
        for value in values { string(value) }
        endArray()
    }

    public mutating func array<Element: JSONWritable>(_ values: [Element]) {
        beginArray()
        for value in values { value.write(to: &self) }
        endArray()
    }

    // MARK: members: a key and its value; an absent optional writes nothing

    public mutating func member(_ name: StaticString, _ value: String) {
        key(name)
        string(value)
    }

    public mutating func member(_ name: StaticString, _ value: String?) {
        if let value { member(name, value) }
    }

    public mutating func member(_ name: StaticString, _ value: Int64) {
        key(name)
        int(value)
    }

    public mutating func member(_ name: StaticString, _ value: Int64?) {
        if let value { member(name, value) }
    }

    public mutating func member(_ name: StaticString, _ value: UInt32) {
        key(name)
        uint(value)
    }

    public mutating func member(_ name: StaticString, _ value: Bool) {
        key(name)
        bool(value)
    }

    public mutating func member(_ name: StaticString, _ values: [String]) {
        key(name)
        strings(values)
    }

    public mutating func member<Element: JSONWritable>(_ name: StaticString, _ values: [Element]) {
        key(name)
        array(values)
    }

    public mutating func member<Element: JSONWritable>(_ name: StaticString, _ values: [Element]?) {
        if let values { member(name, values) }
    }

    public mutating func member(_ name: StaticString, _ value: (some JSONWritable)?) {
        if let value {
            key(name)
            value.write(to: &self)
        }
    }

    // MARK: bytes

    /// A comma before every value but the first of its object or array (a key's value
    /// follows its colon).
    private mutating func separate() {
        if atFirst {
            atFirst = false
        } else {
            bytes.append(UInt8(ascii: ","))
        }
    }

    /// ASCII written as it is (no array made for it on the way).
    private mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    private mutating func appendDigits(_ value: UInt64) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var value = value
            var start = 20
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value % 10)
                value /= 10
            } while value != 0
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start..<20]))
        }
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Foundation's escapes: `"` and `\`, `\b \t \n \f \r`, other control characters as
    /// `\u00xx` (lower-case hex), `/` as `\/` when `escapingSlashes`; every other byte,
    /// UTF-8 beyond ASCII included, as it is.
    private mutating func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        var runStart = 0
        for index in 0..<utf8.count {
            let byte = utf8[index]
            let escape: UInt8
            switch byte {
            case UInt8(ascii: "\""): escape = UInt8(ascii: "\"")
            case UInt8(ascii: "\\"): escape = UInt8(ascii: "\\")
            case UInt8(ascii: "/") where escapingSlashes: escape = UInt8(ascii: "/")
            case 0x08: escape = UInt8(ascii: "b")
            case 0x09: escape = UInt8(ascii: "t")
            case 0x0A: escape = UInt8(ascii: "n")
            case 0x0C: escape = UInt8(ascii: "f")
            case 0x0D: escape = UInt8(ascii: "r")
            case 0..<0x20: escape = UInt8(ascii: "u")
            default: continue
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
            runStart = index + 1
            bytes.append(UInt8(ascii: "\\"))
            bytes.append(escape)
            if escape == UInt8(ascii: "u") {
                append("00")
                bytes.append(Self.hexDigits[Int(byte >> 4)])
                bytes.append(Self.hexDigits[Int(byte & 0xF)])
            }
        }
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<utf8.count]))
    }
}

/// A value `JSONWriter` writes: its members in code-unit order of their keys, the same
/// keys its `Codable` conformance uses.
public protocol JSONWritable {
    func write(to writer: inout JSONWriter)
}
