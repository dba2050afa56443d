import Foundation
import SyncClient
import Testing
import TestSupport

/// `sync-server status` and `sync-server folder remove` on a real server process.
@Suite(.serialized)
struct ServerStatusTests {
    @Test func statusSaysWhatTheServerHoldsAndAFolderCanBeRemoved() async throws {
        let tmp = try TemporaryDirectory("server-status")
        defer { tmp.remove() }
        let server = try ServerProcess(dir: try tmp.sub("server"))
        defer { server.stop() }
        let credential = try await server.provision(folder: "docs", device: "laptop")
        try await server.admin(["folder", "add", "empty"])
        try await server.admin(["device", "add", "--name", "old", "--folder", "docs"])
        try await server.admin(["device", "revoke", "old"])
        try await server.start()
        let client = server.client(credential: credential)
        _ = try await ProtocolLoad(client: client, folder: "docs").push(prefix: "p", count: 3, size: 2048, seed: 5)

        let status = try await server.admin(["status"])
        #expect(status.contains("server:   listening on 127.0.0.1:\(server.port)"), "\(status)")
        #expect(status.contains("devices:  1 active, 1 revoked"), "\(status)")
        // The laptop got a token for the push: seen now; the revoked device is not listed.
        #expect(status.contains("  laptop: last seen 20"), "\(status)")
        #expect(!status.contains("  old:"), "\(status)")
        let devices = try await server.admin(["device", "list"])
        #expect(devices.contains("\tlaptop\tdocs\tactive\t20"), "\(devices)")
        #expect(devices.contains("\told\tdocs\trevoked\tnever"), "\(devices)")
        #expect(status.contains("  docs: rev 3, 3 file(s), 6.0 KiB; laptop"), "\(status)")
        #expect(status.contains("  empty: rev 0, 0 file(s), 0 B; no device"), "\(status)")
        #expect(status.contains("storage:  3 chunk(s) in 1 pack(s)"), "\(status)")
        let json = try #require(try await JSONSerialization.jsonObject(with: Data(server.admin(["status", "--json"]).utf8)) as? [String: Any])
        #expect(json["listening"] as? Bool == true)

        // A folder with files needs --yes; then it is gone, with its history.
        let sync = try Binaries.path("sync-server")
        let refused = try await Child.capture(sync, ["folder", "remove", "docs", "--config", server.configPath])
        #expect(refused.status == 1)
        #expect(refused.err.contains("folder docs holds 3 file(s) (6.0 KiB) and their history"), "\(refused.err)")
        let removed = try await Child.capture(sync, ["folder", "remove", "docs", "--yes", "--config", server.configPath])
        #expect(removed.status == 0, "\(removed.err)")
        #expect(removed.err.contains("removed folder docs (3 file(s), 6.0 KiB, rev 3)"), "\(removed.err)")
        #expect(try await server.admin(["folder", "list"]).contains("docs") == false)
        await #expect(throws: RemoteError.self) { _ = try await client.changes(folder: "docs", since: 0) }
        // An empty folder goes without --yes.
        #expect(try await Child.capture(sync, ["folder", "remove", "empty", "--config", server.configPath]).status == 0)

        await server.stop()
        let stopped = try await Child.capture(sync, ["status", "--config", server.configPath])
        #expect(stopped.status == 3)
        #expect(stopped.out.contains("nothing listens on 127.0.0.1:\(server.port)"), "\(stopped.out)")
    }
}
