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
        // Their staging files are not left in the folder until the next start.
        partials.discardAll()
    }
}
