import Foundation

/// A throwaway certificate authority and a server certificate it signed for
/// 127.0.0.1 and localhost (EC P-256, valid two days), made with the openssl CLI.
public struct TestCertificates: Sendable {
    public let caFile: String
    public let serverCertificate: String
    public let serverKey: String

    public init(dir: String) throws {
        caFile = dir + "/ca.pem"
        serverCertificate = dir + "/server.pem"
        serverKey = dir + "/server.key"
        let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try Self.openssl(["req", "-x509"] + ec + ["-keyout", dir + "/ca.key", "-out", caFile, "-days", "2", "-subj", "/CN=syncd test CA"])
        try Self.openssl(["req"] + ec + ["-keyout", serverKey, "-out", dir + "/server.csr", "-subj", "/CN=127.0.0.1"])
        try "subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n".write(toFile: dir + "/server.ext", atomically: true, encoding: .utf8)
        try Self.openssl([
            "x509", "-req", "-in", dir + "/server.csr", "-CA", caFile, "-CAkey", dir + "/ca.key", "-CAcreateserial",
            "-out", serverCertificate, "-days", "2", "-extfile", dir + "/server.ext",
        ])
    }

    private static func openssl(_ arguments: [String]) throws {
        try PostgresServer.run("/usr/bin/openssl", arguments)
    }
}
