import Glibc
import ServiceSupport

/// The lock of a data directory (`data_dir/lock`, a `ProcessLock`): held by `sync-server
/// serve` for as long as it runs and by `sync-server storage gc`, so neither starts while
/// the other uses the directory (two processes appending packs or compacting them would
/// corrupt the store).
public final class DataDirectoryLock: Sendable {
    let lock: ProcessLock
    public let path: String

    private init(lock: ProcessLock, path: String) {
        self.lock = lock
        self.path = path
    }

    /// Takes the lock of `dataDir` (created if missing) for `purpose` (e.g. "serve"), or
    /// throws an error naming the process that holds it.
    public static func acquire(dataDir: String, purpose: String) throws -> DataDirectoryLock {
        try DataDirectory.create(dataDir)
        let path = dataDir + "/lock"
        do {
            return DataDirectoryLock(lock: try ProcessLock.acquire(path: path, note: "pid \(getpid()) (\(purpose))"), path: path)
        } catch {
            switch error {
            case .held(let who):
                throw APIError.invalidArgument(
                    "\(dataDir) is in use by another sync-server process (\(who.isEmpty ? "unknown" : who)): "
                        + "stop it first (a running server collects garbage by itself)")
            case .system(let operation, let code):
                throw APIError.internalError("cannot \(operation) \(path): \(POSIX.errorText(code))")
            }
        }
    }
}
