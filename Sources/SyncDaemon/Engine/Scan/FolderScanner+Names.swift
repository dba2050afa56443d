extension FolderScanner {
    /// Whether `path` may be synced as it is (see `NFCNames`); a name that is not is
    /// renamed to its NFC form (its events bring it in) or reported.
    func acceptName(_ path: String) -> Bool {
        switch names.check(path) {
        case .nfc:
            return true
        case .renamed(let from, let to):
            problems.nameProblems[from] = nil
            logger.notice(
                "renamed to its Unicode NFC form (paths are synced in NFC; two spellings of one name would become two files elsewhere)",
                metadata: ["folder": "\(folder)", "from": "\(from)", "path": "\(to)"])
            // A scan covers what the watcher may miss.
            requestRescan(reason: "a name was renamed to its NFC form")
        case .refused(let path, let reason):
            problems.nameProblems[path] = reason
        case .vanished:
            break
        }
        return false
    }
}
