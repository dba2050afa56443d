import Foundation

/// The per-folder trash under the state directory: `<root>/<stamp>/<path>`,
/// one stamp (UTC time) per applied batch of remote deletes. Entries older
/// than the retention period are removed.
struct Trash: Sendable {
    let root: String

    /// `yyyyMMdd-HHmmss-SSS`, UTC.
    static func stamp(_ date: Date = Date()) -> String {
        formatter(withMilliseconds: true).string(from: date)
    }

    /// When a stamp directory was made (stamps without milliseconds, from older
    /// versions, too); nil for names that are not stamps.
    static func date(ofStamp name: String) -> Date? {
        formatter(withMilliseconds: true).date(from: name) ?? formatter(withMilliseconds: false).date(from: name)
    }

    private static func formatter(withMilliseconds: Bool) -> DateFormatter {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.dateFormat = withMilliseconds ? "yyyyMMdd-HHmmss-SSS" : "yyyyMMdd-HHmmss"
        f.timeZone = TimeZone(identifier: "UTC")
        return f
    }

    /// Removes every stamp directory older than `retention`; returns how many.
    /// Names that are not stamps are left alone.
    func expire(retention: Duration, now: Date = Date()) throws -> Int {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: root)
        } catch CocoaError.fileReadNoSuchFile {
            return 0
        }
        let cutoff = now.addingTimeInterval(-Double(retention.components.seconds))
        var removed = 0
        for name in names {
            guard let made = Self.date(ofStamp: name), made < cutoff else { continue }
            try FileManager.default.removeItem(atPath: root + "/" + name)
            removed += 1
        }
        return removed
    }
}
