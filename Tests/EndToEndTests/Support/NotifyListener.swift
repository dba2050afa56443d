import Foundation
import TestSupport

/// Plays systemd's side of the notify protocol: a unix datagram socket that a
/// `Type=notify` service writes `READY=1`, `WATCHDOG=1`, `STOPPING=1` to.
final class NotifyListener: @unchecked Sendable {
    let path: String
    private let fd: Int32
    /// Every datagram received so far, in order.
    private(set) var messages: [String] = []

    init(path: String) throws {
        self.path = path
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket: \(errno)") }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &addr.sun_path) { $0.copyBytes(from: bytes) }
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0 else { throw TestFailure("bind \(path): \(errno)") }
        var timeout = timeval(tv_sec: 0, tv_usec: 50_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit {
        close(fd)
        unlink(path)
    }

    /// Reads what has arrived (waits at most 50 ms for the first datagram).
    func drain() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { return }
            messages.append(String(decoding: buffer[..<n], as: UTF8.self))
        }
    }

    /// How many datagrams carried the assignment `line` (e.g. `WATCHDOG=1`).
    func count(_ line: String) -> Int {
        messages.filter { $0.split(separator: "\n").contains(Substring(line)) }.count
    }

    /// Waits until `line` has arrived `times` times.
    func wait(for line: String, times: Int = 1, timeout: Duration = .seconds(20)) async throws {
        try await eventually("\(line) ×\(times) on the notify socket (got \(messages))", timeout: timeout) {
            drain()
            return count(line) >= times
        }
    }
}
