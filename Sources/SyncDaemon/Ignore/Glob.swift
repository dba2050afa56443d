/// Shell-style matching of gitignore patterns over UTF-8 bytes: `*` and `?`
/// stop at `/`, `**` crosses it, `[...]` is a class (`!` or `^` negates).
enum Glob {
    static func match(_ pattern: [UInt8], _ text: [UInt8]) -> Bool {
        pattern.withUnsafeBufferPointer { p in text.withUnsafeBufferPointer { t in match(p, t) } }
    }

    /// Over borrowed bytes: a scan asks this for every name it walks (and every rule),
    /// so no array slices, no reference counting, no allocation.
    static func match(_ pattern: UnsafeBufferPointer<UInt8>, _ text: UnsafeBufferPointer<UInt8>) -> Bool {
        match(pattern, 0, text, 0)
    }

    private static let star = UInt8(ascii: "*"), question = UInt8(ascii: "?"), slash = UInt8(ascii: "/")
    private static let open = UInt8(ascii: "["), close = UInt8(ascii: "]"), backslash = UInt8(ascii: "\\")

    /// Whether `p[pi...]` matches `t[ti...]`.
    private static func match(_ p: UnsafeBufferPointer<UInt8>, _ pi: Int, _ t: UnsafeBufferPointer<UInt8>, _ ti: Int) -> Bool {
        var pi = pi, ti = ti
        while pi < p.count {
            let c = p[pi]
            switch c {
            case star:
                if pi + 1 < p.count, p[pi + 1] == star {
                    // `**`: any run of characters, `/` included. `**/` may also match nothing.
                    var rest = pi + 2
                    if rest < p.count, p[rest] == slash {
                        rest += 1
                        if match(p, rest, t, ti) { return true }
                    }
                    var i = ti
                    while true {
                        if match(p, rest, t, i) { return true }
                        if i == t.count { return false }
                        i += 1
                    }
                }
                let rest = pi + 1
                var i = ti
                while true {
                    if match(p, rest, t, i) { return true }
                    if i == t.count || t[i] == slash { return false }
                    i += 1
                }
            case question:
                guard ti < t.count, t[ti] != slash else { return false }
                pi += 1
                ti += 1
            case open:
                guard ti < t.count, t[ti] != slash, let (matched, rest) = matchClass(p, pi, t[ti]) else {
                    if ti < t.count, t[ti] == c, pi == p.count - 1 { return ti == t.count - 1 }
                    return false
                }
                if !matched { return false }
                pi = rest
                ti += 1
            default:
                var literal = c
                if c == backslash, pi + 1 < p.count {
                    literal = p[pi + 1]
                    pi += 1
                }
                guard ti < t.count, t[ti] == literal else { return false }
                pi += 1
                ti += 1
            }
        }
        return ti == t.count
    }

    /// Matches `x` against the class starting at `p[start]` (`[`). Returns whether it
    /// matched and where the pattern goes on; nil if the class is not closed.
    private static func matchClass(_ p: UnsafeBufferPointer<UInt8>, _ start: Int, _ x: UInt8) -> (Bool, Int)? {
        var i = start + 1
        var negate = false
        if i < p.count, p[i] == UInt8(ascii: "!") || p[i] == UInt8(ascii: "^") {
            negate = true
            i += 1
        }
        var matched = false
        var first = true
        while i < p.count {
            let c = p[i]
            if c == close && !first { return (matched != negate, i + 1) }
            first = false
            if i + 2 < p.count, p[i + 1] == UInt8(ascii: "-"), p[i + 2] != close {
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
