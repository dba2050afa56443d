import Testing

@testable import SyncDaemon

/// A batch of small downloads is staged on several threads, each directory's files on one.
struct StagingShardsTests {
    @Test func eachDirectoryStaysInOneShardInOrder() {
        let paths = (0..<200).map { "d\($0 % 7)/f\($0)" } + (0..<40).map { "top\($0)" }
        let shards = BatchDownload.shards(paths, width: 2, minimum: 32)
        #expect(shards.count == 2)
        #expect(shards.flatMap { $0 }.sorted() == Array(paths.indices), "every path once")
        for shard in shards { #expect(shard == shard.sorted(), "a shard keeps the batch's order") }
        func directory(_ i: Int) -> Substring { paths[i].lastIndex(of: "/").map { paths[i][..<$0] } ?? "" }
        let owners = Dictionary(grouping: shards.indices.flatMap { s in shards[s].map { (directory($0), s) } }, by: \.0)
        #expect(owners.values.allSatisfy { Set($0.map(\.1)).count == 1 }, "a directory was split between threads")
        // Balanced by files, as directories arrive.
        #expect(abs(shards[0].count - shards[1].count) <= 40)
    }

    @Test func fewFilesStayOnOneThread() {
        #expect(BatchDownload.shards((0..<40).map { "d\($0)/f" }, width: 4, minimum: 32) == [Array(0..<40)])
        #expect(BatchDownload.shards([], width: 4, minimum: 32).isEmpty)
        #expect(BatchDownload.shards((0..<100).map { "d\($0)/f" }, width: 4, minimum: 32).count == 3)
    }
}
