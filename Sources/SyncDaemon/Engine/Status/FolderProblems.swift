import Inotify

/// What keeps a folder, or some of its paths, from syncing, as the engine found it. Shown in
/// `syncctl status` (see `FolderStatusBuilder`); the engine sets and clears each one.
struct FolderProblems: Sendable, Equatable {
    /// A problem the last scan found (a missing or suddenly empty root, a failed scan).
    var rootProblem: String?
    /// The root is gone or replaced (see `FolderScanner.checkRoot`).
    var rootGone: RootTrouble?
    /// Watching (part of) the tree failed; periodic scans cover it and watching is retried.
    var watchError: WatchError?
    /// Directories in the last full scan, root included: the watches the folder needs.
    var directoriesSeen = 0
    /// The folder's `.syncignore` could not be read (the rules in force are kept).
    var ignoreFileProblem: String?
    /// Names that cannot be synced as they are (see `NFCNames`), with why.
    var nameProblems: [String: String] = [:]
    /// Names on disk that are not valid UTF-8 (escaped), with what to do.
    var undecodableNames: [String: String] = [:]
    /// Local changes could not be journaled (the state dir's disk full?): a full scan is
    /// retried until one succeeds.
    var journalProblem: String?

    /// What keeps the whole folder from syncing (root gone, or a failed scan).
    var rootTrouble: String? { rootGone?.message ?? rootProblem }

    /// Names that are not UTF-8 are not synced, and said so (per name). `below`: a subtree
    /// scan replaces only what it covers. Returns the names not reported before.
    mutating func reportUndecodable(_ names: [String], below: String? = nil) -> [String] {
        let scope = below.map { $0 + "/" }
        for key in undecodableNames.keys where scope.map(key.hasPrefix) ?? true { undecodableNames[key] = nil }
        var new: [String] = []
        for name in names {
            if undecodableNames[name] == nil { new.append(name) }
            undecodableNames[name] = "\(name): the name is not valid UTF-8 and is not synced; rename it to sync it"
        }
        return new
    }
}
