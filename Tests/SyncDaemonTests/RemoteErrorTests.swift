import SyncCore
import Testing

@testable import SyncClient

/// How a server's answer is classified: what is worth asking again, and what is not.
struct RemoteErrorTests {
    static func answer(_ status: Int, _ code: String) -> RemoteError {
        RemoteError.classify(status: status, body: ErrorBody(code: code, message: "m"))
    }

    @Test func serverTroubleIsTransientButADamagedChunkIsNot() {
        #expect(Self.answer(500, "internal").kind == .transient)
        #expect(Self.answer(503, "unavailable").kind == .transient)
        #expect(Self.answer(429, "too_many_requests").kind == .transient)
        // Asking again does not repair the server's disk: that entry fails (retried with
        // backoff), the rest of the feed goes on.
        #expect(Self.answer(500, "chunk_damaged").kind == .permanent)
        #expect(Self.answer(404, "not_found").kind == .permanent)
        #expect(Self.answer(401, "unauthorized").kind == .unauthorized)
    }
}
