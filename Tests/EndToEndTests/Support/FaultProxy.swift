import Foundation
import Glibc
import Synchronization

/// A TCP proxy on 127.0.0.1 between a syncd and sync-server that can lose
/// exactly one reply: the first response to a request whose bytes contain a
/// marker is not forwarded, and both sides of that connection are cut. The
/// server has done the work; the client sees a reset.
final class FaultProxy: Sendable {
    let port: Int
    private let upstreamPort: Int
    private let listener: Int32
    private let state = Mutex(State())

    private struct State {
        var marker: [UInt8]?
        var faults = 0
        var stopped = false
    }

    init(upstreamPort: Int) throws {
        self.upstreamPort = upstreamPort
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("proxy socket: \(errno)") }
        var address = Self.loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 64) == 0 else { throw TestFailure("proxy bind/listen: \(errno)") }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = Int(UInt16(bigEndian: actual.sin_port))
        let acceptor = Thread { [self] in acceptLoop() }
        acceptor.start()
    }

    var url: String { "http://127.0.0.1:\(port)" }

    /// The next response to a request containing `marker` is lost.
    func loseNextReply(toRequestContaining marker: String) {
        state.withLock { $0.marker = Array(marker.utf8) }
    }

    var faults: Int { state.withLock { $0.faults } }

    func stop() {
        state.withLock { $0.stopped = true }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    private func acceptLoop() {
        while !state.withLock({ $0.stopped }) {
            let client = accept(listener, nil, nil)
            if client < 0 { return }
            let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = Self.loopback(port: upstreamPort)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else {
                close(client)
                close(upstream)
                continue
            }
            let connection = Connection(client: client, upstream: upstream)
            Thread { [self] in pumpRequests(connection) }.start()
            Thread { [self] in pumpReplies(connection) }.start()
        }
    }

    private final class Connection: Sendable {
        let client: Int32
        let upstream: Int32
        let doomed = Atomic<Bool>(false)
        let closed = Atomic<Bool>(false)
        init(client: Int32, upstream: Int32) {
            self.client = client
            self.upstream = upstream
        }

        func cut() {
            guard !closed.exchange(true, ordering: .sequentiallyConsistent) else { return }
            shutdown(client, Int32(SHUT_RDWR))
            shutdown(upstream, Int32(SHUT_RDWR))
            close(client)
            close(upstream)
        }
    }

    /// Client → server. A request holding the armed marker dooms its connection
    /// before its bytes are passed on (the reply cannot come earlier).
    private func pumpRequests(_ connection: Connection) {
        var buffer = [UInt8](repeating: 0, count: 65536)
        var recent: [UInt8] = []
        while true {
            let n = recv(connection.client, &buffer, buffer.count, 0)
            if n <= 0 { break }
            recent = Array((recent + buffer[0..<n]).suffix(1 << 20))
            let armed = state.withLock { state -> Bool in
                guard let marker = state.marker, Self.contains(recent, marker) else { return false }
                state.marker = nil
                return true
            }
            if armed { connection.doomed.store(true, ordering: .sequentiallyConsistent) }
            if !Self.sendAll(connection.upstream, Array(buffer[0..<n])) { break }
        }
        connection.cut()
    }

    /// Server → client, unless the connection is doomed: then the reply is lost.
    private func pumpReplies(_ connection: Connection) {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = recv(connection.upstream, &buffer, buffer.count, 0)
            if n <= 0 { break }
            if connection.doomed.load(ordering: .sequentiallyConsistent) {
                state.withLock { $0.faults += 1 }
                break
            }
            if !Self.sendAll(connection.client, Array(buffer[0..<n])) { break }
        }
        connection.cut()
    }

    private static func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return false }
            sent += n
        }
        return true
    }

    private static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, haystack.count >= needle.count else { return false }
        return (0...(haystack.count - needle.count)).contains { start in haystack[start..<(start + needle.count)].elementsEqual(needle) }
    }
}
