/// Answer of `deletes`: the paths each folder's held delete wave would delete.
public struct DeletesReply: Codable, Sendable, Equatable {
    public struct Folder: Codable, Sendable, Equatable {
        public var id: String
        /// Sorted.
        public var paths: [String]
        public init(id: String, paths: [String]) {
            self.id = id
            self.paths = paths
        }
    }

    public var folders: [Folder]
    public init(folders: [Folder]) { self.folders = folders }
}

/// Answer of `reject-deletes`: held deletes dropped, and how many of their paths were
/// brought back from the server (the others are gone there too).
public struct RejectReply: Codable, Sendable, Equatable {
    public var folders: [String]
    public var rejected: Int
    public var restored: Int
    public init(folders: [String], rejected: Int, restored: Int) {
        self.folders = folders
        self.rejected = rejected
        self.restored = restored
    }
}
