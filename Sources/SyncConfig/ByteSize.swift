/// A number of bytes, written in config files like `"512"`, `"4KiB"`, `"10MiB"`, `"10MB"`.
///
/// Units are case-sensitive: `B`; decimal `KB`, `MB`, `GB`, `TB` (powers of 1000);
/// binary `KiB`, `MiB`, `GiB`, `TiB` (powers of 1024). A fraction is allowed with a
/// unit larger than a byte (`"1.5MiB"`) and is truncated to whole bytes.
public struct ByteSize: Sendable, Equatable, Hashable, CustomStringConvertible {
    public var bytes: Int64

    public init(bytes: Int64) {
        self.bytes = bytes
    }

    public static let zero = ByteSize(bytes: 0)

    static let units: [String: Int64] = [
        "": 1, "B": 1,
        "KB": 1_000, "MB": 1_000_000, "GB": 1_000_000_000, "TB": 1_000_000_000_000,
        "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40,
    ]

    /// Parses a size such as `"0"`, `"512"`, `"4KiB"`, `"1.5MiB"`. Nil if malformed,
    /// negative, with an unknown unit, or larger than `Int64.max` bytes.
    public static func parse(_ s: String) -> ByteSize? {
        guard let (whole, fraction, unitText) = ScaledNumber.split(Substring(s)),
              let unit = units[String(unitText)]
        else { return nil }
        if unit == 1, !fraction.isEmpty { return nil }  // "1.5B" is not a size
        guard let bytes = ScaledNumber.value(whole: whole, fraction: fraction, unit: unit) else { return nil }
        return ByteSize(bytes: bytes)
    }

    /// Parses a rate such as `"10MiB/s"`; the `/s` is optional (`"10MiB"`, `"0"`).
    /// The result is in bytes per second.
    public static func parseRate(_ s: String) -> ByteSize? {
        parse(s.hasSuffix("/s") ? String(s.dropLast(2)) : s)
    }

    /// The size in the largest binary unit that divides it exactly, e.g. `"10MiB"`, `"1500B"`.
    public var description: String {
        for (name, unit) in [("TiB", Int64(1) << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)]
        where bytes != 0 && bytes % unit == 0 {
            return "\(bytes / unit)\(name)"
        }
        return "\(bytes)B"
    }
}
