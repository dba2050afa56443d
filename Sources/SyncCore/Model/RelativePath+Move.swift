extension RelativePath {
    /// The directories `path` lies in, outermost first: `a/b/c` → `a`, `a/b`.
    public static func ancestors(of path: String) -> [String] {
        var result: [String] = []
        var end = path.startIndex
        while let slash = path[end...].firstIndex(of: "/") {
            result.append(String(path[..<slash]))
            end = path.index(after: slash)
        }
        return result
    }

    /// `path` (which is `from` or lies below it) with its `from` prefix replaced
    /// by `to`: where an entry lands when `from` moves to `to`. Cut by UTF-8
    /// bytes, so a name that begins with a combining mark keeps it.
    public static func moved(_ path: String, from: String, to: String) -> String {
        to + String(decoding: path.utf8.dropFirst(from.utf8.count), as: UTF8.self)
    }

    /// Whether `path` is `other` or lies below it. By UTF-8 bytes, like `moved`: a name
    /// that begins with a combining mark is still below its directory.
    public static func isWithin(_ path: String, _ other: String) -> Bool {
        path.utf8.starts(with: other.utf8)
            && (path.utf8.count == other.utf8.count || path.utf8.dropFirst(other.utf8.count).first == UInt8(ascii: "/"))
    }
}
