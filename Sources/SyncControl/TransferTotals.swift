/// Files and bytes a folder moved since the daemon started (extension of the status).
public struct TransferTotals: Codable, Sendable, Equatable {
    public var filesUploaded: Int
    public var bytesUploaded: Int64
    public var filesDownloaded: Int
    public var bytesDownloaded: Int64

    public init(filesUploaded: Int = 0, bytesUploaded: Int64 = 0, filesDownloaded: Int = 0, bytesDownloaded: Int64 = 0) {
        self.filesUploaded = filesUploaded
        self.bytesUploaded = bytesUploaded
        self.filesDownloaded = filesDownloaded
        self.bytesDownloaded = bytesDownloaded
    }

    enum CodingKeys: String, CodingKey {
        case filesUploaded = "files_uploaded"
        case bytesUploaded = "bytes_uploaded"
        case filesDownloaded = "files_downloaded"
        case bytesDownloaded = "bytes_downloaded"
    }
}

/// A file whose transfer finished: committed on the server ("upload") or in place here
/// ("download"); `bytes` is the file's size (extension of the status).
public struct CompletedTransfer: Codable, Sendable, Equatable {
    public var path: String
    public var direction: String
    public var bytes: Int64
    /// ISO 8601.
    public var at: String

    public init(path: String, direction: String, bytes: Int64, at: String) {
        self.path = path
        self.direction = direction
        self.bytes = bytes
        self.at = at
    }
}
