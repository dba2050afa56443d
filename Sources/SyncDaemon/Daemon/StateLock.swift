import Glibc
import ServiceSupport

/// One daemon per state directory: `state_dir/syncd.lock` (a `ProcessLock`), taken before
/// the index, the journal or the control socket is opened and held until the process
/// ends; a second daemon exits naming the first one's pid, having touched nothing else.
enum StateLock {
    static let fileName = "syncd.lock"

    static func acquire(stateDir: String) throws(DaemonError) -> ProcessLock {
        let path = stateDir + "/" + fileName
        do {
            return try ProcessLock.acquire(path: path, note: "pid \(getpid())")
        } catch {
            switch error {
            case .held(let holder):
                let who = holder.isEmpty ? "" : "(\(holder)) "
                throw DaemonError(
                    .stateDirectoryInUse,
                    "another syncd \(who)is already using the state directory \(stateDir); stop it first, "
                        + "or give this one its own state_dir")
            case .system(let operation, let code):
                throw DaemonError(.stateDirectory, "cannot \(operation) the lock file \(path): \(String(cString: strerror(code)))")
            }
        }
    }
}
