import Foundation
import GRDB
import HummingbirdTesting
import SyncCore
import Testing
import TestSupport

@testable import SyncServerKit

/// What a restart does with packs a crash (or a disk) left damaged.
@Suite("Pack recovery at start")
struct PackRecoveryTests {
    /// (`pseudoRandomBytes` ignores the lowest bit of its seed: seeds here are odd.)
    static func chunk(_ n: UInt64, size: Int = 3000) -> [UInt8] { pseudoRandomBytes(count: size, seed: 2 * n + 1) }

    func upload(_ chunks: [[UInt8]], to fixture: Fixture) async throws {
        for chunk in chunks { #expect(try await fixture.server.chunks.store(hash: Make.hash(chunk), bytes: .init(bytes: chunk))) }
    }

    @Test func aTornTailIsCutAndItsChunksAreReportedMissing() async throws {
        try await Fixture.with { fixture in
            let chunks = (0..<3).map { Self.chunk($0) }
            try await upload(chunks, to: fixture)
            let last = try await fixture.server.chunks.location(Make.hash(chunks[2]))
            let path = fixture.server.chunks.packPath(last.pack)
            // The last record torn in the middle of its bytes, then garbage after it.
            try PackFile.truncate(path, to: last.offset + 1000)
            try PackFile.append(path, pseudoRandomBytes(count: 700, seed: 99))

            let restarted = try await fixture.reopened()
            let hashes = chunks.map(Make.hash)
            #expect(try await restarted.server.chunks.missing(hashes) == [hashes[2]])
            #expect(try PackFile.size(path) == last.recordStart)
            try await restarted.server.makeApplication().test(.router) { client in
                let token = try await client.token(restarted.credential)
                for chunk in chunks[0..<2] {
                    let get = try await client.send(.get, "/v1/folders/docs/chunks/\(Make.hash(chunk))", token: token)
                    #expect(get.bytes == chunk)
                }
                // The client uploads the lost chunk again; it lands in a new pack.
                try await client.putChunk(chunks[2], token: token)
                let get = try await client.send(.get, "/v1/folders/docs/chunks/\(hashes[2])", token: token)
                #expect(get.bytes == chunks[2])
                #expect(try await restarted.server.chunks.location(hashes[2]).pack > last.pack)
            }
        }
    }

    @Test func garbageAfterTheLastRecordIsCutAndNothingIsLost() async throws {
        try await Fixture.with { fixture in
            let chunks = (10..<14).map { Self.chunk($0) }
            try await upload(chunks, to: fixture)
            let location = try await fixture.server.chunks.location(Make.hash(chunks[3]))
            let path = fixture.server.chunks.packPath(location.pack)
            // A header that promises more bytes than follow, as a write cut short leaves.
            var torn = try #require(Hashing.rawBytes(hex: Make.hash(Self.chunk(77))))
            torn += [0, 0, 0, 0, 0, 0, 0x10, 0] + [UInt8](repeating: 1, count: 100)
            try PackFile.append(path, torn)

            let restarted = try await fixture.reopened()
            #expect(try await restarted.server.chunks.missing(chunks.map(Make.hash)).isEmpty)
            #expect(try PackFile.size(path) == location.recordEnd)
            for chunk in chunks {
                let at = try await restarted.server.chunks.location(Make.hash(chunk))
                #expect(try await restarted.server.chunks.readChecked(hash: Make.hash(chunk), at: at) == chunk)
            }
        }
    }

    @Test func aRottedRecordInTheDurablePartCostsOnlyItselfNotTheRecordsAfterIt() async throws {
        try await Fixture.with { fixture in
            let chunks = (40..<45).map { Self.chunk($0) }
            try await upload(chunks, to: fixture)
            let hashes = chunks.map(Make.hash)
            let rotted = try await fixture.server.chunks.location(hashes[1])
            let path = fixture.server.chunks.packPath(rotted.pack)
            let size = try PackFile.size(path)
            // One bit flipped in the second record's bytes, inside what was fsynced and indexed.
            try await fixture.server.chunks.rot(hashes[1], at: 100)

            let restarted = try await fixture.reopened()
            // Only the rotted chunk is forgotten (clients send it again); the pack is not cut.
            #expect(try await restarted.server.chunks.missing(hashes) == [hashes[1]])
            #expect(try PackFile.size(path) == size)
            for chunk in [chunks[0]] + chunks[2...] {
                let at = try await restarted.server.chunks.location(Make.hash(chunk))
                #expect(try await restarted.server.chunks.readChecked(hash: Make.hash(chunk), at: at) == chunk)
            }
        }
    }

    @Test func aSealedPackThatLostBytesIsVerifiedAndItsLostChunksForgotten() async throws {
        try await Fixture.with(packRotation: 7000) { fixture in
            // Two 3,040-byte records per pack: chunks 0 and 1 in the first, sealed one.
            let chunks = (20..<25).map { Self.chunk($0) }
            try await upload(chunks, to: fixture)
            let first = try await fixture.server.chunks.location(Make.hash(chunks[0]))
            let second = try await fixture.server.chunks.location(Make.hash(chunks[1]))
            #expect(first.pack == second.pack)
            try PackFile.truncate(fixture.server.chunks.packPath(first.pack), to: second.offset + 10)

            let restarted = try await fixture.reopened(packRotation: 7000)
            let hashes = chunks.map(Make.hash)
            #expect(try await restarted.server.chunks.missing(hashes) == [hashes[1]])
        }
    }

    @Test func aMissingPackIsForgottenWithItsChunks() async throws {
        try await Fixture.with(packRotation: 4000) { fixture in
            let chunks = (30..<33).map { Self.chunk($0) }
            try await upload(chunks, to: fixture)
            let gone = try await fixture.server.chunks.location(Make.hash(chunks[1]))
            #expect(unlink(fixture.server.chunks.packPath(gone.pack)) == 0)

            let restarted = try await fixture.reopened(packRotation: 4000)
            let hashes = chunks.map(Make.hash)
            #expect(try await restarted.server.chunks.missing(hashes) == [hashes[1]])
        }
    }
}
