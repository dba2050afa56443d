import Foundation
import Inotify

extension FolderEngine {
    /// Looks at the root before anything is sent or applied (and every second):
    /// gone or replaced pauses the folder (`rootGone`, shown in status); back as
    /// it was resumes it, with a rescan. Returns whether syncing may go on.
    func checkRoot() async -> Bool {
        let look = RootLook.look(at: root)
        let problem = look.problem(root: root, adopted: adoptedRoot)
        if let problem {
            if rootGone != problem {
                logger.error("\(problem.message)", metadata: ["folder": "\(id)"])
                rootGone = problem
            }
            return false
        }
        if rootGone != nil {
            rootGone = nil
            logger.info("folder root is back; rescanning", metadata: ["folder": "\(id)"])
            if case .failure(let error) = await InotifyWatcher.shared.watch(path: root) { watchError = error }
            requestRescan(reason: "the folder root is back")
        }
        return rootProblem == nil
    }

    /// After a good full scan: the root as it is now is the one synced from here on
    /// (a root that was never scanned well, e.g. an empty mount point, is not adopted).
    func adoptRootIfNeeded() {
        guard adoptedRoot == nil, case .directory(let identity) = RootLook.look(at: root) else { return }
        adoptedRoot = identity
        applier.materializer.folder.pin?.set(identity)
    }

    /// What keeps the folder from syncing, if anything (root gone or a failed scan).
    var rootTrouble: String? { rootGone?.message ?? rootProblem }
}
