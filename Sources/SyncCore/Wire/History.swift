/// `GET /v1/folders/{folder}/history?path=P`: the path's versions, newest first.
public struct HistoryResponse: Codable, Sendable {
    public var versions: [WireEntry]
    /// When and by which device each version was committed, in the order of `versions`
    /// (an extension; nil from an older server).
    public var provenance: [VersionProvenance]?

    public init(versions: [WireEntry], provenance: [VersionProvenance]? = nil) {
        self.versions = versions
        self.provenance = provenance
    }
}

/// When and by whom one version was committed.
public struct VersionProvenance: Codable, Sendable, Equatable {
    public var rev: Int64
    /// Unix seconds.
    public var committedAt: Int64
    /// The committing device's name (nil when the device is gone).
    public var deviceName: String?

    public init(rev: Int64, committedAt: Int64, deviceName: String?) {
        self.rev = rev
        self.committedAt = committedAt
        self.deviceName = deviceName
    }

    enum CodingKeys: String, CodingKey {
        case rev
        case committedAt = "committed_at"
        case deviceName = "device_name"
    }
}
