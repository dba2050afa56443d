/// Rules for operator-chosen names.
enum Identifiers {
    /// 1–64 characters of `[A-Za-z0-9._-]`, not only dots (folder ids are URL path segments).
    static func validateFolderID(_ id: String) throws {
        let allowed = id.utf8.allSatisfy { c in
            (65...90).contains(c) || (97...122).contains(c) || (48...57).contains(c) || c == 46 || c == 95 || c == 45
        }
        guard (1...64).contains(id.utf8.count), allowed, !id.utf8.allSatisfy({ $0 == 46 }) else {
            throw APIError.invalidArgument(
                "invalid folder id \(id.debugDescription): use 1-64 characters of A-Z a-z 0-9 . _ - (not only dots)")
        }
    }

    /// 1–128 characters, no control characters.
    static func validateDeviceName(_ name: String) throws {
        guard (1...128).contains(name.count), !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw APIError.invalidArgument("invalid device name \(name.debugDescription): use 1-128 printable characters")
        }
    }
}
