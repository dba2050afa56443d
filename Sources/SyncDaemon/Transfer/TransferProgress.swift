/// Bytes moved per path while a transfer runs, for `syncctl status`.
public actor TransferProgress {
    public struct Item: Sendable, Equatable {
        public var path: String
        public var direction: String
        public var done: Int64
        public var total: Int64
    }

    private var items: [String: Item] = [:]
    /// What finished (totals and the last files): recorded without waiting for the actor.
    public nonisolated let tally = TransferTally()

    public init() {}

    func begin(path: String, direction: String, total: Int64) {
        items[path] = Item(path: path, direction: direction, done: 0, total: total)
    }

    /// Many transfers at once (a batch of small downloads): one hop to the actor, not one a file.
    func begin(_ transfers: [(path: String, total: Int64)], direction: String) {
        for (path, total) in transfers { items[path] = Item(path: path, direction: direction, done: 0, total: total) }
    }

    /// Transfers whose bytes are all there (a batch's staged files).
    func complete(_ paths: [String]) {
        for path in paths {
            guard var item = items[path] else { continue }
            item.done = item.total
            items[path] = item
        }
    }

    func advance(path: String, by bytes: Int64) {
        items[path]?.done += bytes
    }

    func end(paths: some Sequence<String>) {
        for path in paths { items[path] = nil }
    }

    public func snapshot() -> [Item] { items.values.sorted { $0.path < $1.path } }
}
