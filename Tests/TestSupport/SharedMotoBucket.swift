import Foundation

/// One bucket on one moto server for a whole test process: the end-to-end pass in which every
/// server keeps its packs in S3 (`SYNCD_TEST_SERVER_BLOBS=s3`, each server under a prefix of
/// its own). Started on first use; a watchdog shell that moto runs under kills it when this
/// process ends, however it ends.
public struct SharedMotoBucket: Sendable {
    public let endpoint: String
    public let name: String

    private static let started = StartedOnce { try start() }

    /// The process's bucket, made on first use (blocking, a few seconds once; a start that
    /// failed is not tried again).
    public static func shared() throws -> SharedMotoBucket { try started.get() }

    static func start() throws -> SharedMotoBucket {
        let port = try freePort()
        let log = NSTemporaryDirectory() + "syncd-test-moto-\(UUID().uuidString.prefix(8)).log"
        let script = """
            python3 -m moto.server -H 127.0.0.1 -p \(port) >\(PostgresServer.quoted(log)) 2>&1 &
            moto=$!
            while kill -0 \(getpid()) 2>/dev/null && kill -0 $moto 2>/dev/null; do sleep 0.5; done
            kill -9 $moto 2>/dev/null
            rm -f \(PostgresServer.quoted(log))
            """
        try DetachedShell.start(script)
        let deadline = ContinuousClock.now + .seconds(30)
        while !MotoServer.canConnect(port: port) {
            guard ContinuousClock.now < deadline else {
                let said = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
                throw TestFailure(
                    "moto's server did not listen on \(port) within 30 s (is moto[server] installed? scripts/install-deps.sh "
                        + "installs it): \(said.suffix(600))")
            }
            usleep(50_000)
        }
        let bucket = SharedMotoBucket(endpoint: "http://127.0.0.1:\(port)", name: "e2e-\(UInt32.random(in: 0...UInt32.max))")
        // moto does not check signatures: a plain PUT makes the bucket.
        try PostgresServer.run("/usr/bin/env", [
            "python3", "-c",
            "import urllib.request as u; u.urlopen(u.Request('\(bucket.endpoint)/\(bucket.name)', method='PUT'), timeout=30)",
        ])
        return bucket
    }

    /// `blobs = …` for a server's `[storage]` table, under `prefix`.
    public func blobsLine(prefix: String) -> String { "blobs = \"s3://\(name)/\(prefix)\"" }

    /// The `[storage.s3]` table that goes with it.
    public var s3Table: String {
        """
        [storage.s3]
        endpoint = "\(endpoint)"
        access_key_id = "\(MotoServer.accessKeyID)"
        secret_access_key = "\(MotoServer.secretAccessKey)"
        """
    }
}
