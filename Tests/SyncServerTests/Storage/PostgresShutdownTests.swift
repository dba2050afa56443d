import Testing

@testable import SyncServerKit

/// sync-server's stop waits for its PostgreSQL pool to close, but not for ever.
@Suite struct PostgresShutdownTests {
    @Test func aTaskThatDoesNotEndIsWaitedForOnlyUpToTheLimit() async {
        let (gate, open) = AsyncStream<Void>.makeStream()
        let stuck = Task { for await _ in gate {} }
        let asked = ContinuousClock.now
        let ended = await PostgresMetadataStore.waitForEnd(of: stuck, atMost: .milliseconds(200))
        #expect(!ended)
        #expect(ContinuousClock.now - asked >= .milliseconds(200))
        open.finish()
        #expect(await PostgresMetadataStore.waitForEnd(of: stuck, atMost: .seconds(30)))
    }

    @Test func aTaskThatEndsIsReportedAtOnce() async {
        let quick = Task {}
        let asked = ContinuousClock.now
        #expect(await PostgresMetadataStore.waitForEnd(of: quick, atMost: .seconds(30)))
        #expect(ContinuousClock.now - asked < .seconds(10))
    }
}
