/// Answer of `GET /v1/history?path=P`: the server's versions of one path, newest first.
public struct HistoryReply: Codable, Sendable, Equatable {
    public struct Version: Codable, Sendable, Equatable {
        public var rev: Int64
        /// ISO 8601; nil from a server that does not say.
        public var committedAt: String?
        /// The committing device's name (its id when the server gives no name).
        public var device: String?
        public var kind: String
        public var size: Int64
        public var deleted: Bool

        public init(rev: Int64, committedAt: String?, device: String?, kind: String, size: Int64, deleted: Bool) {
            self.rev = rev
            self.committedAt = committedAt
            self.device = device
            self.kind = kind
            self.size = size
            self.deleted = deleted
        }

        enum CodingKeys: String, CodingKey {
            case rev, device, kind, size, deleted
            case committedAt = "committed_at"
        }
    }

    public var folder: String
    public var path: String
    public var versions: [Version]

    public init(folder: String, path: String, versions: [Version]) {
        self.folder = folder
        self.path = path
        self.versions = versions
    }
}
