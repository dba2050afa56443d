import Foundation
import Synchronization

/// A TCP port on 127.0.0.1 that nothing listens on right now, never handed out twice by this
/// test process. Ports come from below the kernel's ephemeral range (32768-60999 here), in
/// turn from a random start: a port the kernel picks for `bind(0)` or an outgoing connection
/// is free again once let go, and a server stopped and restarted on its port (a test of the
/// server going away) found it taken by another test's new server, whose `health` answered
/// for it and whose devices were unknown (a CI run saw `401 invalid credential`).
public func freePort() throws -> Int {
    for _ in 0..<PortRange.count {
        let port = PortRange.next()
        if isFree(port) { return port }
    }
    throw TestFailure("no free port in \(PortRange.lower)..<\(PortRange.upper)")
}

private enum PortRange {
    static let lower = 20_000
    static let upper = 32_000
    static var count: Int { upper - lower }
    private static let cursor = Mutex(Int.random(in: 0..<count))

    static func next() -> Int {
        cursor.withLock { c in
            c = (c + 1) % count
            return lower + c
        }
    }
}

/// Whether `port` on 127.0.0.1 can be bound now (with SO_REUSEADDR, as servers bind).
private func isFree(_ port: Int) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var one: Int32 = 1
    _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    addr.sin_port = UInt16(port).bigEndian
    let bound = withUnsafePointer(to: &addr) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    return bound == 0
}
