import SyncControl

/// `syncctl explain`: the verdict and the sentence for one path, from its facts alone (a
/// pure function, tested alone). The first that applies: ignored; a conflict copy; failing;
/// held; being transferred; waiting to be sent; changed on disk since last seen; in sync;
/// deleted; not seen yet; unknown.
struct PathExplainer {
    /// What the index and the disk say of the path.
    struct Facts: Sendable, Equatable {
        var path: String
        var folder: String
        var folderState: FolderState
        var ignored: IgnoreRules.Match?
        var disk: FileStat.Lookup = .missing
        /// What the daemon last saw and hashed there.
        var local: LocalRecord?
        var base: BaseRecord?
        var journal: (state: String, attempts: Int, nextAttemptAt: String)?
        var error: PathErrorStatus?
        var remoteRetryRev: Int64?
        var conflict: (remoteRev: Int64, detectedAt: String)?
        var transfer: Transfer?

        static func == (a: Facts, b: Facts) -> Bool {
            a.path == b.path && a.folderState == b.folderState && a.ignored == b.ignored && a.disk == b.disk && a.local == b.local
                && a.base == b.base && a.journal?.state == b.journal?.state && a.error == b.error
                && a.remoteRetryRev == b.remoteRetryRev && a.conflict?.remoteRev == b.conflict?.remoteRev && a.transfer == b.transfer
        }
    }

    static func explain(_ f: Facts) -> (PathVerdict, String) {
        let (verdict, sentence) = core(f)
        switch f.folderState {
        case .paused where verdict != .inSync && verdict != .ignored:
            return (verdict, sentence + " The folder is paused: nothing moves until `syncctl resume \(f.folder)`.")
        case .offline where verdict == .pendingUpload || verdict == .failing:
            return (verdict, sentence + " The server cannot be reached now; it is retried.")
        default:
            return (verdict, sentence)
        }
    }

    private static func core(_ f: Facts) -> (PathVerdict, String) {
        if let match = f.ignored {
            let above = match.matched == f.path ? "" : " (it is inside \(match.matched), which it ignores)"
            if match.source == .daemon { return (.ignored, "Not synced: it is the daemon's own state inside the folder\(above).") }
            return (.ignored, "Not synced: ignored by the rule `\(match.rule)` from \(describe(match.source))\(above).")
        }
        if let conflict = f.conflict {
            return (
                .conflictCopy,
                "A conflict copy, made \(conflict.detectedAt): it holds this device's version, which lost to revision "
                    + "\(conflict.remoteRev) from another device. Keep what you need and delete it; `syncctl conflicts` lists them all."
            )
        }
        if let error = f.error {
            // `syncctl retry` pushes again what failed here; not a remote change refused, nor a
            // delete the next start settles.
            let retryable = error.code != DaemonError.Code.invalidPath.rawValue && error.code != DaemonError.Code.interrupted.rawValue
            let retry = error.retryAt.map { "retried at \($0)" }
                ?? "not retried by itself: it needs you" + (retryable ? " (then `syncctl retry`)" : "")
            let code = error.code.map { " [\($0)]" } ?? ""
            return (.failing, "Not synced: \(error.message)\(code); \(retry).")
        }
        if let journal = f.journal, journal.state == "held" {
            return (.held, "Its delete is held with a delete wave: `syncctl approve-deletes \(f.folder)` lets it go ahead.")
        }
        if let transfer = f.transfer {
            let verdict: PathVerdict = transfer.direction == "download" ? .downloading : .pendingUpload
            let verb = transfer.direction == "download" ? "Downloading" : "Uploading"
            return (verdict, "\(verb): \(transfer.bytesDone) of \(transfer.bytesTotal) bytes.")
        }
        if let journal = f.journal {
            let what = journal.state == "running" ? "Being sent to the server" : "A local change waiting to be sent"
            let tries = journal.attempts > 0 ? " (\(journal.attempts) attempts so far, next at \(journal.nextAttemptAt))" : ""
            return (.pendingUpload, "\(what)\(tries).")
        }
        if let rev = f.remoteRetryRev {
            return (.failing, "Revision \(rev) from the server could not be applied yet; it is retried.")
        }
        switch f.disk {
        case .unsupported:
            return (.notSeen, "Not synced: it is a FIFO, socket or device, which are not synced.")
        case .failed(let errno):
            return (.failing, "Cannot be looked at: \(SystemCallError(call: "lstat", errno: errno)).")
        case .found(let stat):
            guard let local = f.local, local.matches(stat) else {
                if f.base == nil && f.local == nil {
                    return (.notSeen, "Not seen yet: a new \(stat.kind.rawValue) the watcher or the next scan will pick up.")
                }
                return (.pendingUpload, "Changed on disk since the daemon last looked: it will be sent once it settles.")
            }
            if let base = f.base, !base.deleted, base.contentHash == local.contentHash, base.kind == local.kind {
                return (.inSync, "In sync at revision \(base.rev).")
            }
            return (.pendingUpload, "Differs from what the server has: it will be sent.")
        case .missing:
            if let base = f.base {
                if base.deleted { return (.inSync, "Deleted, and the delete is synced (revision \(base.rev)).") }
                return (.pendingUpload, "Deleted here: the delete will be sent once the daemon picks it up.")
            }
            return (.unknown, "Neither here nor on the server as far as this device knows.")
        }
    }

    static func describe(_ source: IgnoreRules.Source) -> String {
        switch source {
        case .builtIn: "the built-in rules (editor temp files)"
        case .config: "the folder's `ignore` in syncd's config"
        case .file(let line): "\(IgnoreRules.fileName) line \(line)"
        case .daemon: "the daemon"
        }
    }

    /// The `ignore_source` key of `--json`.
    static func key(_ source: IgnoreRules.Source) -> String {
        switch source {
        case .builtIn: "built-in"
        case .config: "config"
        case .file(let line): "\(IgnoreRules.fileName):\(line)"
        case .daemon: "daemon"
        }
    }
}
