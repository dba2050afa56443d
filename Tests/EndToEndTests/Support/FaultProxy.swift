import Foundation
import Glibc
import Synchronization
import TestSupport

/// A TCP proxy on 127.0.0.1 between a syncd and sync-server that can lose
/// exactly one reply: the first response to a request whose bytes contain a
/// marker is not forwarded, and both sides of that connection are cut. The
/// server has done the work; the client sees a reset. With `chaos`, it also
/// injects seeded faults on every connection: resets in the middle of a
/// request or reply body, stalls and delays.
final class FaultProxy: Sendable {
    /// Seeded random faults, drawn per forwarded read (each connection has its own
    /// generator, from the seed and the connection's number).
    struct Chaos: Sendable {
        var seed: UInt64
        /// Chance that a read's bytes are dropped and the connection reset.
        var reset = 0.01
        /// Chance of a stall of `stallMs` before forwarding.
        var stall = 0.01
        var stallMs = 1_500
        /// Chance of a short delay (1-50 ms).
        var delay = 0.05
    }

    let port: Int
    private let upstreamPort: Int
    private let listener: Int32
    private let state = Mutex(State())

    private struct State {
        var marker: [UInt8]?
        var hook: (marker: [UInt8], action: @Sendable () -> Void)?
        var replyDelay: (marker: [UInt8], milliseconds: Int)?
        /// Bytes of replies to requests containing `marker` still passed on; nil: all.
        var gate: (marker: [UInt8], budget: Int?)?
        var refusal: (marker: [UInt8], response: [UInt8], every: Bool)?
        var faults = 0
        var stopped = false
        var chaos: Chaos?
        var connections: UInt64 = 0
        var forwarded = 0
        var injected: [String: Int] = [:]
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

    /// Replies to requests containing `marker` made from now on are passed on until `budget`
    /// bytes of them have been, then held until `openGate`: a download stopped partway however
    /// fast or slow the machine, for as long as a test needs.
    func gateReplies(toRequestsContaining marker: String, after budget: Int) {
        state.withLock { $0.gate = (Array(marker.utf8), budget) }
    }

    /// The replies held by `gateReplies` go on, and those to come are no longer held.
    func openGate() {
        state.withLock { state in
            if let marker = state.gate?.marker { state.gate = (marker, nil) }
        }
    }

    /// The next response to a request containing `marker` is lost.
    func loseNextReply(toRequestContaining marker: String) {
        state.withLock { $0.marker = Array(marker.utf8) }
    }

    /// Before the request containing `marker` reaches the server (its bytes up to the marker
    /// may have), `action` runs, once, on the proxy's thread.
    func beforeForwarding(requestContaining marker: String, _ action: @escaping @Sendable () -> Void) {
        state.withLock { $0.hook = (Array(marker.utf8), action) }
    }

    /// From now on, every reply to a request containing `marker` is held `delay` before it
    /// is passed on (a slow network for, say, the change feed's long-polls).
    func delayReplies(toRequestsContaining marker: String, by delay: Duration) {
        let ms = Int(delay.components.seconds * 1000 + delay.components.attoseconds / 1_000_000_000_000_000)
        state.withLock { $0.replyDelay = (Array(marker.utf8), ms) }
    }

    /// The next request containing `marker` never reaches the server: the proxy answers it
    /// with `status` and a JSON error body of the server's shape, and closes the connection.
    /// `every`: every such request from now on, not only the next (`faults` counts them).
    func refuseNext(requestContaining marker: String, status: Int, code: String, message: String, every: Bool = false) {
        let body = #"{"error":{"code":"\#(code)","message":"\#(message)"}}"#
        let head = "HTTP/1.1 \(status) Refused\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n"
        state.withLock { $0.refusal = (Array(marker.utf8), Array((head + body).utf8), every) }
    }

    /// Requests are passed on again (after `refuseNext(…, every: true)`).
    func stopRefusing() {
        state.withLock { $0.refusal = nil }
    }

    var faults: Int { state.withLock { $0.faults } }

    /// Seeded faults from now on (nil: none).
    func setChaos(_ chaos: Chaos?) {
        state.withLock { $0.chaos = chaos }
    }

    /// What chaos did so far: reads forwarded and faults by kind.
    var chaosReport: String {
        state.withLock { s in
            "\(s.connections) connections, \(s.forwarded) reads forwarded, faults "
                + s.injected.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        }
    }

    private enum Fault { case none, reset, stall(Int), delay(Int) }

    /// The fault for one read of `connection`, from its own generator.
    private func roll(_ connection: Connection) -> Fault {
        state.withLock { s -> Fault in
            s.forwarded += 1
            guard let chaos = s.chaos else { return .none }
            let r = connection.nextUnit()
            let fault: Fault
            if r < chaos.reset {
                fault = .reset
                s.injected["reset", default: 0] += 1
            } else if r < chaos.reset + chaos.stall {
                fault = .stall(chaos.stallMs)
                s.injected["stall", default: 0] += 1
            } else if r < chaos.reset + chaos.stall + chaos.delay {
                fault = .delay(1 + Int(connection.nextUnit() * 49))
                s.injected["delay", default: 0] += 1
            } else {
                fault = .none
            }
            return fault
        }
    }

    /// Applies a rolled fault; false when the connection must be cut.
    private func suffer(_ connection: Connection) -> Bool {
        switch roll(connection) {
        case .none: return true
        case .reset: return false
        case .stall(let ms), .delay(let ms):
            usleep(useconds_t(ms * 1000))
            return true
        }
    }

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
            let number = state.withLock { s -> UInt64 in
                s.connections += 1
                return (s.chaos?.seed ?? 0) &* 0x9E37_79B9_7F4A_7C15 &+ s.connections
            }
            let connection = Connection(client: client, upstream: upstream, seed: number)
            Thread { [self] in pumpRequests(connection) }.start()
            Thread { [self] in pumpReplies(connection) }.start()
        }
    }

    private final class Connection: Sendable {
        let client: Int32
        let upstream: Int32
        let doomed = Atomic<Bool>(false)
        /// Milliseconds to hold the next reply (see `delayReplies`).
        let replyDelay = Atomic<Int>(0)
        /// The last request contained the gate's marker (see `gateReplies`).
        let gated = Atomic<Bool>(false)
        let closed = Atomic<Bool>(false)
        private let rng: Mutex<SplitMix64>
        init(client: Int32, upstream: Int32, seed: UInt64) {
            self.client = client
            self.upstream = upstream
            self.rng = Mutex(SplitMix64(seed: seed))
        }

        /// The connection's next number in [0, 1).
        func nextUnit() -> Double { rng.withLock { $0.unit() } }

        /// Ends both directions. The fds are closed only by the second pump to finish
        /// (`pumpFinished`): closed while the other pump still held them, their numbers could
        /// go to a connection accepted meanwhile, and a reply held back (`delayReplies`) would
        /// be written into that one (a device stopped and started again got another chunk's
        /// bytes for the one it asked for, and refused them).
        func cut() {
            guard !closed.exchange(true, ordering: .sequentiallyConsistent) else { return }
            shutdown(client, Int32(SHUT_RDWR))
            shutdown(upstream, Int32(SHUT_RDWR))
        }

        let pumpsDone = Atomic<Int>(0)

        /// Called by each pump as it ends, after `cut`.
        func pumpFinished() {
            guard pumpsDone.add(1, ordering: .sequentiallyConsistent).newValue == 2 else { return }
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
            // The new bytes, and enough of the old ones to find a marker split across reads.
            recent = Array(recent.suffix(Self.maxMarkerBytes - 1)) + buffer[0..<n]
            let armed = state.withLock { state -> Bool in
                guard let marker = state.marker, Self.contains(recent, marker) else { return false }
                state.marker = nil
                return true
            }
            if armed { connection.doomed.store(true, ordering: .sequentiallyConsistent) }
            let delay = state.withLock { state -> Int in
                guard let rule = state.replyDelay, Self.contains(recent, rule.marker) else { return 0 }
                return rule.milliseconds
            }
            if delay > 0 { connection.replyDelay.store(delay, ordering: .sequentiallyConsistent) }
            // A read that starts a request decides whether its reply is gated (not `recent`: the
            // request before on this connection may have held the marker).
            let read = Array(buffer[0..<n])
            if Self.contains(read, Self.requestLineEnd) {
                let gated = state.withLock { state in state.gate.map { Self.contains(read, $0.marker) } ?? false }
                connection.gated.store(gated, ordering: .sequentiallyConsistent)
            }
            let hook = state.withLock { state -> (@Sendable () -> Void)? in
                guard let hook = state.hook, Self.contains(recent, hook.marker) else { return nil }
                state.hook = nil
                return hook.action
            }
            hook?()
            let refusal = state.withLock { state -> [UInt8]? in
                guard let rule = state.refusal, Self.contains(recent, rule.marker) else { return nil }
                if !rule.every { state.refusal = nil }
                state.faults += 1
                return rule.response
            }
            if let refusal {
                // Answered here: the rest of the request is read and dropped until the client
                // closes (closing with its bytes unread would reset the answer away).
                _ = Self.sendAll(connection.client, refusal)
                shutdown(connection.client, Int32(SHUT_WR))
                var limit = timeval(tv_sec: 5, tv_usec: 0)  // a client that never closes: 5 s
                setsockopt(connection.client, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
                while recv(connection.client, &buffer, buffer.count, 0) > 0 {}
                break
            }
            if !suffer(connection) { break }
            if !Self.sendAll(connection.upstream, Array(buffer[0..<n])) { break }
        }
        connection.cut()
        connection.pumpFinished()
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
            if !suffer(connection) { break }
            let delay = connection.replyDelay.exchange(0, ordering: .sequentiallyConsistent)
            if delay > 0 { usleep(UInt32(delay) * 1000) }
            if connection.gated.load(ordering: .sequentiallyConsistent), !passGate(n, connection) { break }
            if !Self.sendAll(connection.client, Array(buffer[0..<n])) { break }
        }
        connection.cut()
        connection.pumpFinished()
    }

    /// Waits until `count` bytes of a gated reply may pass (`gateReplies`); false if the
    /// connection is cut meanwhile.
    private func passGate(_ count: Int, _ connection: Connection) -> Bool {
        while !connection.closed.load(ordering: .sequentiallyConsistent) {
            let passed = state.withLock { state -> Bool in
                guard let gate = state.gate, let budget = gate.budget else { return true }
                guard budget > 0 else { return false }
                state.gate = (gate.marker, budget - count)
                return true
            }
            if passed { return true }
            usleep(10_000)
        }
        return false
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

    private static let requestLineEnd = Array(" HTTP/1.1\r\n".utf8)

    /// Markers are at most this long.
    static let maxMarkerBytes = 256

    private static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, needle.count <= maxMarkerBytes, haystack.count >= needle.count else { return false }
        return haystack.withUnsafeBufferPointer { h in
            needle.withUnsafeBufferPointer { n in
                let last = h.count - n.count
                var start = 0
                while start <= last {
                    // The next place the first byte occurs, then the rest compared in one go.
                    guard let hit = memchr(h.baseAddress! + start, Int32(n[0]), last - start + 1) else { return false }
                    start = h.baseAddress!.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                    if memcmp(h.baseAddress! + start, n.baseAddress!, n.count) == 0 { return true }
                    start += 1
                }
                return false
            }
        }
    }
}
