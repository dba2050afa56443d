/// Durations as written in config files: `"200ms"`, `"45s"`, `"1h30m"`, `"30d"`, `"0"`.
///
/// A duration is one or more `<number><unit>` parts, added up; a number may have a
/// decimal fraction (`"1.5h"`). Units: `ns`, `us`, `µs`, `ms`, `s`, `m`, `h`, `d`
/// (a day is 24 hours). A bare `"0"` means zero. No signs, no spaces.
public enum ConfigDurations {
    static let units: [String: Int64] = [
        "ns": 1, "us": 1_000, "µs": 1_000, "ms": 1_000_000,
        "s": 1_000_000_000, "m": 60_000_000_000, "h": 3_600_000_000_000, "d": 86_400_000_000_000,
    ]

    /// The unit names, for error messages.
    static let unitList = "ns, us, ms, s, m, h, d"

    /// Parses a duration; nil if empty, negative, malformed, with an unknown unit,
    /// or too long to represent (about 292 years).
    public static func parse(_ s: String) -> Duration? {
        if s == "0" { return .zero }
        var rest = Substring(s)
        guard !rest.isEmpty else { return nil }
        var total: Int64 = 0
        while !rest.isEmpty {
            guard let (whole, fraction, afterNumber) = ScaledNumber.split(rest) else { return nil }
            let unitText = afterNumber.prefix { !$0.isASCIIDigit && $0 != "." }
            guard let unit = units[String(unitText)],
                  let part = ScaledNumber.value(whole: whole, fraction: fraction, unit: unit)
            else { return nil }
            let (sum, overflow) = total.addingReportingOverflow(part)
            guard !overflow else { return nil }
            total = sum
            rest = afterNumber.dropFirst(unitText.count)
        }
        return .nanoseconds(total)
    }

    /// A compact spelling that `parse` reads back, e.g. `"1h30m"`, `"100ms"`, `"0"`.
    public static func format(_ d: Duration) -> String {
        let (seconds, attoseconds) = d.components
        guard seconds >= 0, attoseconds >= 0 else { return "\(d)" }
        var ns = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !ns.overflow else { return "\(seconds)s" }
        ns = ns.partialValue.addingReportingOverflow(attoseconds / 1_000_000_000)
        guard !ns.overflow else { return "\(seconds)s" }
        var rest = ns.partialValue
        if rest == 0 { return "0" }
        var out = ""
        for (name, unit) in [("d", Int64(86_400_000_000_000)), ("h", 3_600_000_000_000), ("m", 60_000_000_000),
                             ("s", 1_000_000_000), ("ms", 1_000_000), ("us", 1_000), ("ns", 1)]
        where rest >= unit {
            out += "\(rest / unit)\(name)"
            rest %= unit
        }
        return out
    }
}
