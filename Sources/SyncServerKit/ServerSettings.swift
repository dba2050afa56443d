import Logging
import ObjectStorage

/// Everything the server needs to run, independent of how it was configured
/// (the `sync-server` executable converts its TOML `ServerConfig` into this).
public struct ServerSettings: Sendable, Equatable {
    /// Interface to bind, e.g. `127.0.0.1`.
    public var host: String
    /// TCP port; 0 asks the kernel for a free one (reported through `onListening`).
    public var port: Int
    /// Absolute directory holding `metadata.sqlite` and `packs/` (and `chunks/`, the chunk
    /// files of data directories written before packs, until they are imported).
    public var dataDir: String
    /// How long superseded versions are kept in the history.
    public var retention: Duration
    /// Lifetime of the access tokens handed out by `POST /v1/auth/token`.
    public var tokenLifetime: Duration
    /// A connection that sends nothing for this long while a request is being
    /// read (a stalled or short body), or between requests, is closed.
    public var idleTimeout: Duration
    /// Requests one device may have in progress at once (long-polls included);
    /// more are answered `429 too_many_requests`.
    public var maxRequestsPerDevice: Int
    /// A sealed pack whose live fraction (live chunks' bytes / pack size) is below this is
    /// rewritten by compaction; 0 rewrites none (packs with no live chunk are still deleted).
    public var compactBelow: Double
    /// PEM certificate chain and private key: serve https (nil: plain http).
    public var tls: TLSFiles?
    /// Where sealed packs are kept: `data_dir/packs`, or a bucket.
    public var blobs: Blobs = .filesystem
    public var metadata: Metadata = .sqlite

    /// Where the metadata lives: SQLite in the data directory (the embedded default), or a
    /// PostgreSQL database several instances may share.
    public enum Metadata: Sendable, Equatable, CustomStringConvertible {
        case sqlite
        case postgres(PostgresLocation)

        public var description: String {
            switch self {
            case .sqlite: return "SQLite in the data directory"
            case .postgres(let location): return location.description
            }
        }
    }

    public enum Blobs: Sendable, Equatable, CustomStringConvertible {
        case filesystem
        /// Packs as objects under the location's prefix (`packs/<id>.pack`).
        case s3(S3Location, S3Credentials)

        public var description: String {
            switch self {
            case .filesystem: return "the data directory"
            case .s3(let location, _): return "\(location.description) at \(location.endpoint)"
            }
        }
    }

    public struct TLSFiles: Sendable, Equatable {
        public var certificate: String
        public var key: String
        public init(certificate: String, key: String) {
            self.certificate = certificate
            self.key = key
        }
    }

    public init(
        host: String = "127.0.0.1",
        port: Int = 8417,
        dataDir: String,
        retention: Duration = .seconds(30 * 86_400),
        tokenLifetime: Duration = .seconds(3600),
        idleTimeout: Duration = .seconds(10),
        maxRequestsPerDevice: Int = 64,
        compactBelow: Double = 0.5,
        tls: TLSFiles? = nil,
        blobs: Blobs = .filesystem
    ) {
        self.blobs = blobs
        self.tls = tls
        self.host = host
        self.port = port
        self.dataDir = dataDir
        self.retention = retention
        self.tokenLifetime = tokenLifetime
        self.idleTimeout = idleTimeout
        self.maxRequestsPerDevice = maxRequestsPerDevice
        self.compactBelow = compactBelow
    }

    var metadataPath: String { dataDir + "/metadata.sqlite" }
    /// Where chunk files were kept before packs (imported into packs at start).
    var chunksPath: String { dataDir + "/chunks" }
    var packsPath: String { dataDir + "/packs" }

    /// The client of the bucket packs are kept in; nil for the filesystem.
    var objectStore: S3Client? {
        guard case .s3(let location, let credentials) = blobs else { return nil }
        return S3Client(location: location, credentials: credentials)
    }

    /// The chunk store these settings describe (not yet recovered).
    func openChunkStore(index: any ChunkIndexBackend, logger: Logger) async throws -> ChunkStore {
        try await ChunkStore.open(
            packsDir: packsPath, legacyRoot: chunksPath, index: index, rotateAt: packRotationBytes,
            objectStore: objectStore, logger: logger)
    }

    /// Opens the metadata store `metadata` names (migrating it) and its chunk index.
    func openMetadata(logger: Logger) async throws -> OpenedMetadata {
        switch metadata {
        case .sqlite:
            let store = try MetadataStore(path: metadataPath)
            return OpenedMetadata(store: store, index: ChunkIndex(pool: store.pool), postgres: nil)
        case .postgres(let location):
            let store = try await PostgresMetadataStore.open(location, logger: logger)
            return OpenedMetadata(store: store, index: PostgresChunkIndex(store: store), postgres: store)
        }
    }
    /// A pack is sealed once the next upload would take it past this (tests make it small).
    var packRotationBytes: Int64 = ChunkStore.defaultRotation
}

/// A metadata store as opened for a server or an admin command.
struct OpenedMetadata: Sendable {
    let store: any MetadataBackend
    let index: any ChunkIndexBackend
    /// Set with PostgreSQL: its connections are closed by `close()`.
    let postgres: PostgresMetadataStore?

    /// The SQLite store, for the tools that work on its file (copy, check); nil with PostgreSQL.
    var sqlite: MetadataStore? { store as? MetadataStore }

    func close() async { await postgres?.shutdown() }
}
