import Foundation
import Inotify
import SyncControl

/// `syncctl wait`: returns once every local change made before the call is committed and
/// every remote change the server had then is applied, or says why not (see `WaitJudge`).
extension FolderEngine {
    static let waitPollInterval: Duration = .milliseconds(50)

    func waitUntilSynced(timeout: Duration) async -> FolderWaitResult {
        let started = ContinuousClock.now
        let conflictsBefore: Int
        do { conflictsBefore = try index.conflicts.count(folder: id) } catch {
            return FolderWaitResult(id: id, outcome: .error, message: "cannot read the index: \(error)", remoteCursor: 0)
        }
        let judge = WaitJudge(conflictsBefore: conflictsBefore, remoteTarget: await serverHead(within: min(timeout, .seconds(5))))
        let token = barriers.issue()
        var localSeen = false
        if await !InotifyWatcher.shared.barrier(root: root, token: token) {
            // Not watching (or the event buffer is full, a rescan is coming): a scan sees all.
            await scanner.fullScan()
            localSeen = true
        }
        var reason = "starting"
        while true {
            localSeen = localSeen || barriers.consume(token)
            let status: FolderStatus
            do { status = try await self.status() } catch {
                return FolderWaitResult(id: id, outcome: .error, message: "cannot read the status: \(error)", remoteCursor: 0)
            }
            var verdict = judge.judge(status, localSeen: localSeen)
            if case .notYet(let why) = verdict {
                reason = why
                if ContinuousClock.now - started >= timeout {
                    verdict = WaitJudge.timedOut(after: (ContinuousClock.now - started).timeInterval, state: status.state, reason: reason)
                }
            }
            if case .done(let outcome, let message) = verdict {
                return FolderWaitResult(id: id, outcome: outcome, message: message, remoteCursor: status.remoteCursor)
            }
            do { try await Task.sleep(for: Self.waitPollInterval) } catch {
                return FolderWaitResult(id: id, outcome: .timeout, message: "cancelled: \(reason)", remoteCursor: status.remoteCursor)
            }
        }
    }

    /// The server's latest revision of the folder, unless it is known to be away or does not
    /// answer within `limit` (the wait then goes by what the feed knows).
    private func serverHead(within limit: Duration) async -> Int64? {
        guard await feed.status.feedError == nil, await queue.offlineError == nil else { return nil }
        return await withTaskGroup(of: Int64?.self) { [feed] group in
            group.addTask { await feed.serverHead() }
            group.addTask {
                do { try await Task.sleep(for: limit) } catch { /* cancelled: the head came first */ }
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }
}
