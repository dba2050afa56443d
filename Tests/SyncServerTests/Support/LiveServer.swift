import Foundation
import Logging
import SyncCore
import Testing
import TestSupport

@testable import SyncServerKit

/// A real server on 127.0.0.1 (kernel-chosen port) with folder `docs` and a
/// device granted it, for tests that speak raw bytes over a socket.
struct LiveServer {
    let tmp: TemporaryDirectory
    let port: Int
    let credential: String
    let token: String
    private let running: Task<Void, any Error>

    static func start(idleTimeout: Duration = .seconds(2), maxRequestsPerDevice: Int = 64) async throws -> LiveServer {
        let tmp = try TemporaryDirectory("live-server")
        let settings = ServerSettings(
            host: "127.0.0.1", port: 0, dataDir: tmp.path, idleTimeout: idleTimeout, maxRequestsPerDevice: maxRequestsPerDevice)
        let server = try await SyncServer.open(settings: settings, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        try await server.admin.addFolder(Fixture.folder)
        let credential = try await server.admin.addDevice(name: "laptop", folders: [Fixture.folder])
        let (addresses, continuation) = AsyncStream.makeStream(of: ListeningAddress.self)
        let running = Task { try await server.run(handleSignals: false) { continuation.yield($0) } }
        var iterator = addresses.makeAsyncIterator()
        guard let address = await iterator.next() else { throw RawConnection.Failure(message: "server did not start") }
        let body = #"{"credential":"\#(credential)"}"#
        // Setup, not under test: a generous wait (other suites in this process can keep
        // both cores busy with 10,000-entry commits for many seconds).
        let answer = try await RawConnection.exchange(
            port: address.port,
            RawConnection.request("POST", "/v1/auth/token", headers: ["Content-Type": "application/json"], body: body),
            readTimeout: .seconds(120))
        guard let range = answer.body.range(of: #""access_token":""#) else {
            throw RawConnection.Failure(message: "no token: \(answer.text)")
        }
        let token = String(answer.body[range.upperBound...].prefix(64))
        return LiveServer(tmp: tmp, port: address.port, credential: credential, token: token, running: running)
    }

    func stop() async {
        running.cancel()
        _ = await running.result
        tmp.remove()
    }

    var dir: String { tmp.path }

    var auth: [String: String] { ["Authorization": "Bearer \(token)"] }
}

/// One TCP connection to the server, driven byte by byte, on a thread of its own.
enum RawConnection {
    struct Failure: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    struct Exchange: Sendable {
        /// Everything received.
        var text: String
        /// The server closed the connection (EOF or reset) before the read timeout.
        var closed: Bool
        var elapsed: Duration

        var status: Int? { text.hasPrefix("HTTP/1.1 ") ? Int(text.dropFirst(9).prefix(3)) : nil }
        var body: String { text.components(separatedBy: "\r\n\r\n").dropFirst().joined(separator: "\r\n\r\n") }
    }

    static func request(_ method: String, _ path: String, headers: [String: String] = [:], body: String? = nil) -> [UInt8] {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: localhost\r\n"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { head += "\(name): \(value)\r\n" }
        if let body { head += "Content-Length: \(body.utf8.count)\r\n" }
        return Array((head + "\r\n" + (body ?? "")).utf8)
    }

    /// Sends `bytes`, then reads until the server closes or `readTimeout` passes
    /// (`untilClosed` false: stops at the first complete-looking response instead). The
    /// default is generous: an answer ends the wait, and the full suite's other work (E2E
    /// daemons stopping, big hashes) can stall this process's in-process server for seconds.
    static func exchange(port: Int, _ bytes: [UInt8], readTimeout: Duration = .seconds(120), untilClosed: Bool = false)
        async throws -> Exchange
    {
        // A thread of its own: blocking GCD workers would starve the in-process server's
        // executor (libdispatch on Linux adds threads only about once a second).
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(with: Result {
                    try blocking(port: port, bytes, readTimeout: readTimeout, untilClosed: untilClosed)
                })
            }
            thread.start()
        }
    }

    private static func blocking(port: Int, _ bytes: [UInt8], readTimeout: Duration, untilClosed: Bool) throws -> Exchange {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(message: "socket: \(errno)") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw Failure(message: "connect: \(errno)") }
        let started = ContinuousClock.now
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { break }  // the server may close before reading everything
            sent += n
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        var closed = false
        let deadline = started + readTimeout
        while ContinuousClock.now < deadline {
            let left = deadline - ContinuousClock.now
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(max(1, left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000)))
            if ready <= 0 { continue }
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 {
                closed = true
                break
            }
            received += buffer[0..<n]
            if !untilClosed, looksComplete(received) { break }
        }
        return Exchange(text: String(decoding: received, as: UTF8.self), closed: closed, elapsed: ContinuousClock.now - started)
    }

    /// Head plus a body as long as its Content-Length.
    private static func looksComplete(_ bytes: [UInt8]) -> Bool {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let split = text.range(of: "\r\n\r\n") else { return false }
        let head = text[..<split.lowerBound].lowercased()
        guard let line = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
            let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
        else { return false }
        return text[split.upperBound...].utf8.count >= length
    }
}
