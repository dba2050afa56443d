/// One remote application at a time: the feed, retries and conflict answers take turns
/// (each waits for the one before it; every waiter is let in exactly once, in order).
struct ApplyTurns: Sendable {
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    /// Whether the caller may go at once; else it is queued with `continuation`.
    mutating func request(_ continuation: CheckedContinuation<Void, Never>) {
        if busy {
            waiting.append(continuation)
        } else {
            busy = true
            continuation.resume()
        }
    }

    /// The turn ends: the next waiter (if any) goes.
    mutating func leave() {
        if waiting.isEmpty {
            busy = false
        } else {
            waiting.removeFirst().resume()
        }
    }
}
