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
        // Far from the limit, not "fast": the in-process suite runs on 2 busy cores (a bound
        // of 10 s failed once, at 11.4 s).
        #expect(await PostgresMetadataStore.waitForEnd(of: quick, atMost: .seconds(300)))
        #expect(ContinuousClock.now - asked < .seconds(150))
    }
}
