import Foundation
import ObjectStorage
import Testing
import TestSupport

/// `sync-server storage copy`: a server that started on the embedded defaults (SQLite,
/// packs in its data directory) moves to a bucket on an S3-speaking server (moto) without
/// clients uploading again; real sync-server processes.
@Suite(.serialized)
struct StorageCopyTests {
    /// `storage copy` from one server's config to the other's; its stdout.
    static func copy(from old: ServerProcess, to new: ServerProcess) async throws -> String {
        let run = try await Child.capture(
            try Binaries.path("sync-server"), ["storage", "copy", "--from", old.configPath, "--to", new.configPath])
        guard run.status == 0 else { throw TestFailure("storage copy failed: \(run.err)") }
        return run.out.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func aFilesystemServerMovesToABucketAndServesTheSameFiles() async throws {
        let moto = try await MotoServer.start()
        let bucket = try await TestBucket.create(on: moto, label: "copy")
        let s3 = bucket.client
        let tmp = try TemporaryDirectory("storage-copy")
        defer { tmp.remove() }
        let old = try ServerProcess(dir: try tmp.sub("old"), pinnedMetadata: true)
        defer { old.stop() }
        let credential = try await old.provision(folder: "docs", device: "writer")
        try await old.start()
        // Two runs of the server: two packs (every start begins a new one).
        var files = try await ProtocolLoad(client: old.client(credential: credential), folder: "docs").push(prefix: "p", count: 300, size: 16_384, seed: 0xc0)
        await old.stop()
        try await old.start()
        // (A new client: the old one's pooled connection went with the first process.)
        let again = ProtocolLoad(client: old.client(credential: credential), folder: "docs")
        files.merge(try await again.push(prefix: "q", count: 300, size: 16_384, seed: 0xc1)) { $1 }
        await old.stop()
        let packs = try FileManager.default.contentsOfDirectory(atPath: old.dir + "/data/packs").filter { $0.hasSuffix(".pack") }
        #expect(packs.count == 2)

        let new = try ServerProcess(dir: try tmp.sub("new"), port: old.port, pinnedMetadata: true)
        // A first attempt that cannot reach the store (nothing listens there) fails and
        // leaves its mark; one pack is already in the bucket, as if copied before that.
        try new.writeConfig(storage: bucket.storageConfig(prefix: "moved").replacingOccurrences(
            of: moto.endpoint, with: "http://127.0.0.1:\(try freePort())"))
        let interrupted = try await Child.capture(
            try Binaries.path("sync-server"), ["storage", "copy", "--from", old.configPath, "--to", new.configPath])
        #expect(interrupted.status == 1)
        #expect(interrupted.err.contains("no answer from"), "\(interrupted.err)")
        let first = try #require(packs.sorted().first)
        try await s3.put(key: "moved/packs/" + first, bytes: Array(try Data(contentsOf: URL(fileURLWithPath: old.dir + "/data/packs/" + first))))

        try new.writeConfig(storage: bucket.storageConfig(prefix: "moved"))
        let copy = try await Self.copy(from: old, to: new)
        #expect(copy.hasPrefix("storage copy: metadata copied; \(packs.count - 1) pack(s) copied"), "\(copy)")
        #expect(copy.contains("\(packs.count - 1) pack(s) copied") && copy.contains("1 already there"), "\(copy)")
        let objects = try await s3.list(prefix: "moved/packs/")
        #expect(objects.count == packs.count)
        // Done: the new data directory now holds a server's data, a second copy is refused.
        let second = try await Child.capture(
            try Binaries.path("sync-server"), ["storage", "copy", "--from", old.configPath, "--to", new.configPath])
        #expect(second.status == 1)
        #expect(second.err.contains("already exists: storage copy fills a new data directory only"), "\(second.err)")

        // The new server knows the device and serves every file from the bucket.
        try await new.start()
        defer { new.stop() }
        try await ProtocolLoad(client: new.client(credential: credential), folder: "docs").expectReadable(files)
        #expect(try await new.admin(["storage", "check"]).hasPrefix("storage check: ok: 600 chunk(s)"))
        #expect(try new.localPackBytes() == 0)
        // The old data directory is as it was.
        #expect(try FileManager.default.contentsOfDirectory(atPath: old.dir + "/data/packs").filter { $0.hasSuffix(".pack") }.count
            == packs.count)
    }

    /// Issue 10 point 5: the embedded defaults (SQLite, packs in the data directory) move to
    /// PostgreSQL and a bucket; an interrupted copy leaves a database no server starts on.
    @Test func aSQLiteServerMovesToPostgreSQLAndABucket() async throws {
        let moto = try await MotoServer.start()
        let bucket = try await TestBucket.create(on: moto, label: "copy-pg")
        let tmp = try TemporaryDirectory("storage-copy-pg")
        defer { tmp.remove() }
        let old = try ServerProcess(dir: try tmp.sub("old"), pinnedMetadata: true)
        defer { old.stop() }
        let credential = try await old.provision(folder: "docs", device: "writer")
        try await old.admin(["device", "add", "--name", "spare", "--folder", "docs"])
        try await old.admin(["device", "revoke", "spare"])
        try await old.start()
        var files = try await ProtocolLoad(client: old.client(credential: credential), folder: "docs").push(prefix: "p", count: 300, size: 8192, seed: 0xd0)
        await old.stop()
        let devices = try await old.admin(["device", "list"])
        let head = try #require(try await old.sql("SELECT rev FROM folders WHERE id = 'docs'").first?.first)

        let database = try await PostgresServer.shared().database("copied") + "?sslmode=disable"
        let new = try ServerProcess(dir: try tmp.sub("new"), port: old.port, pinnedMetadata: true)
        new.postgresURL = database
        // Interrupted: the metadata went in, the bucket cannot be reached.
        try new.writeConfig(storage: "metadata = \"\(database)\"\n" + bucket.storageConfig(prefix: "pg").replacingOccurrences(
            of: moto.endpoint, with: "http://127.0.0.1:\(try freePort())"))
        let interrupted = try await Child.capture(
            try Binaries.path("sync-server"), ["storage", "copy", "--from", old.configPath, "--to", new.configPath])
        #expect(interrupted.status == 1)
        #expect(interrupted.err.contains("no answer from"), "\(interrupted.err)")
        try new.writeConfig(storage: "metadata = \"\(database)\"\n" + bucket.storageConfig(prefix: "pg"))
        // No server starts on a database whose packs are not all there.
        try await new.start(waitUntilHealthy: false)
        #expect(try await new.waitForExit(timeout: .seconds(30)) == nil)
        let log = try String(contentsOfFile: new.dir + "/server.log", encoding: .utf8)
        #expect(log.contains("storage copy` from \(old.dir)/data into this server's storage has not finished"), "\(log)")
        // Nor does a storage round or check run on it.
        let gc = try await Child.capture(try Binaries.path("sync-server"), ["storage", "gc", "--config", new.configPath])
        #expect(gc.status == 1 && gc.err.contains("has not finished"), "\(gc.err)")

        let copy = try await Self.copy(from: old, to: new)
        #expect(copy.hasPrefix("storage copy: metadata copied; "), "\(copy)")
        #expect(try await new.sql("SELECT count(*) FROM storage_copy") == [["0"]])
        // Where the packs went is recorded: a server configured with another place is refused.
        #expect(try await new.sql("SELECT location FROM pack_location").first?.first?.contains("s3://\(bucket.name)/pg/") == true)
        #expect(try await new.sql("SELECT rev FROM folders WHERE id = 'docs'") == [[head]])
        let second = try await Child.capture(
            try Binaries.path("sync-server"), ["storage", "copy", "--from", old.configPath, "--to", new.configPath])
        #expect(second.status == 1)
        #expect(second.err.contains("already holds a server's data (or a server has started on it)"), "\(second.err)")
        // An empty database a server has started on is refused too.
        let used = try ServerProcess(dir: try tmp.sub("used"), pinnedMetadata: true)
        let usedDatabase = try await PostgresServer.shared().database("used") + "?sslmode=disable"
        try used.writeConfig(storage: "metadata = \"\(usedDatabase)\"")
        try await used.start()
        await used.stop()
        let refused = try await Child.capture(
            try Binaries.path("sync-server"), ["storage", "copy", "--from", old.configPath, "--to", used.configPath])
        #expect(refused.status == 1)
        #expect(refused.err.contains("or a server has started on it"), "\(refused.err)")

        // The new server knows both devices as they were and serves every file from the bucket.
        try await new.start()
        defer { new.stop() }
        #expect(try await new.admin(["device", "list"]) == devices)
        let client = new.client(credential: credential)
        try await ProtocolLoad(client: client, folder: "docs").expectReadable(files)
        #expect(try await new.admin(["storage", "check"]).hasPrefix("storage check: ok: 300 chunk(s)"))
        #expect(try new.localPackBytes() == 0)
        // Commits go on from the copied revision, gap-free.
        files.merge(try await ProtocolLoad(client: client, folder: "docs").push(prefix: "q", count: 10, size: 4096, seed: 0xd1)) { $1 }
        let revs = try await new.sql("SELECT rev FROM versions WHERE folder_id = 'docs' ORDER BY rev").map { Int64($0[0]) ?? -1 }
        #expect(revs == Array(1...(Int64(head) ?? 0) + 10))
        try await ProtocolLoad(client: client, folder: "docs").expectReadable(files)
    }

    @Test func aDamagedPackIsNotCopiedAndATargetInUseIsRefused() async throws {
        let moto = try await MotoServer.start()
        let bucket = try await TestBucket.create(on: moto, label: "copy")
        let tmp = try TemporaryDirectory("storage-copy-damaged")
        defer { tmp.remove() }
        let old = try ServerProcess(dir: try tmp.sub("old"), pinnedMetadata: true)
        defer { old.stop() }
        let credential = try await old.provision(folder: "docs", device: "writer")
        try await old.start()
        _ = try await ProtocolLoad(client: old.client(credential: credential), folder: "docs").push(prefix: "p", count: 20, size: 4096, seed: 1)
        await old.stop()
        let packDir = old.dir + "/data/packs"
        let pack = try #require(try FileManager.default.contentsOfDirectory(atPath: packDir).first { $0.hasSuffix(".pack") })
        // One byte inside the first chunk's bytes (after its 40-byte record header).
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: packDir + "/" + pack))
        try handle.seek(toOffset: 100)
        let byte = try #require(try handle.read(upToCount: 1)?.first)
        try handle.seek(toOffset: 100)
        try handle.write(contentsOf: Data([byte ^ 0xff]))
        try handle.close()

        let new = try ServerProcess(dir: try tmp.sub("new"), pinnedMetadata: true)
        try new.writeConfig(storage: bucket.storageConfig(prefix: "moved"))
        let sync = try Binaries.path("sync-server")
        let damaged = try await Child.capture(sync, ["storage", "copy", "--from", old.configPath, "--to", new.configPath])
        #expect(damaged.status == 1)
        #expect(damaged.err.contains("pack \(packDir)/\(pack) is damaged (1 chunk(s) do not match their hash"), "\(damaged.err)")
        #expect(try await bucket.packs(prefix: "moved").count == 0, "nothing of the damaged pack went up")

        // A target that already holds a server's data is refused (a server started on it).
        let used = try ServerProcess(dir: try tmp.sub("used"), pinnedMetadata: true)
        try await used.admin(["folder", "add", "x"])
        let refused = try await Child.capture(sync, ["storage", "copy", "--from", old.configPath, "--to", used.configPath])
        #expect(refused.status == 1)
        #expect(refused.err.contains("already exists: storage copy fills a new data directory only"), "\(refused.err)")
        // The same data directory on both sides is refused.
        let same = try await Child.capture(sync, ["storage", "copy", "--from", old.configPath, "--to", old.configPath])
        #expect(same.status == 1)
        #expect(same.err.contains("give the new config a data_dir of its own"), "\(same.err)")
    }
}
