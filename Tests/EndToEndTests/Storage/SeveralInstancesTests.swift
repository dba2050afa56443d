import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import ObjectStorage
import SyncClient
import SyncCore
import Testing
import TestSupport

/// Issue 10 point 4: two `sync-server serve` processes on one PostgreSQL database and one
/// bucket serve the same folder. Alpha syncs through instance one, beta through instance two;
/// changes cross (long-polls on one wake on commits made on the other); a token issued by one
/// is accepted by the other; instance one killed with SIGKILL loses nothing and two keeps serving.
@Suite(.serialized, .timeLimit(.minutes(8)))
struct SeveralInstancesTests {
    @Test func twoInstancesOnOneDatabaseAndBucketServeOneFolder() async throws {
        let moto = try await MotoServer.start()
        let bucket = try await TestBucket.create(on: moto, label: "instances")
        let database = try await PostgresServer.shared().database("instances") + "?sslmode=disable"
        let tmp = try TemporaryDirectory("several-instances")
        defer { tmp.remove() }
        let storage = "metadata = \"\(database)\"\n" + bucket.storageConfig(prefix: "team")
        let one = try ServerProcess(dir: try tmp.sub("one"), pinnedMetadata: true)
        let two = try ServerProcess(dir: try tmp.sub("two"), pinnedMetadata: true)
        for server in [one, two] {
            try server.writeConfig(storage: storage)
            server.postgresURL = database
        }
        let migrated = try await one.admin(["migrate"])
        #expect(migrated.hasPrefix("postgres://syncd@127.0.0.1:") && migrated.contains("p1-initial") && migrated.contains("p4-access-tokens"), "\(migrated)")
        try await one.start()
        try await two.start()
        defer { one.stop(); two.stop() }
        let credA = try await one.provision(folder: "docs", device: "alpha")
        let credB = try await two.admin(["device", "add", "--name", "beta", "--folder", "docs"])

        // A token issued by instance one is accepted by instance two.
        let token = try await Self.token(from: one.url, credential: credA)
        #expect(try await Self.status(of: "\(two.url)/v1/folders/docs/changes?since=0", token: token) == 200)
        #expect(try await Self.status(of: "\(two.url)/v1/folders/docs/changes?since=0", token: String(repeating: "0", count: 64)) == 401)

        let a = try DaemonProcess(dir: try tmp.sub("alpha"), folderID: "docs", serverURL: one.url, credential: credA)
        let b = try DaemonProcess(dir: try tmp.sub("beta"), folderID: "docs", serverURL: two.url, credential: credB)
        try await a.start()
        try await b.start()
        defer { a.stop(); b.stop() }

        // Alpha's files reach beta through the other instance, and back.
        try FileManager.default.createDirectory(atPath: a.path("notes"), withIntermediateDirectories: true)
        for n in 0..<40 { try writeFile(a.path("notes/n\(n).txt"), pseudoRandomBytes(count: 2000, seed: UInt64(n + 1))) }
        try writeFile(a.path("big.bin"), pseudoRandomBytes(count: 2 << 20, seed: 0xB16))
        try await Self.waitForBoth(a, b, timeout: .seconds(60))
        let written = ContinuousClock.now
        try writeFile(b.path("from-beta.txt"), "written on beta")
        try await eventually("alpha gets beta's file") { FileManager.default.fileExists(atPath: a.path("from-beta.txt")) }
        print("several instances: beta's write seen on alpha (through the other instance) after \(ContinuousClock.now - written)")

        // Instance one dies mid-traffic; two keeps serving beta; one comes back and alpha catches up.
        try FileManager.default.createDirectory(atPath: b.path("during"), withIntermediateDirectories: true)
        for n in 0..<20 { try writeFile(b.path("during/d\(n).txt"), "beta \(n)") }
        await one.kill9()
        for n in 20..<30 { try writeFile(b.path("during/d\(n).txt"), "beta \(n)") }
        let onTwo = two.client(credential: credB)
        try await eventually("instance two holds beta's 30 files", timeout: .seconds(60)) {
            try await onTwo.tree(folder: "docs").keys.filter { $0.hasPrefix("during/") }.count == 30
        }
        try await one.start()
        try await Self.waitForBoth(a, b, timeout: .seconds(60))
        #expect(try await one.admin(["storage", "check"]).hasPrefix("storage check: ok: "))
        // Every revision either instance gave is in the history once: 1…head, no gap, no repeat.
        let head = try await #require(Int64(try two.sql("SELECT rev FROM folders WHERE id = 'docs'").first?.first ?? ""))
        let revisions = try await two.sql("SELECT rev FROM versions WHERE folder_id = 'docs' ORDER BY rev").compactMap { Int64($0[0]) }
        #expect(revisions == Array(1...head), "head \(head), \(revisions.count) versions")

        // A server keeping its packs anywhere else is refused: it would take those rows for lost.
        let elsewhere = try ServerProcess(dir: try tmp.sub("elsewhere"), pinnedMetadata: true)
        try elsewhere.writeConfig(storage: "metadata = \"\(database)\"\n" + bucket.storageConfig(prefix: "other"))
        let refused = try await Child.runToExit(try Binaries.path("sync-server"), ["serve", "--config", elsewhere.configPath], timeout: 30)
        #expect(refused.status == 1 && refused.err.contains("this database's packs are in s3://"), "\(refused.err)")
        #expect(try await two.sql("SELECT count(*) FROM chunk_index").first?.first != "0", "nothing of the index was dropped")
    }

    /// A start leaves alone pack objects no row names (another instance may be uploading them);
    /// a storage round deletes them once they are a day old, and nothing else.
    @Test func leftoverObjectsInASharedBucketGoOnceTheyAreADayOld() async throws {
        let moto = try await MotoServer.start()
        let bucket = try await TestBucket.create(on: moto, label: "leftovers")
        let database = try await PostgresServer.shared().database("leftovers") + "?sslmode=disable"
        let tmp = try TemporaryDirectory("leftover-objects")
        defer { tmp.remove() }
        let server = try ServerProcess(dir: try tmp.sub("one"), pinnedMetadata: true)
        try server.writeConfig(storage: "metadata = \"\(database)\"\n" + bucket.storageConfig(prefix: "team"))
        server.postgresURL = database
        let credential = try await server.provision(folder: "docs", device: "writer")
        try await server.start()
        let files = try await ProtocolLoad(client: server.client(credential: credential), folder: "docs")
            .push(prefix: "p", count: 50, size: 4096, seed: 0x1e)
        await server.stop()
        let live = try await bucket.packs(prefix: "team")
        // What an upload killed between its put and its index rows leaves.
        let leftover = "team/packs/00000000fffffff0.pack"
        try await bucket.client.put(key: leftover, bytes: pseudoRandomBytes(count: 5000, seed: 3))

        try await server.start()
        await server.stop()
        let fresh = try await server.admin(["storage", "gc"])
        #expect(!fresh.contains("leftover"), "\(fresh)")
        #expect(try await bucket.client.size(key: leftover) == 5000, "a fresh one may be an upload in flight: kept")

        // Moving the retention clock ahead does not age it (an upload in flight must not look old).
        let offset = try await server.admin(["storage", "gc"], environment: ["SYNC_SERVER_NOW_OFFSET": "\(2 * 86_400)"])
        #expect(!offset.contains("leftover"), "\(offset)")
        // Older than the grace period (shortened to 1 s here) by the real clock: deleted.
        var later = ""
        try await eventually("a round deletes the leftover once it is older than the grace period", timeout: .seconds(30), poll: .seconds(1)) {
            later = try await server.admin(["storage", "gc"], environment: ["SYNC_SERVER_LEFTOVER_GRACE": "1"])
            return later.contains("deleted 1 leftover pack object(s) no row named")
        }
        #expect(try await bucket.client.size(key: leftover) == nil)
        #expect(try await bucket.packs(prefix: "team").count == live.count, "every indexed pack stays")
        try await server.start()
        defer { server.stop() }
        try await ProtocolLoad(client: server.client(credential: credential), folder: "docs").expectReadable(files)
        #expect(try await server.admin(["storage", "check"]).hasPrefix("storage check: ok: 50 chunk(s)"))
    }

    static func waitForBoth(_ a: DaemonProcess, _ b: DaemonProcess, timeout: Duration) async throws {
        var last: ([String: String], [String: String]) = ([:], [:])
        do {
            try await eventually("alpha and beta hold the same files", timeout: timeout) {
                last = (try localTree(a.folderPath), try localTree(b.folderPath))
                return last.0 == last.1
            }
        } catch {
            throw TestFailure("\(error): alpha \(last.0.count) files, beta \(last.1.count) files; only on alpha: \(Set(last.0.keys).subtracting(last.1.keys).sorted().prefix(5)), only on beta: \(Set(last.1.keys).subtracting(last.0.keys).sorted().prefix(5))")
        }
    }

    static func token(from server: String, credential: String) async throws -> String {
        var request = HTTPClientRequest(url: server + "/v1/auth/token")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(string: #"{"credential":"\#(credential)"}"#))
        let response = try await RemoteClient.sharedHTTP.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 1 << 20)
        let decoded = try JSONDecoder().decode(TokenResponse.self, from: Data(buffer: body))
        return decoded.accessToken
    }

    static func status(of url: String, token: String) async throws -> UInt {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        let response = try await RemoteClient.sharedHTTP.execute(request, timeout: .seconds(30))
        _ = try await response.body.collect(upTo: 1 << 20)
        return response.status.code
    }
}
