import Foundation
import SyncClient
import SyncCore

/// A remote file, directory or symlink written to disk one by one, and recorded (see
/// `BatchDownload` for small new files).
struct EntryDownload: Sendable {
    let applier: RemoteApplier

    var folder: String { applier.folder }
    var index: IndexStore { applier.index }
    var materializer: Materializer { applier.materializer }

    /// Writes `entry` to disk and records it, unless the path's base changed
    /// since it was planned against `plannedBase` (a push of this path landed
    /// meanwhile): then it throws `changedMeanwhile` and is planned again.
    func apply(_ entry: WireEntry, expected: FileStat?, plannedBase: BaseRecord?) async throws {
        var update = IndexUpdate()
        update.bases.append(entry.baseRecord)
        switch entry.kind {
        case .directory:
            // Its creation event needs no push: the rows are written here (`DownloadEchoes`).
            // Not while a move of ours waits to be pushed: its commit renames the rows below
            // its source, and what is made there now must be journaled to be seen.
            let echo: Bool
            do { echo = try !index.journal.hasPendingMove(folder: folder) } catch { echo = false }
            if echo { applier.echoes.expectDirectory(entry.path) }
            do {
                let stat = try materializer.makeDirectory(entry.path, mode: entry.mode)
                update.locals.append(entry.localRecord(stat: stat))
                try index.records.apply(folder: folder, update, ifBase: plannedBase, at: entry.path)
                if echo { applier.echoes.recorded(entry.path, inode: stat.inode) }
            } catch {
                // If its event was taken as an echo meanwhile, it is journaled after all.
                if echo { applier.echoes.failed(entry.path) }
                throw error
            }
        case .symlink:
            let stat = try materializer.makeSymlink(entry.path, target: entry.symlinkTarget ?? "", expected: expected)
            update.locals.append(entry.localRecord(stat: stat))
            try index.records.apply(folder: folder, update, ifBase: plannedBase, at: entry.path)
        case .file:
            let source = try index.files.file(folder: folder, contentHash: entry.contentHash).map(\.path)
            let localChunks = source == nil ? try reusableChunks(for: entry) : nil
            let folder = self.folder, remote = applier.remote, progress = applier.progress, path = entry.path
            let echoes = applier.echoes
            let early = update
            // The index is written just before the rename; if that fails, what it said before is put back.
            let before = try index.records.read(folder: folder, paths: [path])
            var recorded = false
            await progress.begin(path: path, direction: "download", total: entry.size)
            let final: FileStat
            let chunkLengths: [Int]?
            let directory: DirectoryHandle
            do {
                let written = try await applier.assembler.writeFile(
                entry, expected: expected, copySource: source == entry.path ? nil : source, localChunks: localChunks,
                fetch: { hash in try await remote.getChunk(folder: folder, hash: hash) }, lookahead: applier.fetchConcurrency,
                progress: { bytes in await progress.advance(path: path, by: bytes) },
                beforeRename: { staged in
                    // Without chunk lengths: the rename changes the ctime, so they would not be
                    // trusted anyway; the record written once it landed keeps them.
                    var update = early.adding(local: entry.localRecord(stat: staged))
                    update.intents = [DownloadIntent(
                        path: path, stagedInode: staged.inode, previousLocal: before.local[path], previousBase: before.base[path])]
                    try index.records.apply(folder: folder, update, ifBase: plannedBase, at: path)
                    recorded = true
                    CrashPoint.reached(.beforeRename, path: path)
                    // Its rename's event is an echo, as a batch's are (`DownloadEchoes`): else the
                    // event, read before the landed record below is written, finds the record of
                    // the staged file (whose ctime the rename changes) and the file is read again.
                    // Not while a move of ours is queued (see `BatchDownload.rename`); unknown: journaled.
                    let moving: Bool
                    do { moving = try index.journal.hasPendingMove(folder: folder) } catch { moving = true }
                    if !moving { echoes.expect(path, stat: staged) }
                })
                final = written.stat
                chunkLengths = written.chunkLengths
                directory = written.directory
                applier.metrics.downloaded(files: 1, bytes: written.fetched)
                applier.progress.tally.downloaded(path: path, bytes: entry.size)
                if written.resumedAt > 0 {
                    applier.logger.info(
                        "download resumed where an earlier try was cut short",
                        metadata: [
                            "path": "\(path)", "kept_bytes": "\(written.resumedAt)", "fetched_bytes": "\(written.fetched)",
                            "size": "\(entry.size)",
                        ])
                }
                if let localChunks {
                    applier.logger.info(
                        "downloaded with local chunks",
                        metadata: [
                            "path": "\(path)", "fetched_bytes": "\(written.fetched)", "size": "\(entry.size)",
                            "local_chunks_from": "\(localChunks.files.joined(separator: ", "))",
                            // Files read again to find their chunks (their records did not say where they are).
                            "files_read_for_chunks": "\(localChunks.reread.count)",
                        ])
                }
            } catch {
                echoes.forget(path)
                await progress.end(paths: [path])
                if recorded {
                    try index.records.restore(
                        folder: folder, path: path, local: before.local[path], base: before.base[path], onlyOver: entry.baseRecord)
                }
                throw error
            }
            await progress.end(paths: [path])
            // In place and recorded; landed once the rename is durable. If that fails, the
            // intent stays, and the next start finds the file landed.
            CrashPoint.reached(.beforeLanded, path: path)
            try FileAssembler.syncRenames(in: [directory])
            let local = entry.localRecord(stat: final, chunkLengths: LocalRecord.lengths(chunkLengths))
            try index.records.record(folder: folder, landed: [LandedDownload(local: local, base: entry.baseRecord)])
        }
    }

    /// Chunks of `entry` already on disk: in the file at its path (the version
    /// being replaced), at the path it moved from, or in other local files whose
    /// chunk lists share some (a few at most).
    func reusableChunks(for entry: WireEntry) throws -> LocalChunks? {
        guard entry.chunks.count > 1 else { return nil }  // a one-chunk file changed as a whole
        let wanted = Set(entry.chunks)
        let named = [entry.path] + (entry.movedFrom.map { [$0] } ?? [])
        var candidates = try index.records.locals(folder: folder, paths: named)
        for record in try index.chunks.files(folder: folder, sharingChunksWith: Array(wanted), limit: 4) {
            candidates[record.path] = candidates[record.path] ?? record
        }
        var found = LocalChunks()
        for path in named + candidates.keys.filter({ !named.contains($0) }).sorted() {
            guard let record = candidates[path] else { continue }
            found.add(record, in: materializer.folder, wanted: wanted, chunker: materializer.chunker)
            if found.refs.count == wanted.count { break }
        }
        return found.isEmpty ? nil : found
    }
}
