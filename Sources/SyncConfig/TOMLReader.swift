import Foundation
import TOMLKit

/// A typed view of one TOML table that knows its dotted key path, rejects unknown keys
/// (suggesting the closest known one) and turns every type mismatch into a `ConfigError`.
struct TOMLReader {
    let file: String
    /// Dotted path of this table: "" for the root, "daemon", "folder[0]".
    let path: String
    let table: TOMLTable

    /// Wraps `table` and fails on the first key not in `known` (keys are checked in sorted order).
    init(file: String, path: String, table: TOMLTable, known: [String]) throws(ConfigError) {
        self.file = file
        self.path = path
        self.table = table
        for key in table.keys.sorted() where !known.contains(key) {
            throw error(key, unknownKeyReason(key, known: known))
        }
    }

    /// Parses a whole document; syntax errors carry TOMLKit's line and column.
    static func document(_ text: String, file: String, known: [String]) throws(ConfigError) -> TOMLReader {
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let parseError as TOMLParseError {
            let at = parseError.source.begin
            throw ConfigError(file: file, key: "",
                              reason: "TOML syntax error at line \(at.line), column \(at.column): \(parseError.description)")
        } catch {
            throw ConfigError(file: file, key: "", reason: "TOML syntax error: \(error)")
        }
        return try TOMLReader(file: file, path: "", table: table, known: known)
    }

    /// Reads a config file as UTF-8 text, describing why when it cannot.
    static func readFile(_ file: String) throws(ConfigError) -> String {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory) else {
            throw ConfigError(file: file, key: "", reason: "cannot read config file: no such file")
        }
        guard !isDirectory.boolValue else {
            throw ConfigError(file: file, key: "", reason: "cannot read config file: it is a directory")
        }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: file))
        } catch let error as CocoaError where error.code == .fileReadNoPermission {
            throw ConfigError(file: file, key: "", reason: "cannot read config file: permission denied")
        } catch {
            throw ConfigError(file: file, key: "", reason: "cannot read config file: \(error.localizedDescription)")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ConfigError(file: file, key: "", reason: "cannot read config file: it is not valid UTF-8")
        }
        return text
    }

    // MARK: Errors

    func keyPath(_ key: String) -> String {
        let bare = !key.isEmpty && key.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }
        let name = bare ? key : "\"\(key)\""
        return path.isEmpty ? name : "\(path).\(name)"
    }

    func error(_ key: String, _ reason: String) -> ConfigError {
        ConfigError(file: file, key: keyPath(key), reason: reason)
    }

    private func unknownKeyReason(_ key: String, known: [String]) -> String {
        let place: String
        if path.isEmpty {
            place = "at the top level"
        } else if let bracket = path.lastIndex(of: "["), path.hasSuffix("]") {
            place = "in \(path) ([[\(path[..<bracket])]])"
        } else {
            place = "in [\(path)]"
        }
        var reason = "unknown key \(place)"
        if let near = Suggest.closest(to: key, in: known) {
            reason += "; did you mean \"\(near)\"?"
        } else {
            reason += "; known keys: \(known.joined(separator: ", "))"
        }
        return reason
    }

    static func typeName(_ type: TOMLType) -> String {
        switch type {
        case .table: "table"
        case .array: "array"
        case .string: "string"
        case .int: "integer"
        case .double: "floating-point number"
        case .bool: "boolean"
        case .date: "date"
        case .time: "time"
        case .dateTime: "date-time"
        }
    }

    func wrongType(_ key: String, expected: String, got value: TOMLValueConvertible) -> ConfigError {
        error(key, "expected \(expected), got \(Self.typeName(value.type))")
    }

    // MARK: Typed access (nil when the key is absent)

    func has(_ key: String) -> Bool { table[key] != nil }

    func string(_ key: String, expected: String = "a string") throws(ConfigError) -> String? {
        guard let value = table[key] else { return nil }
        guard let string = value.string else { throw wrongType(key, expected: expected, got: value) }
        return string
    }

    func bool(_ key: String) throws(ConfigError) -> Bool? {
        guard let value = table[key] else { return nil }
        guard let bool = value.bool else { throw wrongType(key, expected: "true or false", got: value) }
        return bool
    }

    func int(_ key: String, in range: ClosedRange<Int>) throws(ConfigError) -> Int? {
        guard let value = table[key] else { return nil }
        guard let int = value.int else { throw wrongType(key, expected: "an integer", got: value) }
        guard range.contains(int) else {
            throw error(key, "out of range: expected an integer from \(range.lowerBound) to \(range.upperBound), got \(int)")
        }
        return int
    }

    /// A floating-point number; an integer is accepted too.
    func number(_ key: String) throws(ConfigError) -> Double? {
        guard let value = table[key] else { return nil }
        if let double = value.double { return double }
        if let int = value.int { return Double(int) }
        throw wrongType(key, expected: "a number", got: value)
    }

    func stringArray(_ key: String) throws(ConfigError) -> [String]? {
        guard let value = table[key] else { return nil }
        guard let array = value.array else { throw wrongType(key, expected: "an array of strings", got: value) }
        var strings: [String] = []
        for (index, element) in array.enumerated() {
            guard let string = element.string else {
                throw error(key, "expected an array of strings, got \(Self.typeName(element.type)) at index \(index)")
            }
            strings.append(string)
        }
        return strings
    }

    /// A duration string such as "100ms" or "1h30m".
    func duration(_ key: String) throws(ConfigError) -> Duration? {
        let example = "a duration string such as \"100ms\", \"45s\" or \"1h30m\""
        guard let text = try string(key, expected: example) else { return nil }
        guard let duration = ConfigDurations.parse(text) else {
            throw error(key, "invalid duration \"\(text)\": expected a number followed by a unit (\(ConfigDurations.unitList)), e.g. \"100ms\", \"1h30m\", or \"0\"")
        }
        return duration
    }

    func subtable(_ key: String, known: [String]) throws(ConfigError) -> TOMLReader? {
        guard let value = table[key] else { return nil }
        guard let sub = value.table else { throw wrongType(key, expected: "a table ([\(key)])", got: value) }
        return try TOMLReader(file: file, path: keyPath(key), table: sub, known: known)
    }

    /// An optional table; when absent it reads as empty, so every key takes its default.
    func section(_ key: String, known: [String]) throws(ConfigError) -> TOMLReader {
        if let reader = try subtable(key, known: known) { return reader }
        return try TOMLReader(file: file, path: keyPath(key), table: TOMLTable(), known: known)
    }

    /// An array of tables (`[[key]]`); each element's path is `key[index]`, counting from 0.
    func tableArray(_ key: String, known: [String]) throws(ConfigError) -> [TOMLReader]? {
        guard let value = table[key] else { return nil }
        guard let array = value.array else {
            throw wrongType(key, expected: "an array of tables ([[\(key)]])", got: value)
        }
        var readers: [TOMLReader] = []
        for (index, element) in array.enumerated() {
            let elementPath = "\(keyPath(key))[\(index)]"
            guard let sub = element.table else {
                throw ConfigError(file: file, key: elementPath,
                                  reason: "expected a table ([[\(key)]]), got \(Self.typeName(element.type))")
            }
            readers.append(try TOMLReader(file: file, path: elementPath, table: sub, known: known))
        }
        return readers
    }

    /// Throws "missing required key" when `value` is nil.
    func required<T>(_ value: T?, _ key: String, _ hint: String) throws(ConfigError) -> T {
        guard let value else { throw error(key, "missing required key; expected \(hint)") }
        return value
    }

    /// Expands `~` and `$VARS` in a path value, relative paths against `base`.
    func expandPath(_ key: String, _ raw: String, environment: [String: String], base: String) throws(ConfigError) -> String {
        do {
            return try PathExpansion.expand(raw, environment: environment, relativeTo: base)
        } catch {
            throw self.error(key, "cannot expand path \"\(raw)\": \(error)")
        }
    }
}

extension TOMLReader {
    /// The absolute directory that holds `file`; relative paths in the file resolve against it.
    static func directory(of file: String) -> String {
        let absolute = file.hasPrefix("/") ? file : FileManager.default.currentDirectoryPath + "/" + file
        return PathExpansion.normalize(absolute + "/..")
    }
}
