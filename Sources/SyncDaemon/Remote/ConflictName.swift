import Foundation

/// `name (conflict <device> <YYYY-MM-DD HHMMSS>).ext`, next to the original; the `attempt`th
/// name tried when the ones before it were taken (a second conflict of the path within the
/// same second): `name (conflict <device> <YYYY-MM-DD HHMMSS> 2).ext`, and so on.
enum ConflictName {
    /// How many names a conflict copy tries before it gives up (and its entry is retried).
    static let attempts = 100

    static func make(for path: String, device: String, at date: Date, attempt: Int = 1) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? .current
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        let stamp = String(
            format: "%04d-%02d-%02d %02d%02d%02d", c.year ?? 0, c.month ?? 0, c.day ?? 0, c.hour ?? 0, c.minute ?? 0,
            c.second ?? 0) + (attempt > 1 ? " \(attempt)" : "")
        let safeDevice = device.replacingOccurrences(of: "/", with: "_")
        let slash = path.lastIndex(of: "/")
        let dir = slash.map { String(path[...$0]) } ?? ""
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        // The extension is what follows the last dot, unless the name starts with it (".bashrc").
        if let dot = name.lastIndex(of: "."), dot != name.startIndex {
            let stem = String(name[..<dot]), ext = String(name[dot...])
            return "\(dir)\(stem) (conflict \(safeDevice) \(stamp))\(ext)"
        }
        return "\(dir)\(name) (conflict \(safeDevice) \(stamp))"
    }
}
