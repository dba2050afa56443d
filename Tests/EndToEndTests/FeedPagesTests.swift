import Foundation
import SyncCore
import Testing
import TestSupport

/// A second device catching up on a feed of many pages, each next page asked for while the one
/// before is applied (`NextFeedPage`): everything arrives, exactly as on the server, through
/// a kill -9 in the middle, and nothing is pushed back. A page holds 7 entries here
/// (`SYNCD_FEED_PAGE_LIMIT`), so 90 files and their history make dozens of pages.
@Suite(.serialized, .timeLimit(.minutes(8)))
struct FeedPagesTests {
    @Test func aCatchUpOfManyPagesArrivesWholeThroughAKill() async throws {
        let two = try await TwoDevices.start("feed-pages")
        defer { two.stop() }
        await two.b.stop()
        var expected: [String: String] = [:]
        for d in 0..<3 {
            try FileManager.default.createDirectory(atPath: two.a.path("d\(d)"), withIntermediateDirectories: true)
            expected["d\(d)"] = Hashing.contentHash(chunks: [])
        }
        for i in 0..<90 {
            let text = "page test \(i)\n"
            try writeFile(two.a.path("d\(i % 3)/f\(i).txt"), text)
            expected["d\(i % 3)/f\(i).txt"] = contentHash(text)
        }
        try await two.a.waitUntilIdle()
        // History the feed carries too: edits, deletes and a move, in later revisions.
        for i in 0..<10 {
            let text = "edited \(i)\n"
            try writeFile(two.a.path("d\(i % 3)/f\(i).txt"), text)
            expected["d\(i % 3)/f\(i).txt"] = contentHash(text)
        }
        for i in 10..<15 {
            try FileManager.default.removeItem(atPath: two.a.path("d\(i % 3)/f\(i).txt"))
            expected["d\(i % 3)/f\(i).txt"] = nil
        }
        try FileManager.default.moveItem(atPath: two.a.path("d2"), toPath: two.a.path("moved"))
        for (path, hash) in expected where path == "d2" || path.hasPrefix("d2/") {
            expected[path] = nil
            expected["moved" + path.dropFirst(2)] = hash
        }
        try await two.a.waitUntilIdle()
        let client = two.server.client(credential: two.credentialA)
        try await eventually("the server has alpha's tree", timeout: .seconds(60)) {
            try await client.tree(folder: "docs").mapValues(\.contentHash) == expected
        }
        let revBefore = try await client.changes(folder: "docs", since: 1 << 50, limit: 1).cursor

        // Beta catches up a page at a time; killed after some files arrived, then again.
        try await two.b.start(environment: ["SYNCD_FEED_PAGE_LIMIT": "7"])
        try await eventually("some files on beta", timeout: .seconds(60)) {
            (FileManager.default.enumerator(atPath: two.b.folderPath)?.allObjects.count ?? 0) >= 20
        }
        await two.b.kill9()
        try await two.b.start(environment: ["SYNCD_FEED_PAGE_LIMIT": "7"])
        try await two.waitForBoth(expected, timeout: .seconds(120))
        try await two.b.waitUntilIdle()
        let pages = two.b.log.split(separator: "\n").filter { $0.contains("changes from the server") }.count
        #expect(pages >= 10, "beta applied \(pages) pages")
        let revAfter = try await client.changes(folder: "docs", since: 1 << 50, limit: 1).cursor
        #expect(revAfter == revBefore, "beta committed \(revAfter - revBefore) revisions")
        #expect(try await two.b.status()?.conflicts == 0)
    }

    /// A page whose chunks could not be fetched (the reply lost) is applied again from the
    /// same cursor: the page asked for ahead meanwhile is dropped, not applied in its place
    /// (which would skip the failed page's files for good).
    @Test func aPageThatFailsIsAppliedAgainNotSkippedForTheNextOne() async throws {
        let (two, proxy) = try await TwoDevices.startBehindProxy("feed-pages-fail", throughProxy: ["beta"])
        defer {
            proxy.stop()
            two.stop()
        }
        await two.b.stop()
        var expected: [String: String] = [:]
        for i in 0..<40 {
            let text = "retried page \(i)\n"
            try writeFile(two.a.path("f\(i).txt"), text)
            expected["f\(i).txt"] = contentHash(text)
        }
        try await two.a.waitUntilIdle()
        let client = two.server.client(credential: two.credentialA)
        try await eventually("the server has alpha's files", timeout: .seconds(60)) {
            try await client.tree(folder: "docs").mapValues(\.contentHash) == expected
        }
        let revBefore = try await client.changes(folder: "docs", since: 1 << 50, limit: 1).cursor
        proxy.loseNextReply(toRequestContaining: "/chunks/fetch")
        try await two.b.start(environment: ["SYNCD_FEED_PAGE_LIMIT": "7"])
        try await two.waitForBoth(expected, timeout: .seconds(120))
        try await two.b.waitUntilIdle()
        let revAfter = try await client.changes(folder: "docs", since: 1 << 50, limit: 1).cursor
        #expect(revAfter == revBefore, "beta committed \(revAfter - revBefore) revisions")
    }
}
