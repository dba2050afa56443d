import Glibc
import ObjectStorage

/// What `GET /v1/ready` checks before saying the server can do its job: the metadata
/// database answers a read, and the pack directory is a directory the server may write
/// (uploads append there). `/v1/health` only says the process answers.
struct ReadinessCheck: Sendable {
    let metadata: any MetadataBackend
    let packsDir: String
    /// The bucket packs are kept in, if they are: it must answer too.
    var objectStore: S3Client?

    /// A store that is not usable: `store` is all the unauthenticated 503 says; `detail`
    /// (paths, errors) is for the operator's log.
    struct Problem: Sendable {
        var store: String
        var detail: String
    }

    /// Nil when ready.
    func problem() async -> Problem? {
        do {
            try await metadata.ping()
        } catch {
            return Problem(store: "the metadata database does not answer", detail: "\(error)")
        }
        let chunkStore = "the chunk store is not usable"
        var info = stat()
        guard stat(packsDir, &info) == 0 else {
            return Problem(store: chunkStore, detail: "\(packsDir) is not there: \(String(cString: strerror(errno)))")
        }
        guard info.st_mode & S_IFMT == S_IFDIR else { return Problem(store: chunkStore, detail: "\(packsDir) is not a directory") }
        guard access(packsDir, W_OK | X_OK) == 0 else {
            return Problem(store: chunkStore, detail: "\(packsDir) is not writable: \(String(cString: strerror(errno)))")
        }
        if var objectStore {
            objectStore.attempts = 1
            objectStore.timeout = .seconds(5)
            do {
                try await objectStore.checkBucket()
            } catch {
                return Problem(store: "the object store does not answer", detail: "\(error)")
            }
        }
        return nil
    }
}
