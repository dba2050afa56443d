import Foundation
import Logging
import SyncClient
import SyncCore

/// Pushes the moves of a batch (see `push`): the uploader's commit path, moves only.
struct MovePush: Sendable {
    let uploader: Uploader

    var folder: String { uploader.folder }
    var index: IndexStore { uploader.index }
    var preparer: Preparer { uploader.preparer }
    var logger: Logger { uploader.logger }

    /// A batch holding moves commits only them, in journal order, in one
    /// request (a directory of any size is one change). The batch's other ops
    /// go back to the journal and run next, against the records the moves
    /// re-keyed: a moved directory's files then match by stat and are not read.
    /// A move the server cannot make (source changed there, target taken) is
    /// pushed as a plain change instead.
    func push(_ ops: [JournalOp]) async -> PushBatchResult {
        var result = PushBatchResult()
        let moves = ops.compactMap { op in op.moveFrom.map { (to: op.path, from: $0) } }
        for op in ops where op.moveFrom == nil { result.settle(op.path, .deferred(forgetMove: false)) }
        let records: (local: [String: LocalRecord], base: [String: BaseRecord])
        do {
            records = try index.records.read(folder: folder, paths: moves.flatMap { [$0.to, $0.from] })
        } catch {
            for move in moves {
                result.settle(move.to, .failed(DaemonError(.index, "the index could not be read: \(error)", path: move.to, underlying: error)))
            }
            return result
        }
        var prepared: [(to: String, from: String, change: PreparedChange)] = []
        // Old names of the moves before, in this commit: the server applies its changes in
        // order, so a move onto one of them finds it free (files renumbered: p13 → p12, then
        // p14 → p13).
        var vacated = Set<String>()
        for move in moves {
            if let change = preparer.prepareMove(
                path: move.to, from: move.from, localFrom: records.local[move.from], baseFrom: records.base[move.from],
                base: vacated.contains(move.to) ? nil : records.base[move.to])
            {
                prepared.append((move.to, move.from, change))
                vacated.insert(move.from)
            } else {
                result.forget(move, below: records.base[move.from]?.kind == .directory ? liveBelow(move.from) : [])
            }
        }
        guard !prepared.isEmpty else { return result }
        // What each move takes along, as this device knew it when it prepared the move:
        // read before the commit, because the feed may apply the move's own entries
        // meanwhile (a retry after a lost reply leaves it time to) and retire these bases.
        var knownBelow: [String: [BaseRecord]] = [:]
        for move in prepared {
            guard let old = records.base[move.from] else { continue }
            knownBelow[move.from] = old.kind == .directory ? liveBelow(move.from) : [old]
        }
        let response: CommitResponse
        let commitId = UUID().uuidString
        do {
            response = try await uploader.commitOnce(prepared.map(\.change.change), commitId: commitId)
        } catch {
            if error.kind == .permanent { result.update.settledCommits.append(commitId) }
            if error.kind == .transient {
                uploader.markTransientOrFailed(error, paths: prepared.map(\.to), into: &result)
            } else {
                // Refused as a move: a plain push will say what is wrong, if anything.
                logger.warning("move refused; pushing as plain changes", metadata: ["error": "\(error)"])
                for move in prepared { result.forget((move.to, move.from), below: liveBelow(move.from)) }
            }
            return result
        }
        result.update.settledCommits.append(commitId)
        let arrivals = Set(prepared.map(\.to))
        for (move, outcome) in zip(prepared, response.results) {
            guard outcome.status == .ok, let old = records.base[move.from] else {
                result.forget((move.to, move.from), below: liveBelow(move.from))
                continue
            }
            result.update.moves.append((move.from, move.to))
            if let local = move.change.local { result.update.locals.append(local) }
            let known = knownBelow[move.from] ?? (old.kind == .directory ? liveBelow(move.from) : [old])
            let bases = MoveRecords.bases(
                known: known, moved: outcome.moved ?? [], firstRev: outcome.rev, from: move.from, to: move.to)
            result.update.bases += bases
            result.finish(move.to, .committed(rev: outcome.rev))
            // Synced entries that are not in the new place on disk (deleted before or while
            // it moved): their tombstones must follow.
            result.update.lookAgain += bases.filter { !$0.deleted && $0.path != move.to }.map(\.path).filter { path in
                if case .missing = preparer.folder.lstat(path) { return true }
                return false
            }
            // Old paths that are on disk again (a download of another device's edit re-created
            // one while the move was prepared): the move took the server's entries away, so what
            // is there now is new content to push, not something already synced. (Not the
            // arrival of a later move in this commit: that one's outcome says what it is.)
            result.update.lookAgain += ([move.from] + known.map(\.path)).filter { path in
                if arrivals.contains(path) { return false }
                if case .missing = preparer.folder.lstat(path) { return false }
                return true
            }
            // The source's own op (the event journals it beside the move): the move's records
            // say what is there now, and what is on disk again is looked at again (above). Not
            // run again for nothing in a batch of its own: each such batch took half of the
            // next move batch, and 2,000 files renamed went up in ~30 batches instead of 8.
            result.undefer(move.from)
        }
        return result
    }

    /// The synced entries at and below `path` (none if the index cannot say: logged).
    private func liveBelow(_ path: String) -> [BaseRecord] {
        do {
            return try index.base.live(folder: folder, under: path)
        } catch {
            logger.warning("cannot list a directory's synced entries", metadata: ["path": "\(path)", "error": "\(error)"])
            return []
        }
    }
}

extension PushBatchResult {
    /// A move pushed as plain changes: the new path as new content, and each
    /// synced entry under the old path on its own (what was below a directory
    /// that something re-created meanwhile would otherwise never be deleted).
    mutating func forget(_ move: (to: String, from: String), below: [BaseRecord]) {
        settle(move.to, .deferred(forgetMove: true))
        update.lookAgain += below.map(\.path).filter { $0 != move.from }
    }
}
