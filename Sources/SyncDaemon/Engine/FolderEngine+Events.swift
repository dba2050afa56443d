import Foundation
import Inotify

extension FolderEngine {
    func handle(_ message: WatchMessage) async {
        switch message {
        case .rescanNeeded:
            // Events were lost, directory events among them perhaps (and the ones that
            // would have told an expected echo from the user's change).
            echoDirectories.forget()
            echoes.forgetAll()
            metrics.inotifyOverflowed()
            await scanner.requestRescan()
        case .watchFailed(_, let error):
            echoDirectories.forget()
            watch.failed(error)
        case .event(let event):
            await handle(event)
        case .barrier(let token):
            barriers.pass(token)
        }
    }

    private func handle(_ event: InotifyEvent) async {
        if event.isDirectory || event.flags.contains(.selfGone) { echoDirectories.forget() } else { echoDirectories.expire() }
        if event.path == root {
            if event.flags.contains(.selfGone) { await scanner.rootRemoved() }
            return
        }
        guard let path = relative(event.path), !ignore.skips(path, isDirectory: event.isDirectory) else { return }
        // A name that is not UTF-8 reaches us with U+FFFD in it: a scan names it in the status.
        if path.unicodeScalars.contains("\u{FFFD}") {
            await scanner.requestRescan(reason: "a name that is not valid UTF-8 appeared")
            return
        }
        // A name in another Unicode form is renamed (its move events follow), or reported.
        if !event.flags.contains(.movedFrom) && !event.flags.contains(.deleted) && !NFCNames.isNFC(path) {
            guard await scanner.acceptName(path) else { return }
        }
        if path == IgnoreRules.fileName && ignore.reload() {
            logger.info("\(IgnoreRules.fileName) changed; rescanning", metadata: ["folder": "\(id)"])
            journal.add([path])
            // Directories that are no longer ignored need watches now.
            await watch.rewatch()
            await scanner.fullScan()
            return
        }
        // A move's source is journaled with its destination, after it: pushed in one
        // batch, the delete-wave guard sees the content arriving at the new place, and
        // other devices get the tombstones and new entries together (applied as renames).
        let from = event.movedFrom.flatMap(relative).flatMap { ignore.skips($0, isDirectory: event.isDirectory) ? nil : $0 }
        await act(on: path, event, movedFrom: from)
    }

    private func act(on path: String, _ event: InotifyEvent, movedFrom from: String?) async {
        let f = event.flags
        let source = from.map { [$0] } ?? []
        let now = timers.clock.now
        // Committed as a move on the server when the old path was synced (else as new content).
        let moves = from.map { [path: $0] } ?? [:]
        logger.trace("event", metadata: ["path": "\(path)", "flags": "\(f)", "from": "\(from ?? "")"])
        // A move's source went away as surely as a delete's path: what was expected there is
        // not any more. (Not when the move is a rename of ours: the next rename of a chain,
        // p2 → p1 after p1 → p0, may expect its echo at this one's source already.)
        func sourceGone() { if let from { forgetEchoes(at: from, directory: event.isDirectory) } }
        if event.isDirectory && (f.contains(.created) || f.contains(.movedTo)) {
            // Files may have landed in it before its watch existed: scan it. A directory a
            // download made is recorded already: only what is in it is journaled.
            perform(settle.done(path))
            // A directory a remote move renamed whole: what is in it is recorded already (and
            // what the user wrote there meanwhile is journaled by the move).
            if f.contains(.movedTo), echoes.consume(path, moved: true, current: { currentStat(path) }) {
                logger.trace("event is a remote directory move's echo", metadata: ["path": "\(path)"])
                return
            }
            sourceGone()
            let made = f.contains(.created) && echoes.consume(path, current: { currentStat(path) })
            if made { logger.trace("event is a download's echo", metadata: ["path": "\(path)"]) }
            await scanner.scanSubtree(path, then: source, moves: moves, itself: !made)
        } else if !f.isDisjoint(with: [.movedFrom, .deleted, .selfGone]) && f.isDisjoint(with: [.closedWrite, .movedTo]) {
            // Gone: gathered with the rest of an `rm -r` (see SettleStateMachine). What a
            // download placed there is no longer to be expected.
            sourceGone()
            forgetEchoes(at: path, directory: event.isDirectory)
            perform(settle.gone(path, at: now))
        } else if !f.isDisjoint(with: [.closedWrite, .movedTo]) {
            // The writer is done (or the file was renamed into place): act at once.
            perform(settle.done(path))
            // Unless it is a download of ours landing, or a file a remote move renamed (its
            // records are written for it, with its departure's).
            if f.contains(.movedTo) {
                let echo = echoes.consume(path, current: { currentStat(path) })
                // The end of a burst: no directory stays held while the folder is quiet (an
                // open directory keeps its file system from being unmounted).
                if echoes.isEmpty { echoDirectories.forget() }
                if echo {
                    logger.trace("event is a download's echo", metadata: ["path": "\(path)"])
                    return
                }
            }
            sourceGone()
            journal.add([path] + source, moves: moves)
        } else {
            sourceGone()
            if !f.isDisjoint(with: [.modified, .created, .attributes]) { perform(settle.written(path, at: now)) }
            if !source.isEmpty { journal.add(source) }
        }
    }

    /// Whatever a download expected at `path` (and below it, for a directory) is not to be
    /// expected any more: what appears there next is the user's.
    private func forgetEchoes(at path: String, directory: Bool) {
        if directory { echoes.forgetDirectory(path) } else { echoes.forget(path) }
    }

    /// What is at `path` now (nil: nothing, or nothing we can look at beneath the root),
    /// for a download's echo: through the directories held since the last directory event.
    private func currentStat(_ path: String) -> FileStat? {
        if case .found(let stat) = echoDirectories.lstat(path, in: folder) { return stat }
        return nil
    }
}
