import Foundation
import SyncClient
import Testing
import TestSupport

/// `sync-server device add|rename|revoke|list` against a server process that is running.
@Suite(.serialized, .timeLimit(.minutes(8)))
struct DeviceAdminTests {
    @Test func duplicateNamesAreRefusedAndRenameAndRevokeApplyToARunningServer() async throws {
        let tmp = try TemporaryDirectory("device-admin")
        defer { tmp.remove() }
        let server = try ServerProcess(dir: try tmp.sub("server"))
        let credential = try await server.provision(folder: "docs", device: "laptop")
        try await server.start()
        defer { server.stop() }
        let client = server.client(credential: credential)
        _ = try await client.tree(folder: "docs")

        // A second "laptop" is refused with a sentence, and nothing is created.
        let duplicate = try await Child.capture(
            try Binaries.path("sync-server"), ["device", "add", "--name", "laptop", "--folder", "docs", "--config", server.configPath])
        #expect(duplicate.status != 0)
        #expect(duplicate.err.contains("a device named 'laptop' already exists"))
        #expect(duplicate.out.isEmpty)

        // Rename while it runs: the credential keeps working, the list shows the new name.
        try await server.admin(["device", "rename", "laptop", "desk"])
        _ = try await client.tree(folder: "docs")
        let list = try await server.admin(["device", "list"])
        #expect(list.contains("\tdesk\tdocs\tactive"))
        #expect(!list.contains("laptop"))

        // Revoke by the new name: the token the client already holds stops working.
        try await server.admin(["device", "revoke", "desk"])
        await #expect(throws: (any Error).self) { _ = try await client.tree(folder: "docs") }
        #expect(try await server.admin(["device", "list"]).contains("\tdesk\tdocs\trevoked"))
    }
}

/// `sync-server folder list|grant|revoke` against a server process that is running.
@Suite(.serialized, .timeLimit(.minutes(8)))
struct FolderAccessAdminTests {
    @Test func grantAndRevokeAFolderApplyToTheNextRequest() async throws {
        let tmp = try TemporaryDirectory("folder-admin")
        defer { tmp.remove() }
        let server = try ServerProcess(dir: try tmp.sub("server"))
        let credential = try await server.provision(folder: "docs", device: "laptop")
        try await server.admin(["folder", "add", "photos"])
        try await server.start()
        defer { server.stop() }
        let client = server.client(credential: credential)
        await #expect(throws: (any Error).self) { _ = try await client.tree(folder: "photos") }

        try await server.admin(["folder", "grant", "photos", "--device", "laptop"])
        _ = try await client.tree(folder: "photos")
        #expect(try await server.admin(["folder", "list"]) == "FOLDER\tDEVICES\ndocs\tlaptop\nphotos\tlaptop")

        try await server.admin(["folder", "revoke", "docs", "--device", "laptop"])
        await #expect(throws: (any Error).self) { _ = try await client.tree(folder: "docs") }
        _ = try await client.tree(folder: "photos")
        #expect(try await server.admin(["folder", "list"]) == "FOLDER\tDEVICES\ndocs\t\nphotos\tlaptop")
    }
}
