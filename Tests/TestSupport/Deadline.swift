/// Polls `condition` until it holds or `timeout` passes; the deadline, not a
/// fixed sleep, decides how long a test waits. An error the condition throws
/// counts as "not yet" (the last one is named on timeout). The default is generous:
/// on a loaded 2-core machine, five tests of one CI pass timed out at 20 s waiting for
/// their `syncd`'s control socket, and each `syncd` logged its first line only at the
/// end of that wait (then had its socket ready 0.1 s later). The last look starts after the
/// deadline: a test process so busy that its sleep ends past the deadline (a CI run's did,
/// by over 30 s) does not fail on an answer from before it.
public func eventually(
    _ what: String, timeout: Duration = .seconds(60), poll: Duration = .milliseconds(20),
    _ condition: () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + timeout
    var lastError: (any Error)?
    while true {
        let isLastLook = ContinuousClock.now >= deadline
        do {
            if try await condition() { return }
        } catch {
            lastError = error
        }
        if isLastLook { break }
        try await Task.sleep(for: poll)
    }
    throw TestFailure("timed out after \(timeout) waiting for: \(what)" + (lastError.map { " (last error: \($0))" } ?? ""))
}

/// Polls `condition` until it holds or `deadline` passes, sleeping `poll` between
/// tries; whether it held. For a test that checks the answer itself (`#expect`);
/// an error the condition throws ends the wait and is thrown on. As in `eventually`, the
/// last look starts after the deadline.
@discardableResult
public func waitUntil(
    deadline: ContinuousClock.Instant, poll: Duration, _ condition: () async throws -> Bool
) async throws -> Bool {
    while true {
        let isLastLook = ContinuousClock.now >= deadline
        if try await condition() { return true }
        if isLastLook { return false }
        try await Task.sleep(for: poll)
    }
}
