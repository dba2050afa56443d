/// `GET /v1/folders/{folder}/changes?since=N&wait=S&limit=L`: entries with rev > since, oldest first.
public struct ChangesResponse: Codable, Sendable {
    public var entries: [WireEntry]
    /// Pass as `since` next time.
    public var cursor: Int64
    public var hasMore: Bool
    /// The folder's latest revision when the page was read (extension; nil from an older
    /// server). `syncctl wait` waits for the cursor to reach it.
    public var head: Int64?

    public init(entries: [WireEntry], cursor: Int64, hasMore: Bool, head: Int64? = nil) {
        self.entries = entries
        self.cursor = cursor
        self.hasMore = hasMore
        self.head = head
    }

    enum CodingKeys: String, CodingKey {
        case entries, cursor, head
        case hasMore = "has_more"
    }
}

/// Every non-2xx answer carries `{"error": {"code": ..., "message": ...}}`.
public struct ErrorBody: Codable, Sendable {
    public struct Detail: Codable, Sendable {
        public var code: String
        public var message: String
        public init(code: String, message: String) {
            self.code = code
            self.message = message
        }
    }
    public var error: Detail
    public init(code: String, message: String) { self.error = Detail(code: code, message: message) }
}
