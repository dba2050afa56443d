import Foundation
import Inotify

extension FolderEngine {
    func handle(_ message: WatchMessage) async {
        switch message {
        case .rescanNeeded:
            requestRescan()
        case .watchFailed(_, let error):
            watchError = error
            logger.error("\(error)", metadata: ["folder": "\(id)"])
        case .event(let event):
            await handle(event)
        }
    }

    private func handle(_ event: InotifyEvent) async {
        if event.path == root {
            if event.flags.contains(.selfGone) {
                rootGone = RootTrouble(
                    kind: .missing, message: "folder root \(root) was removed or moved away; syncing paused, nothing is deleted")
                logger.error("folder root gone", metadata: ["folder": "\(id)"])
            }
            return
        }
        guard let path = relative(event.path), !skips(path, isDirectory: event.isDirectory) else { return }
        // A name that is not UTF-8 reaches us with U+FFFD in it: a scan names it in the status.
        if path.unicodeScalars.contains("\u{FFFD}") {
            requestRescan(reason: "a name that is not valid UTF-8 appeared")
            return
        }
        // A name in another Unicode form is renamed (its move events follow), or reported.
        guard event.flags.contains(.movedFrom) || event.flags.contains(.deleted) || acceptName(path) else { return }
        if path == IgnoreRules.fileName && reloadIgnoreFile() {
            logger.info("\(IgnoreRules.fileName) changed; rescanning", metadata: ["folder": "\(id)"])
            journal([path])
            // Directories that are no longer ignored need watches now.
            if case .failure(let error) = await InotifyWatcher.shared.watch(path: root) { watchError = error }
            await fullScan()
            return
        }
        // A move's source is journaled with its destination, after it: pushed in one
        // batch, the delete-wave guard sees the content arriving at the new place, and
        // other devices get the tombstones and new entries together (applied as renames).
        let from = event.movedFrom.flatMap(relative).flatMap { skips($0, isDirectory: event.isDirectory) ? nil : $0 }
        await act(on: path, event, movedFrom: from)
    }

    private func act(on path: String, _ event: InotifyEvent, movedFrom from: String?) async {
        let f = event.flags
        let source = from.map { [$0] } ?? []
        let now = Date()
        // Committed as a move on the server when the old path was synced (else as new content).
        let moves = from.map { [path: $0] } ?? [:]
        if event.isDirectory && (f.contains(.created) || f.contains(.movedTo)) {
            // Files may have landed in it before its watch existed: scan it.
            await perform(settleMachine.done(path))
            await scanSubtree(path, then: source, moves: moves)
        } else if !f.isDisjoint(with: [.movedFrom, .deleted, .selfGone]) && f.isDisjoint(with: [.closedWrite, .movedTo]) {
            // Gone: gathered with the rest of an `rm -r` (see SettleStateMachine).
            await perform(settleMachine.gone(path, at: now))
        } else if !f.isDisjoint(with: [.closedWrite, .movedTo]) {
            // The writer is done (or the file was renamed into place): act at once.
            await perform(settleMachine.done(path))
            // Unless it is a download of ours landing (recorded already).
            if f.contains(.movedTo), from == nil, applier.echoes.consume(path, current: { currentStat(path) }) { return }
            journal([path] + source, moves: moves)
        } else {
            if !f.isDisjoint(with: [.modified, .created, .attributes]) { await perform(settleMachine.written(path, at: now)) }
            if !source.isEmpty { journal(source) }
        }
    }

    /// What is at `path` now (nil: nothing, or nothing we can look at beneath the root).
    private func currentStat(_ path: String) -> FileStat? {
        if case .found(let stat) = applier.materializer.folder.lstat(path) { return stat }
        return nil
    }

    /// Carries out what the settle machine decided.
    private func perform(_ actions: [SettleStateMachine.Action]) async {
        for action in actions {
            switch action {
            case .journal(let paths):
                journal(paths)
            case .startQuietTimer(let path, let delay, let since):
                openWrites.begin(path, at: since)
                quietTimers[path]?.cancel()
                quietTimers[path] = Task { [weak self] in
                    do { try await Task.sleep(for: .seconds(delay)) } catch { return }
                    await self?.quietTimerFired(path)
                }
            case .stopQuietTimer(let path):
                openWrites.end(path)
                quietTimers.removeValue(forKey: path)?.cancel()
            case .startDeleteTimer(let delay):
                deleteTimer?.cancel()
                deleteTimer = Task { [weak self] in
                    do { try await Task.sleep(for: .seconds(delay)) } catch { return }
                    await self?.deleteTimerFired()
                }
            }
        }
    }

    private func quietTimerFired(_ path: String) async {
        quietTimers[path] = nil
        await perform(settleMachine.quiet(path))
    }

    private func deleteTimerFired() async {
        deleteTimer = nil
        await perform(settleMachine.deletesGathered())
    }

    /// Lost events mean a rescan; a storm of overflow notices means one rescan
    /// (plus one more if notices came in while it ran), not one per notice.
    func requestRescan(reason: String = "inotify events were lost") {
        if rescanScheduled { return }
        rescanScheduled = true
        Task {
            do { try await Task.sleep(for: .milliseconds(200)) } catch { return }
            await self.runRequestedRescan(reason: reason)
        }
    }

    private func runRequestedRescan(reason: String) async {
        rescanScheduled = false
        logger.warning("\(reason); rescanning", metadata: ["folder": "\(id)"])
        await fullScan()
    }

    /// After the journal could not be written (its disk full, say): a full scan every
    /// 5 s until one records everything.
    func retryJournalIfNeeded() async {
        guard journalProblem != nil else { return }
        let now = Date()
        if let last = journalRetriedAt, now.timeIntervalSince(last) < 5 { return }
        journalRetriedAt = now
        await fullScan()
    }
}
