import Foundation

/// A number of bytes for a person: `512 B`, `1.5 KiB`, `3.0 MiB`, `2.1 GiB`, `1.0 TiB`.
public enum ByteCount {
    public static func text(_ bytes: Int64) -> String {
        let units = ["KiB", "MiB", "GiB", "TiB"]
        guard bytes >= 1024 else { return "\(bytes) B" }
        var value = Double(bytes) / 1024
        var unit = 0
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return String(format: "%.1f %@", value, units[unit])
    }
}
