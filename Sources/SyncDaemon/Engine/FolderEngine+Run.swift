import Foundation
import Inotify
import ServiceLifecycle

extension FolderEngine {
    /// Watches, scans, then keeps the folder in sync until cancelled.
    public func run() async {
        reloadIgnoreFile()
        let watchStarted = ContinuousClock.now
        let (stream, watched) = await InotifyWatcher.shared.subscribe(root: root, filter: watchFilter)
        switch watched {
        case .success(let count):
            watchedDirectories = count
            logger.info(
                "watching", metadata: ["folder": "\(id)", "directories": "\(count)", "took": "\(ContinuousClock.now - watchStarted)"])
        case .failure(let error):
            watchError = error
            logger.error("\(error)", metadata: ["folder": "\(id)"])
        }
        do {
            let state = try index.folders.state(folder: id)
            if state.paused { await queue.setPaused(true) }
        } catch {
            logger.error("cannot read folder state", metadata: ["folder": "\(id)", "error": "\(error)"])
        }
        expireTrash()
        recoverInterruptedDownloads()
        await fullScan()
        await queue.onConflict { entries in await self.applyRemote(entries) }
        // Nothing is sent while the root is gone, replaced or suddenly empty.
        await queue.setSendGate { await self.checkRoot() }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.queue.run() }
            group.addTask { await self.writeJournal() }
            group.addTask { await self.followRemote() }
            group.addTask {
                for await message in stream { await self.handle(message) }
            }
            group.addTask { await self.rescanPeriodically() }
            group.addTask { await self.retryRemotePeriodically() }
            group.addTask { await self.watchRootIdentity() }
            await group.next()
            group.cancelAll()
        }
        for task in quietTimers.values { task.cancel() }
        deleteTimer?.cancel()
    }

    /// The safety net for what inotify does not report (mmap writes, lost
    /// watches); more often while watching failed.
    private func rescanPeriodically() async {
        while !Task.isCancelled {
            var interval = config.rescanInterval
            if watchError != nil { interval = min(interval, .seconds(30)) }
            let jitter = Double.random(in: 0.9...1.1)
            do { try await Task.sleep(for: interval * jitter) } catch { return }
            if watchError != nil { await retryWatching() }
            await fullScan()
            expireTrash()
        }
    }

    /// An unmounted disk or a replaced root sends no inotify event we can rely
    /// on: look at the root every second (a stat and one directory read).
    private func watchRootIdentity() async {
        while !Task.isCancelled {
            do { try await Task.sleep(for: .seconds(1)) } catch { return }
            _ = await checkRoot()
            await retryJournalIfNeeded()
        }
    }

    /// Downloads a kill -9 cut between recording and renaming: their records are put
    /// back, so the scan does not take the old file on disk for a local edit (which would
    /// push the previous version over the newer one, or make a conflict copy of it).
    private func recoverInterruptedDownloads() {
        let folder = FolderRoot(root)
        do {
            let restored = try index.records.recoverInterruptedDownloads(folder: id) { path in
                guard case .found(let stat) = folder.lstat(path) else { return nil }
                return stat.inode
            }
            if !restored.isEmpty {
                logger.info("downloads cut short by the last stop will be fetched again", metadata: ["folder": "\(id)", "paths": "\(restored.count)"])
            }
        } catch {
            logger.error("cannot recover interrupted downloads", metadata: ["folder": "\(id)", "error": "\(error)"])
        }
    }

    /// Files that remote deletes moved to the trash go once the retention period is over.
    private func expireTrash() {
        do {
            let removed = try trash.expire(retention: trashRetention)
            if removed > 0 { logger.info("emptied old trash", metadata: ["folder": "\(id)", "batches": "\(removed)"]) }
        } catch {
            logger.error("cannot empty old trash", metadata: ["folder": "\(id)", "error": "\(error)"])
        }
    }

    /// After a watch failure (the limit was raised meanwhile, say), watch the whole tree again.
    private func retryWatching() async {
        switch await InotifyWatcher.shared.watch(path: root) {
        case .success(let count):
            watchedDirectories = count
            watchError = nil
            logger.info("watching again", metadata: ["folder": "\(id)", "directories": "\(count)"])
        case .failure(let error):
            watchError = error
        }
    }

    public func setPaused(_ paused: Bool) async throws {
        try index.folders.setPaused(folder: id, paused)
        await queue.setPaused(paused)
    }
}
