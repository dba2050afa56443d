import Foundation
import GRDB
import Testing

@testable import SyncDaemon

/// The daemon's index, created by an earlier release, upgrades in place and keeps its data.
struct IndexMigrationTests {
    @Test func anIndexFromBeforeModesWereKeptUpgrades() throws {
        let dir = NSTemporaryDirectory() + "syncd-index-upgrade-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/index.sqlite"
        do {
            // Exactly the schema the release before v5 shipped.
            let queue = try DatabaseQueue(path: path)
            try IndexStore.migrator.migrate(queue, upTo: "v4-local-chunks")
            try queue.write { db in
                try db.execute(sql: """
                    INSERT INTO base (folder_id, path, kind, rev, content_hash, deleted) VALUES ('docs', 'a.txt', 'file', 7, 'h', 0)
                    """)
            }
        }
        let index = try IndexStore(path: path)
        let base = try #require(try index.baseRecord(folder: "docs", path: "a.txt"))
        #expect(base.rev == 7 && base.contentHash == "h" && base.mode == nil)
        // A mode recorded now is read back.
        var update = IndexUpdate()
        update.bases.append(BaseRecord(path: "b", kind: .file, rev: 8, contentHash: "h2", deleted: false, mode: 0o755))
        try index.record(folder: "docs", update)
        #expect(try index.baseRecord(folder: "docs", path: "b")?.mode == 0o755)
    }
}
