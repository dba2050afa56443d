import Foundation
import SyncCore
import Testing
import TestSupport

@testable import SyncServerKit

/// Malformed framing, stalled and oversized bodies, and one client holding
/// many requests: each gets a 4xx or a closed connection, never a 500 or a
/// connection the server holds open. (Bounds are loose, `promptly`, because this
/// process runs other suites at once; a held connection would last `longIdle`.)
@Suite("HTTP edges")
struct HTTPEdgeTests {
    static let hash = String(repeating: "ab", count: 32)
    /// The server's idle timeout where a close must come from the answer, not the timer.
    static let longIdle = Duration.seconds(300)
    /// "At once" under the full suite's load: the in-process server has been seen to stall
    /// 20 s+ on a loaded 2-core CI machine; a held connection would last `longIdle`.
    static let promptly = Duration.seconds(90)
    static let readLimit = Duration.seconds(150)

    @Test(arguments: ["/v1/folders/docs/chunks/" + HTTPEdgeTests.hash, "/v1/folders/docs/chunks/missing"])
    func malformedChunkedEncodingIsA400AndTheConnectionCloses(path: String) async throws {
        // A long idle timeout: the close must come from the 400, not from the timer.
        let server = try await LiveServer.start(idleTimeout: Self.longIdle)
        do {
            var headers = server.auth
            headers["Transfer-Encoding"] = "chunked"
            let method = path.hasSuffix("missing") ? "POST" : "PUT"
            let bytes = RawConnection.request(method, path, headers: headers) + Array("zz-not-hex\r\nabc\r\n".utf8)
            let answer = try await RawConnection.exchange(port: server.port, bytes, readTimeout: Self.readLimit, untilClosed: true)
            #expect(answer.status == 400, "\(answer.text)")
            #expect(answer.closed && answer.elapsed < Self.promptly, "closed: \(answer.closed), after \(answer.elapsed)")
        }
        await server.stop()
    }

    @Test func aShortBodyIsNotWaitedForForever() async throws {
        let server = try await LiveServer.start(idleTimeout: .seconds(1))
        do {
            var headers = server.auth
            headers["Content-Length"] = "1000"
            let bytes = RawConnection.request("POST", "/v1/folders/docs/commit", headers: headers) + Array("{\"chan".utf8)
            let answer = try await RawConnection.exchange(port: server.port, bytes, readTimeout: Self.readLimit, untilClosed: true)
            #expect(answer.closed, "the connection must be closed, got \(answer.text)")
            #expect(answer.elapsed < Self.promptly)
            #expect(answer.status.map { $0 < 500 } ?? true, "\(answer.text)")
        }
        await server.stop()
    }

    @Test func anEarly401Or413ClosesTheConnectionWithoutReadingTheBody() async throws {
        let server = try await LiveServer.start(idleTimeout: Self.longIdle)
        do {
            // No token, a body announced as 100 MB of which a little is sent.
            let unauthenticated = RawConnection.request(
                "PUT", "/v1/folders/docs/chunks/" + Self.hash, headers: ["Content-Length": "100000000"])
                + [UInt8](repeating: 0x41, count: 4096)
            let refused = try await RawConnection.exchange(port: server.port, unauthenticated, readTimeout: Self.readLimit, untilClosed: true)
            #expect(refused.status == 401, "\(refused.text)")
            #expect(refused.closed && refused.elapsed < Self.promptly, "\(refused.elapsed)")
            var headers = server.auth
            headers["Content-Length"] = "100000000"
            let tooLarge = RawConnection.request("PUT", "/v1/folders/docs/chunks/" + Self.hash, headers: headers)
                + [UInt8](repeating: 0x41, count: 4096)
            let answer = try await RawConnection.exchange(port: server.port, tooLarge, readTimeout: Self.readLimit, untilClosed: true)
            #expect(answer.status == 413, "\(answer.text)")
            #expect(answer.closed && answer.elapsed < Self.promptly, "\(answer.elapsed)")
        }
        await server.stop()
    }

    @Test func historyPathsAreValidatedAsDocumented() async throws {
        let server = try await LiveServer.start()
        do {
            let long = String(repeating: "a/", count: 2500) + "x"
            for query in ["path=%ZZ", "path=a%2", "path=" + long, "path=..%2Fetc", "path=%2Fetc%2Fpasswd"] {
                let answer = try await RawConnection.exchange(
                    port: server.port, RawConnection.request("GET", "/v1/folders/docs/history?" + query, headers: server.auth))
                #expect(answer.status == 400, "\(query.prefix(40)): \(answer.text.prefix(300))")
            }
        }
        await server.stop()
    }

    @Test func oneDeviceCannotHoldMoreThanItsShareOfRequests() async throws {
        let server = try await LiveServer.start(idleTimeout: .seconds(30), maxRequestsPerDevice: 2)
        do {
            // Three long-polls of 4 s start together: two fit, the third is refused at once.
            let poll = RawConnection.request("GET", "/v1/folders/docs/changes?since=0&wait=4", headers: server.auth)
            // (Loose bounds: other suites share this process's executor and can stall it for seconds.)
            async let first = RawConnection.exchange(port: server.port, poll, readTimeout: .seconds(60))
            async let second = RawConnection.exchange(port: server.port, poll, readTimeout: .seconds(60))
            async let third = RawConnection.exchange(port: server.port, poll, readTimeout: .seconds(60))
            let answers = try await [first, second, third]
            #expect(answers.compactMap(\.status).sorted() == [200, 200, 429], "\(answers.map(\.text))")
            let refused = answers.first { $0.status == 429 }
            let waited = answers.filter { $0.status == 200 }.map(\.elapsed)
            #expect(refused?.text.contains("too_many_requests") == true)
            #expect(refused.map { r in waited.allSatisfy { r.elapsed < $0 } } == true, "refused at once, not after the wait")
            // The share is given back when requests end.
            var after: Int?
            try await waitUntil(deadline: ContinuousClock.now + .seconds(30), poll: .milliseconds(200)) {
                after = try await RawConnection.exchange(
                    port: server.port, RawConnection.request("GET", "/v1/folders/docs/changes?since=0", headers: server.auth),
                    readTimeout: .seconds(30)
                ).status
                return after == 200
            }
            #expect(after == 200, "the share is given back when requests end")
        }
        await server.stop()
    }
}
