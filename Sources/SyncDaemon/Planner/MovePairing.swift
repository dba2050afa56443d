import SyncCore

/// A move on another device reaches us as a tombstone at the old path and a
/// new entry with the same content at the new one (in the same feed page).
/// Pairing them lets the applier rename the local file instead of copying
/// its bytes and moving the original to the trash. Pure: no I/O.
public enum MovePairing {
    /// New path → old path, for live file entries whose content hash equals that
    /// of a file that a tombstone in the same page removes (`removedHash` gives
    /// the content the device knows at a tombstone's path). Each old path pairs
    /// at most once; the pairing is deterministic (sorted paths).
    ///
    /// A server-side move names the old path itself (`movedFrom`): such entries
    /// pair with it whether or not its tombstone is in this page.
    public static func pairs(live: [WireEntry], tombstones: [WireEntry], removedHash: (String) -> String?) -> [String: String] {
        var result: [String: String] = [:]
        for entry in live where entry.kind == .file {
            if let old = entry.movedFrom { result[entry.path] = old }
        }
        let claimed = Set(result.values)
        var candidates: [String: [String]] = [:]
        for tombstone in tombstones.sorted(by: { $0.path < $1.path }) where tombstone.kind == .file && !claimed.contains(tombstone.path) {
            guard let hash = removedHash(tombstone.path), !hash.isEmpty else { continue }
            candidates[hash, default: []].append(tombstone.path)
        }
        let removed = Set(tombstones.map(\.path))
        for entry in live.sorted(by: { $0.path < $1.path })
        where entry.kind == .file && entry.movedFrom == nil && !removed.contains(entry.path) {
            guard var olds = candidates[entry.contentHash], !olds.isEmpty else { continue }
            result[entry.path] = olds.removeFirst()
            candidates[entry.contentHash] = olds
        }
        return result
    }
}
