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
            let scanned = try scanner.scan()
            let items = scanned.items
            for error in scanned.errors { logger.warning("scan: \(error)", metadata: ["folder": "\(id)"]) }
            reportUndecodable(scanned.undecodableNames)
            if !stagingCleared {
                // Only an interrupted run leaves these (no download runs before the first scan).
                removeStagingFiles(scanned.stagingFiles)
                stagingCleared = true
            }
            let baseline = try index.records.scanBaseline(folder: id)
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
            // After what the watcher reported before the scan (a move's order is kept).
            let flushed = await flushJournal()
            try await queue.enqueue(toPush)
            // (Changes the failed flush held may lie in paths this scan had passed: scan again.)
            if flushed { journalProblem = nil }
            logger.info(
                "scan done",
                metadata: [
                    "folder": "\(id)", "entries": "\(items.count)", "queued": "\(toPush.count)",
                    "took": "\(ContinuousClock.now - started)",
                ])
        } catch {
            if journalProblem != nil {
                // Still cannot write the journal: keep saying so, and keep retrying.
                journalProblem = "cannot record local changes: \(RemoteApplier.describe(error)); a full scan retries every 5 s"
                logger.error("scan could not journal", metadata: ["folder": "\(id)", "error": "\(error)"])
                return
            }
            rootProblem = "scan failed: \(error)"
            logger.error("scan failed", metadata: ["folder": "\(id)", "error": "\(error)"])
        }
    }

    /// Names that are not UTF-8 are not synced, and said so in the status (per name).
    /// `below`: a subtree scan replaces only what it covers.
    func reportUndecodable(_ names: [String], below: String? = nil) {
        let scope = below.map { $0 + "/" }
        for key in undecodableNames.keys where scope == nil || key.hasPrefix(scope!) { undecodableNames[key] = nil }
        for name in names {
            if undecodableNames[name] == nil {
                logger.warning("name is not valid UTF-8; not synced", metadata: ["folder": "\(id)", "name": "\(name)"])
            }
            undecodableNames[name] = "\(name): the name is not valid UTF-8 and is not synced; rename it to sync it"
        }
    }

    /// Removes download staging files an interrupted run left in the folder.
    private func removeStagingFiles(_ paths: [String]) {
        let folder = FolderRoot(root)
        for path in paths {
            do {
                let staged = try folder.parent(of: path)
                if unlinkat(staged.directory.fd, staged.name, 0) != 0 && errno != ENOENT {
                    logger.warning("cannot remove a staging file", metadata: ["path": "\(path)", "error": "\(String(cString: strerror(errno)))"])
                    continue
                }
                logger.info("removed a staging file an interrupted run left", metadata: ["folder": "\(id)", "path": "\(path)"])
            } catch {
                logger.warning("cannot remove a staging file", metadata: ["path": "\(path)", "error": "\(error)"])
            }
        }
    }

    /// `syncctl rescan`: a full scan now.
    public func rescanNow() async {
        logger.info("rescan asked for", metadata: ["folder": "\(id)"])
        await fullScan()
    }

    /// Scans one subtree (a directory that appeared) and journals what is in
    /// it, then `later` (a move's source) in the same journal write.
    func scanSubtree(_ relative: String, then later: [String] = [], moves: [String: String] = [:]) async {
        var paths = [relative]
        do {
            let scanned = try scanner.scan(below: relative)
            paths += scanned.items.map(\.path)
            reportUndecodable(scanned.undecodableNames, below: relative)
        } catch {
            // The directory went away again: its own event handles that.
            logger.debug("subtree scan failed", metadata: ["path": "\(relative)", "error": "\(error)"])
        }
        journal(paths.filter { acceptName($0) } + later, moves: moves)
    }
}
