import Foundation
import Logging
import Testing

@testable import SyncServerKit

@Suite("Running the server")
struct RunTests {
    @Test func runReportsTheRealPortServesAndStopsOnCancellation() async throws {
        let dir = try TemporaryDirectory.make()
        defer { TemporaryDirectory.remove(dir) }
        let server = try SyncServer(
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

        let response = try await RawHTTP.get("/v1/health", port: address.port)
        #expect(response.hasPrefix("HTTP/1.1 200"))
        #expect(response.hasSuffix(#"{"status":"ok"}"#))

        running.cancel()
        _ = await running.result
        #expect(try await RawHTTP.get("/v1/health", port: address.port).isEmpty)
    }
}

/// A minimal blocking HTTP/1.1 client over a loopback socket (run off the cooperative pool).
enum RawHTTP {
    static func get(_ path: String, port: Int) async throws -> String {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: blockingGet(path, port: port)) }
        }
    }

    /// The whole response, or "" if the connection failed.
    private static func blockingGet(_ path: String, port: Int) -> String {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return "" }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { return "" }
        let request = Array("GET \(path) HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".utf8)
        guard send(fd, request, request.count, 0) == request.count else { return "" }
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { break }
            response += buffer[0..<n]
        }
        return String(decoding: response, as: UTF8.self)
    }
}
