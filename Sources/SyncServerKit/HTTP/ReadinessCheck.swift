import Glibc

/// What `GET /v1/ready` checks before saying the server can do its job: the metadata
/// database answers a read, and the pack directory is a directory the server may write
/// (uploads append there). `/v1/health` only says the process answers.
struct ReadinessCheck: Sendable {
    let metadata: MetadataStore
    let packsDir: String

    /// Nil when ready; else what is wrong, for the operator's log (the unauthenticated 503
    /// names only the store, see `publicMessage`).
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

    /// What the 503 says: which store, without paths or error text.
    static func publicMessage(for problem: String) -> String {
        problem.contains("metadata") ? "the metadata database does not answer" : "the chunk store is not usable"
    }
}
