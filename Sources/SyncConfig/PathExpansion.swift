import Foundation

/// Why a path could not be expanded.
public enum PathExpansionError: Error, Equatable, Sendable, CustomStringConvertible {
    case empty
    case homeNotSet
    case userHomeNotSupported(String)
    case undefinedVariable(String)
    case malformedVariable(String)

    public var description: String {
        switch self {
        case .empty: "path is empty"
        case .homeNotSet: "\"~\" needs HOME, which is not set"
        case .userHomeNotSupported(let prefix): "\"\(prefix)\" is not supported; only \"~\" and \"~/...\" (your own HOME)"
        case .undefinedVariable(let name): "environment variable \(name) is not set"
        case .malformedVariable(let text): "malformed variable reference \"\(text)\"; write $NAME or ${NAME}, and $$ for a literal $"
        }
    }
}

/// Expands `~`, `$VAR` and `${VAR}` in configured paths and makes them absolute.
public enum PathExpansion {
    /// Expands `path`:
    /// - a leading `~` or `~/` becomes `HOME` from `environment`;
    /// - `$NAME` and `${NAME}` become the variable's value (an undefined variable is an error;
    ///   `$$` is a literal `$`);
    /// - a relative result is resolved against `relativeTo` (default: the current directory);
    /// - the result is normalized lexically (`.`, `..`, repeated and trailing `/` removed).
    public static func expand(
        _ path: String, environment: [String: String], relativeTo base: String? = nil
    ) throws(PathExpansionError) -> String {
        guard !path.isEmpty else { throw .empty }
        var text = Substring(path)
        var expanded = ""
        if text.first == "~" {
            let user = text.prefix { $0 != "/" }
            guard user == "~" else { throw .userHomeNotSupported(String(user)) }
            guard let home = environment["HOME"], !home.isEmpty else { throw .homeNotSet }
            expanded = home
            text = text.dropFirst()
        }
        expanded += try substituteVariables(text, environment: environment)
        guard !expanded.isEmpty else { throw .empty }
        if !expanded.hasPrefix("/") {
            let cwd = FileManager.default.currentDirectoryPath
            var root = base ?? cwd
            if !root.hasPrefix("/") { root = cwd + "/" + root }
            expanded = root + "/" + expanded
        }
        return normalize(expanded)
    }

    static func substituteVariables(
        _ text: Substring, environment: [String: String]
    ) throws(PathExpansionError) -> String {
        var out = ""
        var rest = text
        while let dollar = rest.firstIndex(of: "$") {
            out += rest[..<dollar]
            rest = rest[rest.index(after: dollar)...]
            let name: Substring
            if rest.first == "$" {
                out += "$"
                rest = rest.dropFirst()
                continue
            } else if rest.first == "{" {
                guard let close = rest.firstIndex(of: "}") else { throw .malformedVariable("$" + rest) }
                name = rest[rest.index(after: rest.startIndex)..<close]
                guard isName(name) else { throw .malformedVariable("$" + rest[...close]) }
                rest = rest[rest.index(after: close)...]
            } else {
                name = rest.prefix { $0 == "_" || ($0.isASCII && ($0.isLetter || $0.isNumber)) }
                guard isName(name) else { throw .malformedVariable("$" + rest.prefix(1)) }
                rest = rest.dropFirst(name.count)
            }
            guard let value = environment[String(name)] else { throw .undefinedVariable(String(name)) }
            out += value
        }
        return out + rest
    }

    static func isName(_ name: Substring) -> Bool {
        guard let first = name.first, first == "_" || (first.isASCII && first.isLetter) else { return false }
        return name.allSatisfy { $0 == "_" || ($0.isASCII && ($0.isLetter || $0.isNumber)) }
    }

    /// Lexical normalization of an absolute path: no `.`, no `..`, no empty components.
    public static func normalize(_ absolute: String) -> String {
        var parts: [Substring] = []
        for component in absolute.split(separator: "/", omittingEmptySubsequences: true) {
            switch component {
            case ".": continue
            case "..": _ = parts.popLast()
            default: parts.append(component)
            }
        }
        return "/" + parts.joined(separator: "/")
    }

    /// The path with every symlink in it resolved by the kernel (`realpath`), nil when it is
    /// not there.
    public static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// True when `inner` is `outer` or lies below it (both normalized absolute paths).
    static func isSameOrInside(_ inner: String, _ outer: String) -> Bool {
        inner == outer || outer == "/" || inner.hasPrefix(outer + "/")
    }
}
