import Foundation

extension FolderEngine {
    /// Watches, scans, then keeps the folder in sync until cancelled.
    public func run() async {
        ignore.reload()
        let events = await watch.subscribe(filter: ignore.watchFilter)
        do {
            if try index.folders.state(folder: id).paused { await queue.setPaused(true) }
        } catch {
            logger.error("cannot read folder state", metadata: ["folder": "\(id)", "error": "\(error)"])
        }
        restorePartialDownloads()
        await scanner.start()
        await queue.onConflict { [feed] entries in await feed.apply(entries) }
        // Nothing is sent or applied while the root is gone, replaced or suddenly empty.
        let rootOK: @Sendable () async -> Bool = { [scanner] in await scanner.checkRoot() }
        // Nor sent while the server refuses this device the folder: the changes wait in the
        // journal for a grant instead of failing one by one.
        await queue.setSendGate { [feed] in
            guard await rootOK() else { return false }
            return await !feed.isDenied
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.queue.run() }
            group.addTask { await self.journal.run(failed: { [scanner = self.scanner] in await scanner.journalFailed($0) }) }
            group.addTask { await self.scanner.run() }
            group.addTask { await self.feed.follow(rootOK: rootOK) }
            group.addTask { await self.feed.retryPeriodically(rootOK: rootOK) }
            group.addTask {
                for await message in events { await self.handle(message) }
            }
            group.addTask {
                await self.timers.run(next: { await self.nextDeadline() }, fire: { await self.timersFired(at: $0) })
            }
            await group.next()
            group.cancelAll()
        }
        savePartialDownloads()
    }

    /// Big downloads cut short, saved at the daemon's last stop (or recorded as they went,
    /// before a kill), are kept again (before the first scan, which removes every other
    /// staging file). Their rows stay for those kept: a kill before their try loses nothing.
    func restorePartialDownloads() {
        do {
            let (saved, kept) = try partials.restore(from: index.partialDownloads, folder: id, root: folder)
            guard saved > 0 else { return }
            logger.info(
                "big downloads cut short by the last stop go on at their next try",
                metadata: [
                    "folder": "\(id)", "saved": "\(saved)", "kept": "\(kept.count)",
                    // Checkpoints of downloads under way at a kill: their chunks are read back and hashed.
                    "to_check": "\(kept.filter { !$0.sealed }.count)",
                ])
        } catch {
            logger.error("cannot read the downloads kept over the last stop", metadata: ["folder": "\(id)", "error": "\(error)"])
        }
    }

    /// The engine stops: big downloads cut short (those under way now among them) are saved
    /// for the next start; if that fails, their staging files are removed.
    func savePartialDownloads() {
        do {
            let saved = try partials.save(into: index.partialDownloads, folder: id, root: folder)
            if saved > 0 {
                logger.info("big downloads cut short are kept for the next start", metadata: ["folder": "\(id)", "saved": "\(saved)"])
            }
        } catch {
            logger.error("cannot keep the downloads cut short for the next start", metadata: ["folder": "\(id)", "error": "\(error)"])
        }
    }

    /// The folder is taken out of the configuration, or moved elsewhere, after `run` ended:
    /// the partial downloads it saved are given up, their staging files removed.
    public func discardPartialDownloads() {
        do {
            let saved = try index.partialDownloads.takeAll(folder: id)
            guard !saved.isEmpty else { return }
            for partial in saved { PartialDownloads.discard(partial, in: folder) }
            logger.info("big downloads cut short are given up with the folder", metadata: ["folder": "\(id)", "saved": "\(saved.count)"])
        } catch {
            logger.error("cannot read the downloads cut short of a folder stopped", metadata: ["folder": "\(id)", "error": "\(error)"])
        }
    }
}
