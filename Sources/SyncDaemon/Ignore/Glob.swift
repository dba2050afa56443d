/// Shell-style matching of gitignore patterns over UTF-8 bytes: `*` and `?`
/// stop at `/`, `**` crosses it, `[...]` is a class (`!` or `^` negates).
enum Glob {
    static func match(_ pattern: [UInt8], _ text: [UInt8]) -> Bool {
        match(pattern[...], text[...])
    }

    private static let star = UInt8(ascii: "*"), question = UInt8(ascii: "?"), slash = UInt8(ascii: "/")
    private static let open = UInt8(ascii: "["), close = UInt8(ascii: "]"), backslash = UInt8(ascii: "\\")

    private static func match(_ p: ArraySlice<UInt8>, _ t: ArraySlice<UInt8>) -> Bool {
        var p = p, t = t
        while let c = p.first {
            switch c {
            case star:
                if p.dropFirst().first == star {
                    // `**`: any run of characters, `/` included. `**/` may also match nothing.
                    var rest = p.dropFirst(2)
                    if rest.first == slash {
                        rest = rest.dropFirst()
                        if match(rest, t) { return true }
                    }
                    var i = t.startIndex
                    while true {
                        if match(rest, t[i...]) { return true }
                        if i == t.endIndex { return false }
                        i += 1
                    }
                }
                let rest = p.dropFirst()
                var i = t.startIndex
                while true {
                    if match(rest, t[i...]) { return true }
                    if i == t.endIndex || t[i] == slash { return false }
                    i += 1
                }
            case question:
                guard let x = t.first, x != slash else { return false }
                p = p.dropFirst()
                t = t.dropFirst()
            case open:
                guard let x = t.first, x != slash, let (matched, rest) = matchClass(p, x) else {
                    if t.first == c, p.count == 1 { return t.count == 1 }
                    return false
                }
                if !matched { return false }
                p = rest
                t = t.dropFirst()
            default:
                var literal = c
                if c == backslash, let escaped = p.dropFirst().first {
                    literal = escaped
                    p = p.dropFirst()
                }
                guard t.first == literal else { return false }
                p = p.dropFirst()
                t = t.dropFirst()
            }
        }
        return t.isEmpty
    }

    /// Matches `x` against the class starting at `p` (`[`). Nil if the class is not closed.
    private static func matchClass(_ p: ArraySlice<UInt8>, _ x: UInt8) -> (Bool, ArraySlice<UInt8>)? {
        var i = p.index(after: p.startIndex)
        var negate = false
        if i < p.endIndex, p[i] == UInt8(ascii: "!") || p[i] == UInt8(ascii: "^") {
            negate = true
            i += 1
        }
        var matched = false
        var first = true
        while i < p.endIndex {
            let c = p[i]
            if c == close && !first { return (matched != negate, p[(i + 1)...]) }
            first = false
            if i + 2 < p.endIndex, p[i + 1] == UInt8(ascii: "-"), p[i + 2] != close {
                if c <= x && x <= p[i + 2] { matched = true }
                i += 3
            } else {
                if c == x { matched = true }
                i += 1
            }
        }
        return nil
    }
}
