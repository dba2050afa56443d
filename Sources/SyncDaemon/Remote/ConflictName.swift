import Foundation

/// `name (conflict <device> <YYYY-MM-DD HHMMSS>).ext`, next to the original.
enum ConflictName {
    static func make(for path: String, device: String, at date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? .current
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        let stamp = String(
            format: "%04d-%02d-%02d %02d%02d%02d", c.year ?? 0, c.month ?? 0, c.day ?? 0, c.hour ?? 0, c.minute ?? 0,
            c.second ?? 0)
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
