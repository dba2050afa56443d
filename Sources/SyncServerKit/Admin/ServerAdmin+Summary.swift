import Foundation

/// What `sync-server status` and `folder remove` say about the server's data.
extension ServerAdmin {
    public struct FolderSummary: Sendable, Equatable, Codable {
        public var id: String
        /// The folder's newest revision.
        public var rev: Int64
        /// Live files (not directories, not deleted) and their bytes.
        public var files: Int
        public var bytes: Int64
        /// Names of the devices granted it that are not revoked.
        public var devices: [String]
    }

    public struct Summary: Sendable, Equatable, Codable {
        public var folders: [FolderSummary]
        public var devices: Int
        public var revokedDevices: Int
        /// Chunks indexed and packs known, with the packs' bytes (what the blob store holds).
        public var chunks: Int
        public var packs: Int
        public var packBytes: Int64
    }

    public func summary() async throws -> Summary { try await metadata.summary() }

    /// Deletes a folder with everything the server holds of it: its entries, its history,
    /// its grants and remembered commit replies (its chunks are collected by the next storage
    /// rounds once nothing else references them). Devices keep their copies. Returns what it held.
    public func removeFolder(_ id: String) async throws -> FolderSummary {
        try Identifiers.validateFolderID(id)
        guard let folder = try await summary().folders.first(where: { $0.id == id }) else {
            throw APIError.notFound("no folder '\(id)'")
        }
        guard try await metadata.removeFolder(id) else { throw APIError.notFound("no folder '\(id)'") }
        return folder
    }
}
