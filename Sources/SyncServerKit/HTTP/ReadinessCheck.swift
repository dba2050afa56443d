import Glibc

/// What `GET /v1/ready` checks before saying the server can do its job: the metadata
/// database answers a read, and the pack directory is a directory the server may write
/// (uploads append there). `/v1/health` only says the process answers.
struct ReadinessCheck: Sendable {
    let metadata: MetadataStore
    let packsDir: String

    /// Nil when ready; else what is wrong, for a person (and the 503's message).
    func problem() async -> String? {
        do {
            try await metadata.ping()
        } catch {
            return "the metadata database does not answer: \(error)"
        }
        var info = stat()
        guard stat(packsDir, &info) == 0 else {
            return "the chunk store \(packsDir) is not there: \(String(cString: strerror(errno)))"
        }
        guard info.st_mode & S_IFMT == S_IFDIR else { return "the chunk store \(packsDir) is not a directory" }
        guard access(packsDir, W_OK | X_OK) == 0 else {
            return "the chunk store \(packsDir) is not writable: \(String(cString: strerror(errno)))"
        }
        return nil
    }
}
