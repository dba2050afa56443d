import Foundation
import Glibc

extension FolderEngine {
    /// Compares the tree on disk with the index and journals every difference:
    /// new and changed paths, and paths the index knows that are gone.
    func fullScan() async {
        phase = .scanning
        defer { phase = .running }
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root, isDirectory: &isDir), isDir.boolValue else {
            rootProblem = "folder root \(root) is missing or not a directory; syncing paused, nothing is deleted"
            logger.error("folder root missing", metadata: ["folder": "\(id)", "path": "\(root)"])
            return
        }
        let started = ContinuousClock.now
        do {
            let (items, errors) = try scanner.scan()
            for error in errors { logger.warning("scan: \(error)", metadata: ["folder": "\(id)"]) }
            let baseline = try index.scanBaseline(folder: id)
            let liveBase = baseline.liveBase.count
            if items.isEmpty && liveBase > 0 {
                rootProblem = "folder root \(root) is empty but \(liveBase) synced entries are known; "
                    + "syncing paused, nothing is deleted on the server"
                logger.error("folder root suddenly empty", metadata: ["folder": "\(id)"])
                return
            }
            rootProblem = nil
            adoptRootIfNeeded()
            directoriesSeen = 1 + items.reduce(0) { $0 + ($1.stat.kind == .directory ? 1 : 0) }
            var toPush: [String] = []
            var seen = Set<String>()
            seen.reserveCapacity(items.count)
            var clearedNames = nameProblems
            for item in items {
                clearedNames[item.path] = nil
                guard acceptName(item.path) else { continue }
                seen.insert(item.path)
                if let synced = baseline.local[item.path], synced.inSync, synced.stat == item.stat { continue }
                toPush.append(item.path)
            }
            for (path, isDirectory) in baseline.liveBase where !seen.contains(path) && !skips(path, isDirectory: isDirectory) {
                toPush.append(path)
            }
            // Problem names that are gone from disk are no longer a problem.
            for path in clearedNames.keys { nameProblems[path] = nil }
            try await queue.enqueue(toPush)
            logger.info(
                "scan done",
                metadata: [
                    "folder": "\(id)", "entries": "\(items.count)", "queued": "\(toPush.count)",
                    "took": "\(ContinuousClock.now - started)",
                ])
        } catch {
            rootProblem = "scan failed: \(error)"
            logger.error("scan failed", metadata: ["folder": "\(id)", "error": "\(error)"])
        }
    }

    /// Scans one subtree (a directory that appeared) and journals what is in
    /// it, then `later` (a move's source) in the same journal write.
    func scanSubtree(_ relative: String, then later: [String] = [], moves: [String: String] = [:]) async {
        var paths = [relative]
        do {
            let (items, _) = try scanner.scan(below: relative)
            paths += items.map(\.path)
        } catch {
            // The directory went away again: its own event handles that.
            logger.debug("subtree scan failed", metadata: ["path": "\(relative)", "error": "\(error)"])
        }
        await journal(paths.filter { acceptName($0) } + later, moves: moves)
    }
}
