import Foundation
import Glibc

extension FolderEngine {
    /// Paths are compared and synced in Unicode NFC, the server's form. A name
    /// on disk in another form (NFD, as macOS tools write it) is the same text,
    /// so it is renamed to its NFC form once: every device then has one name
    /// for it, and a download never creates its twin. When the NFC name is
    /// taken by a different file, the path is reported in the status and not
    /// synced. Returns true when `path` is NFC and may be synced as it is.
    func acceptName(_ path: String) -> Bool {
        if path.utf8.allSatisfy({ $0 < 0x80 }) { return true }  // ASCII is NFC: the common case, no Foundation call
        if path.utf8.elementsEqual(path.precomposedStringWithCanonicalMapping.utf8) { return true }
        var parent = ""
        for component in path.split(separator: "/").map(String.init) {
            let current = parent.isEmpty ? component : parent + "/" + component
            let nfc = component.precomposedStringWithCanonicalMapping
            if !component.utf8.elementsEqual(nfc.utf8) {
                renameToNFC(current, target: parent.isEmpty ? nfc : parent + "/" + nfc)
                return false
            }
            parent = current
        }
        return true
    }

    private func renameToNFC(_ current: String, target: String) {
        let folder = FolderRoot(root)
        if case .found = folder.lstat(target) {
            nameProblems[current] = "\(current): another file already has this name in Unicode NFC (\(target)); "
                + "rename one of them to sync it"
            return
        }
        let renamed: Int32
        do {
            renamed = try folder.parent(of: current).renameNoReplace(to: folder.parent(of: target))
        } catch {
            nameProblems[current] = "\(current): cannot rename to its NFC form: \(error)"
            return
        }
        guard renamed == 0 else {
            if errno != ENOENT { nameProblems[current] = "\(current): cannot rename to its NFC form: \(String(cString: strerror(errno)))" }
            return
        }
        nameProblems[current] = nil
        logger.notice("renamed to its Unicode NFC form (paths are synced in NFC; two spellings of one name would become two files elsewhere)", metadata: ["folder": "\(id)", "from": "\(current)", "path": "\(target)"])
        // Its events (a move) bring the new name in; a scan covers what the watcher may miss.
        requestRescan(reason: "a name was renamed to its NFC form")
    }
}
