/// `GET /v1/folders/{folder}/history?path=P`: the path's versions, newest first.
public struct HistoryResponse: Codable, Sendable {
    public var versions: [WireEntry]
    public init(versions: [WireEntry]) { self.versions = versions }
}
