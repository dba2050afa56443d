import Foundation
import Logging
import Testing
import TestSupport

@testable import SyncServerKit

@Suite("Running the server")
struct RunTests {
    @Test func runReportsTheRealPortServesAndStopsOnCancellation() async throws {
        let tmp = try TemporaryDirectory("server-run")
        defer { tmp.remove() }
        let dir = tmp.path
        let server = try await SyncServer.open(
            settings: ServerSettings(host: "127.0.0.1", port: 0, dataDir: dir),
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        let (addresses, continuation) = AsyncStream.makeStream(of: ListeningAddress.self)
        let running = Task {
            try await server.run(handleSignals: false) { continuation.yield($0) }
        }
        var iterator = addresses.makeAsyncIterator()
        let address = try #require(await iterator.next())
        #expect(address.host == "127.0.0.1")
        #expect(address.port > 0)
        #expect(address.description == "127.0.0.1:\(address.port)")

        let response = try await RawConnection.exchange(port: address.port, RawConnection.request("GET", "/v1/health"))
        #expect(response.status == 200)
        #expect(response.body == #"{"status":"ok"}"#)

        running.cancel()
        _ = await running.result
        await #expect(throws: RawConnection.Failure.self) {
            try await RawConnection.exchange(port: address.port, RawConnection.request("GET", "/v1/health"))
        }
    }
}
