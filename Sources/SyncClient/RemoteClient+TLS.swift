import AsyncHTTPClient
import NIOSSL

extension RemoteClient {
    /// Timeouts shared by every client of the process (see `sharedHTTP`).
    static var baseConfiguration: HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration()
        configuration.timeout.connect = .seconds(5)
        // A connection that cannot be made fails every request waiting for a connection to
        // that server at once (those running on other connections go on), and the next
        // request connects afresh. The pool's own retries back off up to 60 s and count every
        // refusal of an outage: a server back after a minute away was reached only after the
        // pool's backoff (tens of seconds) on top of the engine's. The engine's backoff decides.
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.timeout.read = .seconds(90)
        // A connection left idle is closed here before sync-server closes it (its idle timeout
        // is 10 s): a request sent on one the server was closing at that moment failed with
        // "remote connection closed" (a CI run; the pool's default keeps idle ones 60 s).
        configuration.connectionPool.idleTimeout = .seconds(5)
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.minimumTLSVersion = .tlsv12
        configuration.tlsConfiguration = tls
        return configuration
    }

    /// A client like `sharedHTTP` that trusts, for https, only the certificate
    /// authorities in the PEM file `caFile` (a private CA, a self-signed server)
    /// instead of the system's store. TLS 1.2 at least; host names are checked.
    public static func makeHTTPClient(trusting caFile: String) throws(RemoteError) -> HTTPClient {
        let roots: [NIOSSLCertificate]
        do {
            roots = try NIOSSLCertificate.fromPEMFile(caFile)
        } catch {
            throw RemoteError(
                kind: .permanent, code: "ca_file", message: "cannot read the certificate authorities in \(caFile)",
                underlying: "\(error)")
        }
        guard !roots.isEmpty else {
            throw RemoteError(kind: .permanent, code: "ca_file", message: "\(caFile) holds no PEM certificate")
        }
        var configuration = baseConfiguration
        configuration.tlsConfiguration?.trustRoots = .certificates(roots)
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }

    /// A TLS failure (certificate not trusted, wrong host, handshake refused), said as such:
    /// "server not reachable" would send a person looking for a network problem.
    static func tlsFailure(_ error: any Error) -> RemoteError? {
        guard error is NIOSSLError || error is BoringSSLError || error is NIOSSLExtraError else { return nil }
        return RemoteError(
            kind: .transient, code: "tls",
            message: "the TLS connection to the server failed (is its certificate trusted? see ca_file)",
            underlying: "\(error)")
    }
}
