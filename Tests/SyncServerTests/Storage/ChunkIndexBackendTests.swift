import Foundation
import Synchronization
import Testing

@testable import SyncServerKit

/// What a chunk index shared by several instances must add (PostgreSQL), next to SQLite's
/// one-server answers: where the packs are, whose round it is, whose pack ids.
@Suite("Chunk indexes", .serialized)
struct ChunkIndexBackendTests {
    @Test(arguments: StoreKind.allCases)
    func aServerKeepingThePacksElsewhereIsRefused(_ kind: StoreKind) async throws {
        try await kind.with(instances: 2) { stores in
            let one = try chunkIndex(of: stores[0]), two = try chunkIndex(of: stores[1])
            try await one.claimPacks(at: "s3://team/packs/ at http://s3")
            try await two.claimPacks(at: "s3://team/packs/ at http://s3")
            switch kind {
            case .sqlite:
                #expect(!one.shared)
                try await two.claimPacks(at: "host:/elsewhere")  // one server per SQLite file: nothing to protect
            case .postgres:
                #expect(one.shared)
                do {
                    try await two.claimPacks(at: "s3://team/other/ at http://s3")
                    Issue.record("a second pack location was accepted")
                } catch let error as APIError {
                    #expect(error.code == .invalidArgument && error.message.contains("s3://team/packs/"), "\(error.message)")
                }
            }
        }
    }

    @Test(arguments: StoreKind.allCases)
    func oneStorageRoundAtATime(_ kind: StoreKind) async throws {
        try await kind.with(instances: 2) { stores in
            let one = try chunkIndex(of: stores[0]), two = try chunkIndex(of: stores[1])
            let inner = try await one.exclusively { try await two.exclusively { 42 } }
            switch kind {
            case .sqlite: #expect(inner == .some(.some(42)))
            case .postgres: #expect(inner == .some(nil), "the other instance's round is refused while one runs")
            }
            #expect(try await two.exclusively { 7 } == 7, "the lock ends with the round")
        }
    }

    @Test(arguments: StoreKind.allCases)
    func packIdsOfTwoStartsNeverMeet(_ kind: StoreKind) async throws {
        try await kind.with(instances: 2) { stores in
            let one = try chunkIndex(of: stores[0]), two = try chunkIndex(of: stores[1])
            _ = try await one.insert([], pack: 5, durableLength: 0, sealed: true)
            let first = try await one.firstPackID(filesKnown: 9)
            #expect(first > 9, "beyond every pack file and row")
            let second = try await two.firstPackID(filesKnown: 0)
            switch kind {
            case .sqlite: #expect(second > 5)
            case .postgres:
                #expect(second >= first + (Int64(1) << PostgresChunkIndex.blockBits), "another block: \(first), \(second)")
            }
        }
    }
}
