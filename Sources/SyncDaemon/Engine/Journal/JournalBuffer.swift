import Foundation

/// The local changes `JournalWriter` holds: what arrives while a transaction is being
/// written goes into the next one.
struct JournalBuffer: Sendable {
    private(set) var requests: [JournalRequest] = []
    /// Paths queued here or in the transaction being written: pending, for the status.
    private(set) var paths = 0
    private var writing = 0

    var isEmpty: Bool { requests.isEmpty }

    mutating func append(_ request: JournalRequest) {
        guard !request.paths.isEmpty else { return }
        requests.append(request)
        paths += request.paths.count
    }

    /// Everything queued so far, now being written.
    mutating func take() -> [JournalRequest] {
        let taken = requests
        requests.removeAll()
        writing = taken.reduce(0) { $0 + $1.paths.count }
        return taken
    }

    /// The transaction holding what `take` returned is written (or failed).
    mutating func written() {
        paths -= writing
        writing = 0
    }
}
