import HummingbirdCore
import HummingbirdTLS
import NIOCore
import NIOSSL

extension SyncServer {
    /// HTTP/1.1 with the settings' idle timeout, wrapped in TLS when a certificate
    /// chain and key are configured. Unreadable or mismatched PEM files stop the start
    /// with a message naming the file.
    static func makeHTTPServer(_ settings: ServerSettings) throws -> HTTPServerBuilder {
        let idle = TimeAmount.nanoseconds(
            settings.idleTimeout.components.seconds * 1_000_000_000 + settings.idleTimeout.components.attoseconds / 1_000_000_000)
        let http1 = HTTPServerBuilder.http1(configuration: .init(idleTimeout: idle))
        guard let tls = settings.tls else { return http1 }
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMFile(tls.certificate)
        } catch {
            throw APIError.internalError("cannot read the TLS certificate chain \(tls.certificate): \(error)", cause: error)
        }
        guard !chain.isEmpty else {
            throw APIError.internalError("the TLS certificate file \(tls.certificate) holds no PEM certificate", cause: nil)
        }
        let key: NIOSSLPrivateKey
        do {
            key = try NIOSSLPrivateKey(file: tls.key, format: .pem)
        } catch {
            throw APIError.internalError("cannot read the TLS private key \(tls.key): \(error)", cause: error)
        }
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        configuration.minimumTLSVersion = .tlsv12
        do {
            // Built here once so that a key that does not belong to the certificate stops the
            // start with this message (HummingbirdTLS would build it only when serving).
            _ = try NIOSSLContext(configuration: configuration)
            return try .tls(http1, tlsConfiguration: configuration)
        } catch {
            throw APIError.internalError(
                "cannot use the TLS certificate \(tls.certificate) with the key \(tls.key) (do they belong together?): \(error)",
                cause: error)
        }
    }
}
