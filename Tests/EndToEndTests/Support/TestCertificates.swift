import Foundation
import TestSupport

/// A throwaway certificate authority and a server certificate it signed for
/// 127.0.0.1 and localhost (EC P-256, valid two days), made with the openssl CLI.
struct TestCertificates: Sendable {
    let caFile: String
    let serverCertificate: String
    let serverKey: String

    init(dir: String) throws {
        caFile = dir + "/ca.pem"
        serverCertificate = dir + "/server.pem"
        serverKey = dir + "/server.key"
        let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try Self.openssl(["req", "-x509"] + ec + ["-keyout", dir + "/ca.key", "-out", caFile, "-days", "2", "-subj", "/CN=syncd test CA"])
        try Self.openssl(["req"] + ec + ["-keyout", serverKey, "-out", dir + "/server.csr", "-subj", "/CN=127.0.0.1"])
        try writeFile(dir + "/server.ext", "subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n")
        try Self.openssl([
            "x509", "-req", "-in", dir + "/server.csr", "-CA", caFile, "-CAkey", dir + "/ca.key", "-CAcreateserial",
            "-out", serverCertificate, "-days", "2", "-extfile", dir + "/server.ext",
        ])
    }

    private static func openssl(_ arguments: [String]) throws {
        let run = try Process.capture("/usr/bin/openssl", arguments)
        guard run.status == 0 else { throw TestFailure("openssl \(arguments.joined(separator: " ")): \(run.err)") }
    }
}
