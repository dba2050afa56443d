import Foundation
import GRDB
import HummingbirdTesting
import SyncCore
import Testing
import TestSupport

@testable import SyncServerKit

/// A data directory written before packs: one file per chunk at `chunks/ab/cd/<hash>`
/// (mode 0644, written through `chunks/tmp` and renamed), entries referencing them.
@Suite("Data directories from before packs")
struct LegacyDataDirTests {
    /// Writes a chunk file exactly where and how the chunk store before packs did.
    static func writeLegacyChunk(_ bytes: [UInt8], dataDir: String, as name: String? = nil) throws {
        let hash = name ?? Make.hash(bytes)
        let directory = "\(dataDir)/chunks/\(hash.prefix(2))/\(hash.dropFirst(2).prefix(2))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: "\(dataDir)/chunks/tmp/\(hash).3f2a9c"))
        try FileManager.default.moveItem(atPath: "\(dataDir)/chunks/tmp/\(hash).3f2a9c", toPath: "\(directory)/\(hash)")
    }

    @Test func oldChunkFilesAreImportedAndKeepServingAndBeingCommittable() async throws {
        try await Fixture.with { fixture in
            let a = pseudoRandomBytes(count: 5000, seed: 1_001), b = pseudoRandomBytes(count: 7000, seed: 2_001)
            let rotten = pseudoRandomBytes(count: 300, seed: 3_001)
            try FileManager.default.createDirectory(atPath: fixture.dataDir + "/chunks/tmp", withIntermediateDirectories: true)
            try Self.writeLegacyChunk(a, dataDir: fixture.dataDir)
            try Self.writeLegacyChunk(b, dataDir: fixture.dataDir)
            let rottenName = Make.hash(pseudoRandomBytes(count: 300, seed: 4_001))
            try Self.writeLegacyChunk(rotten, dataDir: fixture.dataDir, as: rottenName)
            // Left behind by an upload interrupted by a crash.
            try Data([1, 2, 3]).write(to: URL(fileURLWithPath: fixture.dataDir + "/chunks/tmp/leftover.77aa00"))
            // An entry committed by the server before packs (its metadata code is unchanged).
            _ = try await fixture.server.metadata.commit(
                folder: Fixture.folder, device: fixture.deviceID, changes: [Make.file("old.bin", chunks: [a, b])])

            let restarted = try await fixture.reopened()
            let chunks = restarted.server.chunks
            #expect(try await chunks.missing([Make.hash(a), Make.hash(b), rottenName]) == [rottenName])
            #expect(!FileManager.default.fileExists(atPath: LegacyImport.path(root: fixture.dataDir + "/chunks", hash: Make.hash(a))))
            #expect(!FileManager.default.fileExists(atPath: fixture.dataDir + "/chunks/tmp"))
            #expect(FileManager.default.fileExists(atPath: fixture.dataDir + "/chunks/damaged/" + rottenName))
            try await restarted.server.makeApplication().test(.router) { client in
                let token = try await client.token(restarted.credential)
                let feed = try await client.feed(token: token)
                let old = try #require(feed.entries.first { $0.path == "old.bin" })
                for (hash, bytes) in zip(old.chunks, [a, b]) {
                    let get = try await client.send(.get, "/v1/folders/docs/chunks/\(hash)", token: token)
                    #expect(get.bytes == bytes)
                }
                _ = try await client.commitOK([Make.file("new.bin", chunks: [b, a])], token: token)
            }
            let report = try await StorageCheck.run(dataDir: fixture.dataDir)
            #expect(report.problems.isEmpty, "\(report.problems)")
            #expect(report.chunks == 2)
        }
    }

    @Test func anImportInterruptedAfterIndexingResumesWithoutCopyingAgain() async throws {
        try await Fixture.with { fixture in
            let a = pseudoRandomBytes(count: 4000, seed: 5_001)
            try FileManager.default.createDirectory(atPath: fixture.dataDir + "/chunks/tmp", withIntermediateDirectories: true)
            try Self.writeLegacyChunk(a, dataDir: fixture.dataDir)
            let first = try await fixture.reopened()
            let packBytes = try first.server.chunks.packsOnDisk().values.reduce(0, +)
            #expect(packBytes == Int64(a.count + PackRecord.headerSize))
            // As if the crash came after the index transaction, before the unlink.
            try FileManager.default.createDirectory(atPath: fixture.dataDir + "/chunks/tmp", withIntermediateDirectories: true)
            try Self.writeLegacyChunk(a, dataDir: fixture.dataDir)

            let second = try await fixture.reopened()
            #expect(try second.server.chunks.packsOnDisk().values.reduce(0, +) == packBytes)
            #expect(!FileManager.default.fileExists(atPath: fixture.dataDir + "/chunks"))
            let at = try await second.server.chunks.location(Make.hash(a))
            #expect(try await second.server.chunks.readChecked(hash: Make.hash(a), at: at) == a)
        }
    }
}
