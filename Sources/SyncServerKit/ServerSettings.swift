/// Everything the server needs to run, independent of how it was configured
/// (the `sync-server` executable converts its TOML `ServerConfig` into this).
public struct ServerSettings: Sendable, Equatable {
    /// Interface to bind, e.g. `127.0.0.1`.
    public var host: String
    /// TCP port; 0 asks the kernel for a free one (reported through `onListening`).
    public var port: Int
    /// Absolute directory holding `metadata.sqlite` and `chunks/`.
    public var dataDir: String
    /// How long superseded versions are kept in the history.
    public var retention: Duration
    /// Lifetime of the access tokens handed out by `POST /v1/auth/token`.
    public var tokenLifetime: Duration

    public init(
        host: String = "127.0.0.1",
        port: Int = 8417,
        dataDir: String,
        retention: Duration = .seconds(30 * 86_400),
        tokenLifetime: Duration = .seconds(3600)
    ) {
        self.host = host
        self.port = port
        self.dataDir = dataDir
        self.retention = retention
        self.tokenLifetime = tokenLifetime
    }

    var metadataPath: String { dataDir + "/metadata.sqlite" }
    var chunksPath: String { dataDir + "/chunks" }
}
