import Foundation

extension FolderScanner {
    /// Looks at the root before anything is sent or applied (and every second):
    /// gone or replaced pauses the folder (`problems.rootGone`, shown in status); back as
    /// it was resumes it, with a rescan. Returns whether syncing may go on.
    func checkRoot() async -> Bool {
        let look = RootLook.look(at: root)
        if let problem = look.problem(root: root, adopted: adoptedRoot) {
            if problems.rootGone != problem {
                logger.error("\(problem.message)", metadata: ["folder": "\(folder)"])
                problems.rootGone = problem
            }
            return false
        }
        if problems.rootGone != nil {
            problems.rootGone = nil
            logger.info("folder root is back; rescanning", metadata: ["folder": "\(folder)"])
            await watch.rewatch()
            requestRescan(reason: "the folder root is back")
        }
        return problems.rootProblem == nil
    }

    /// inotify says the root itself went away.
    func rootRemoved() {
        problems.rootGone = RootTrouble(
            kind: .missing, message: "folder root \(root) was removed or moved away; syncing paused, nothing is deleted")
        logger.error("folder root gone", metadata: ["folder": "\(folder)"])
    }

    /// After a good full scan: the root as it is now is the one synced from here on
    /// (a root that was never scanned well, e.g. an empty mount point, is not adopted).
    func adoptRootIfNeeded() {
        guard adoptedRoot == nil, case .directory(let identity) = RootLook.look(at: root) else { return }
        adoptedRoot = identity
        pin?.set(identity)
    }
}
