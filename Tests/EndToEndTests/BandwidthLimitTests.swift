import Foundation
import SyncCore
import Testing
import TestSupport

/// `upload_limit` and `download_limit` on a real syncd: 2 MiB at 512 KiB/s cannot take
/// less than about 3.75 s (the first quarter second's burst is free). Only the lower bound
/// is checked here, the machine being shared; the precision (±10 % over 10 s) is
/// `TokenBucketTests`'. Issue 11, point 9.
@Suite struct BandwidthLimitTests {
    static let size = 2 << 20
    static let atLeast: Duration = .milliseconds(3500)

    @Test func uploadLimitPacesWhatSyncdSends() async throws {
        let rig = try await Rig.start("bw-upload", startDaemon: false)
        defer { rig.stop() }
        let config = try String(contentsOfFile: rig.daemon.configPath, encoding: .utf8)
        try writeFile(rig.daemon.configPath, config + "\n[transfer]\nupload_limit = \"512KiB/s\"\n")
        try await rig.daemon.start()
        let bytes = pseudoRandomBytes(count: Self.size, seed: 11)
        let started = ContinuousClock.now
        try writeFile(rig.daemon.path("big.bin"), bytes)
        try await rig.waitForServerTree(["big.bin": contentHash(bytes)])
        let took = ContinuousClock.now - started
        #expect(took >= Self.atLeast, "2 MiB went up in \(took) with upload_limit 512KiB/s")
    }

    @Test func downloadLimitPacesWhatSyncdReceives() async throws {
        let rig = try await Rig.start("bw-download", startDaemon: false)
        defer { rig.stop() }
        let config = try String(contentsOfFile: rig.daemon.configPath, encoding: .utf8)
        try writeFile(rig.daemon.configPath, config + "\n[transfer]\ndownload_limit = \"512KiB/s\"\n")
        try await rig.daemon.start()
        let other = try await rig.server.admin(["device", "add", "--name", "desktop", "--folder", "docs"])
        let client = rig.server.client(credential: other)
        let bytes = pseudoRandomBytes(count: Self.size, seed: 12)
        let hash = Hashing.sha256Hex(bytes)
        try await client.putChunkBatch(folder: "docs", chunks: [(hash, bytes)])
        // The clock starts before the commit: syncd cannot see the file any earlier.
        let started = ContinuousClock.now
        let reply = try await client.commit(
            folder: "docs",
            changes: [
                CommitChange(
                    path: "in/f0.bin", baseRev: 0, kind: .file, size: Int64(Self.size), mtimeNs: 1_700_000_000_000_000_000,
                    mode: 0o644, chunks: [hash], contentHash: Hashing.contentHash(chunks: [hash]), deleted: false)
            ])
        #expect(reply.results.map(\.status) == [.ok])
        let path = rig.daemon.path("in/f0.bin")
        try await eventually("syncd downloads the file", timeout: .seconds(60)) {
            guard FileManager.default.fileExists(atPath: path) else { return false }
            return (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) == Self.size
        }
        let took = ContinuousClock.now - started
        #expect(took >= Self.atLeast, "2 MiB came down in \(took) with download_limit 512KiB/s")
    }
}
