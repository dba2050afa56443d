import Foundation
import SyncClient
import Testing
import TestSupport

/// https end to end: a server with a certificate from a CA the test made, a device that
/// trusts that CA through `ca_file`, and one that does not (it must refuse the server
/// and send nothing).
@Suite(.serialized, .timeLimit(.minutes(8)))
struct TLSTests {
    @Test func aDeviceSyncsOverHTTPSAndRefusesAServerItCannotVerify() async throws {
        let tmp = try TemporaryDirectory("tls")
        defer { tmp.remove() }
        let certificates = try TestCertificates(dir: try tmp.sub("certs"))
        let server = try ServerProcess(dir: try tmp.sub("server"), tls: certificates)
        let credential = try await server.provision(folder: "docs", device: "laptop")
        let stranger = try await server.admin(["device", "add", "--name", "stranger", "--folder", "docs"])
        try await server.start()
        defer { server.stop() }
        #expect(server.url.hasPrefix("https://"))

        // Trusting the CA: files go up over TLS.
        let trusting = try DaemonProcess(
            dir: try tmp.sub("trusting"), folderID: "docs", serverURL: server.url, credential: credential,
            extraServerConfig: "ca_file = \"\(certificates.caFile)\"")
        try await trusting.start()
        defer { trusting.stop() }
        try writeFile(trusting.path("a.txt"), "over tls\n")
        let client = server.client(credential: credential)
        try await eventually("a.txt on the server") {
            try await client.tree(folder: "docs")["a.txt"]?.contentHash == contentHash("over tls\n")
        }

        // Not trusting it (the system store does not know the test CA): nothing is sent,
        // and the status says why.
        let refusing = try DaemonProcess(
            dir: try tmp.sub("refusing"), folderID: "docs", serverURL: server.url, credential: stranger)
        try await refusing.start(waitUntilRunning: false)
        defer { refusing.stop() }
        try writeFile(refusing.path("b.txt"), "must not arrive\n")
        var last = ""
        try await eventually("the untrusting device reports the TLS failure") {
            guard let status = try await refusing.status() else { return false }
            last = "\(status.state) \(status.errors)"
            return status.state == .offline && status.errors.contains { $0.message.contains("TLS") }
        }
        #expect(try await client.tree(folder: "docs")["b.txt"] == nil, "\(last)")
        #expect(refusing.log.contains("certificate"), "the log keeps the cause")
    }

    /// A key that does not belong to the certificate stops the start, naming both files.
    @Test func aMismatchedKeyStopsTheServerWithAMessage() async throws {
        let tmp = try TemporaryDirectory("tls-mismatch")
        defer { tmp.remove() }
        let one = try TestCertificates(dir: try tmp.sub("one"))
        let other = try TestCertificates(dir: try tmp.sub("other"))
        let config = tmp.path + "/server.toml"
        try writeFile(config, """
            [server]
            listen = "127.0.0.1:0"
            data_dir = "\(tmp.path)/data"
            tls_cert = "\(one.serverCertificate)"
            tls_key = "\(other.serverKey)"
            """)
        let run = try await Child.runToExit(try Binaries.path("sync-server"), ["serve", "--config", config])
        #expect(run.status != 0)
        #expect(run.err.contains(one.serverCertificate) && run.err.contains(other.serverKey), "\(run.err)")
        #expect(run.err.contains("belong together"), "\(run.err)")
    }
}
