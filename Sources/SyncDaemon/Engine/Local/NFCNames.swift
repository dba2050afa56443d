import Foundation
import Glibc

/// Paths are compared and synced in Unicode NFC, the server's form. A name on disk in
/// another form (NFD, as macOS tools write it) is the same text, so it is renamed to its
/// NFC form once: every device then has one name for it, and a download never creates its
/// twin. When the NFC name is taken by a different file, the name cannot be synced as it is
/// (the engine reports it in the status).
struct NFCNames: Sendable {
    let folder: FolderRoot

    enum Check: Equatable, Sendable {
        /// NFC: may be synced as it is.
        case nfc
        /// `from` (the path or one of its directories) was renamed to `to`; its events (a
        /// move) bring the new name in.
        case renamed(from: String, to: String)
        /// `path` (the path or one of its directories) cannot be synced as it is, and why.
        case refused(path: String, reason: String)
        /// It went away before it could be renamed.
        case vanished
    }

    /// Whether `path` is in NFC (no I/O).
    static func isNFC(_ path: String) -> Bool {
        if path.utf8.allSatisfy({ $0 < 0x80 }) { return true }  // ASCII is NFC: the common case, no Foundation call
        return path.utf8.elementsEqual(path.precomposedStringWithCanonicalMapping.utf8)
    }

    func check(_ path: String) -> Check {
        if Self.isNFC(path) { return .nfc }
        var parent = ""
        for component in path.split(separator: "/").map(String.init) {
            let current = parent.isEmpty ? component : parent + "/" + component
            let nfc = component.precomposedStringWithCanonicalMapping
            if !component.utf8.elementsEqual(nfc.utf8) {
                return rename(current, to: parent.isEmpty ? nfc : parent + "/" + nfc)
            }
            parent = current
        }
        return .nfc
    }

    private func rename(_ current: String, to target: String) -> Check {
        if case .found = folder.lstat(target) {
            return .refused(
                path: current,
                reason: "\(current): another file already has this name in Unicode NFC (\(target)); rename one of them to sync it")
        }
        let renamed: Int32
        do {
            renamed = try folder.parent(of: current).renameNoReplace(to: folder.parent(of: target))
        } catch {
            return .refused(path: current, reason: "\(current): cannot rename to its NFC form: \(error)")
        }
        guard renamed == 0 else {
            if errno == ENOENT { return .vanished }
            return .refused(path: current, reason: "\(current): cannot rename to its NFC form: \(String(cString: strerror(errno)))")
        }
        return .renamed(from: current, to: target)
    }
}
