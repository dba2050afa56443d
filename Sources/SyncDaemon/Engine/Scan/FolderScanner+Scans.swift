import Foundation

extension FolderScanner {
    /// Compares the tree on disk with the index and journals every difference (`ScanDiff`).
    func fullScan() async {
        phase = .scanning
        defer { phase = .running }
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root, isDirectory: &isDir), isDir.boolValue else {
            problems.rootProblem = "folder root \(root) is missing or not a directory; syncing paused, nothing is deleted"
            logger.error("folder root missing", metadata: ["folder": "\(folder)", "path": "\(root)"])
            return
        }
        let started = ContinuousClock.now
        metrics.scanned()
        do {
            // The walk and the index read run side by side (each may see a change made
            // meanwhile either way: what differs is journaled, and a push compares again).
            let scanner = ignore.scanner
            async let walked = Result { () throws(DaemonError) in try scanner.scan() }
            let known = Result { try index.records.scanBaseline(folder: folder) }
            let scanned = try await walked.get()
            for error in scanned.errors { logger.warning("scan: \(error)", metadata: ["folder": "\(folder)"]) }
            reportUndecodable(scanned.undecodableNames)
            if !stagingCleared {
                housekeeping.removeStagingFiles(scanned.stagingFiles)
                stagingCleared = true
            }
            var baseline = try known.get()
            if scanned.items.isEmpty && baseline.syncedEntryCount > 0 {
                problems.rootProblem = "folder root \(root) is empty but \(baseline.syncedEntryCount) synced entries are known; "
                    + "syncing paused, nothing is deleted on the server"
                logger.error("folder root suddenly empty", metadata: ["folder": "\(folder)"])
                return
            }
            // The root is as synced: what remote deletes of an earlier process left can be
            // judged by what is on disk (before anything is sent or applied: the root's
            // problem, if any, still holds both back).
            if !deletesRecovered {
                do {
                    switch try housekeeping.recoverInterruptedDeletes(rootIsEmpty: scanned.items.isEmpty) {
                    case .deferred: break
                    case .resolved(let restoredAny):
                        if restoredAny { baseline = try index.records.scanBaseline(folder: folder) }
                        deletesRecovered = true
                    }
                } catch {
                    // Nothing is sent or applied until they are resolved: tried again in 5 s.
                    problems.rootProblem = "cannot resolve the remote deletes the last stop cut short: "
                        + "\(RemoteApplier.problem(error, path: nil).message); retried every 5 s"
                    logger.error("cannot resolve interrupted remote deletes", metadata: ["folder": "\(folder)", "error": "\(error)"])
                    if let due = schedule.journalFailed(at: timers.clock.now) { deadline(due) }
                    return
                }
            }
            problems.rootProblem = nil
            adoptRootIfNeeded()
            let rules = ignore.rules
            let diff = ScanDiff(
                items: scanned.items, baseline: baseline, nameProblems: problems.nameProblems.keys,
                accept: { acceptName($0) }, skips: { rules.skips($0, isDirectory: $1) })
            problems.directoriesSeen = diff.directories
            for path in diff.namesGone { problems.nameProblems[path] = nil }
            // After what the watcher reported before the scan (a move's order is kept).
            let unwritten = await journal.flush()
            if let unwritten { journalFailed(unwritten) }
            try await queue.enqueue(diff.toPush)
            // (Changes the failed flush held may lie in paths this scan had passed: scan again.)
            if unwritten == nil { problems.journalProblem = nil }
            logger.info(
                "scan done",
                metadata: [
                    "folder": "\(folder)", "entries": "\(scanned.items.count)", "queued": "\(diff.toPush.count)",
                    "took": "\(ContinuousClock.now - started)",
                ])
        } catch {
            if problems.journalProblem != nil {
                // Still cannot write the journal: keep saying so, and keep retrying.
                journalFailed(error)
                logger.error("scan could not journal", metadata: ["folder": "\(folder)", "error": "\(error)"])
                return
            }
            problems.rootProblem = "scan failed: \(error)"
            logger.error("scan failed", metadata: ["folder": "\(folder)", "error": "\(error)"])
        }
    }

    /// Scans one subtree (a directory that appeared) and journals what is in
    /// it, then `later` (a move's source) in the same journal write.
    /// `itself` false: the directory is recorded already (a download made it), only what is
    /// in it is journaled.
    func scanSubtree(_ relative: String, then later: [String] = [], moves: [String: String] = [:], itself: Bool = true) {
        var paths = itself ? [relative] : []
        do {
            let scanned = try ignore.scanner.scan(below: relative)
            paths += scanned.items.map(\.path)
            reportUndecodable(scanned.undecodableNames, below: relative)
        } catch {
            // The directory went away again: its own event handles that.
            logger.debug("subtree scan failed", metadata: ["path": "\(relative)", "error": "\(error)"])
        }
        let found = paths.filter { acceptName($0) } + later
        if !found.isEmpty { journal.add(found, moves: moves) }
    }

    /// The scan loop: one scan the timer loop found due at a time.
    func scan(for reason: ScanReason) async {
        switch reason {
        case .periodic:
            if watch.error != nil { await watch.retry() }
            await fullScan()
            housekeeping.expireTrash()
            schedulePeriodicScan()
        case .requested(let why):
            logger.warning("\(why); rescanning", metadata: ["folder": "\(folder)"])
            await fullScan()
        case .journalRetry:
            // (Also the retry of a failed resolution of interrupted remote deletes.)
            guard problems.journalProblem != nil || !deletesRecovered else { return }
            await fullScan()
            // Still failing without a new failure (the root went missing meanwhile, say): again.
            if problems.journalProblem != nil || !deletesRecovered, let due = schedule.journalFailed(at: timers.clock.now) {
                deadline(due)
            }
        }
    }

    /// Names that are not UTF-8 are not synced, and said so in the status (per name).
    func reportUndecodable(_ names: [String], below: String? = nil) {
        for name in problems.reportUndecodable(names, below: below) {
            logger.warning("name is not valid UTF-8; not synced", metadata: ["folder": "\(folder)", "name": "\(name)"])
        }
    }
}
