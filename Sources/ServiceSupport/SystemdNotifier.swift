import Glibc

/// systemd's notify protocol (`sd_notify(3)`) without libsystemd: newline-separated
/// `KEY=VALUE` assignments sent as one datagram to the unix socket named by
/// `NOTIFY_SOCKET` (a path, or `@name` in the abstract namespace). Used for
/// `Type=notify` units: `READY=1` once serving, `WATCHDOG=1` pings, `STOPPING=1`.
///
/// `nil` when the process was not started by systemd with a notify socket: then there
/// is no one to tell, and nothing is sent.
public struct SystemdNotifier: Sendable {
    /// The socket address bytes (`sun_path`), with a leading NUL for an abstract name.
    let address: [UInt8]
    /// How often systemd expects a `WATCHDOG=1` (`WATCHDOG_USEC`), when it watches this process.
    public let watchdogInterval: Duration?

    public init?(environment: [String: String], pid: Int32 = getpid()) {
        guard let socket = environment["NOTIFY_SOCKET"], socket.hasPrefix("/") || socket.hasPrefix("@") else { return nil }
        var bytes = Array(socket.utf8)
        if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 }
        guard bytes.count < MemoryLayout.size(ofValue: sockaddr_un().sun_path) else { return nil }
        address = bytes
        // WATCHDOG_PID, when set, names the process meant (not a child we started).
        let forUs = environment["WATCHDOG_PID"].map { Int32($0) == pid } ?? true
        if forUs, let text = environment["WATCHDOG_USEC"], let usec = Int64(text), usec > 0 {
            watchdogInterval = .microseconds(usec)
        } else {
            watchdogInterval = nil
        }
    }

    /// Sends the assignments (`"READY=1\nSTATUS=…"`); false if the socket would not take them.
    @discardableResult
    public func notify(_ assignments: String) -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in raw.copyBytes(from: address) }
        // Abstract names are exactly as long as given; paths end at their NUL.
        let length = MemoryLayout<sa_family_t>.size + address.count + (address.first == 0 ? 0 : 1)
        let message = Array(assignments.utf8)
        let sent = withUnsafePointer(to: &addr) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sockaddr in
                message.withUnsafeBytes { sendto(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL), sockaddr, socklen_t(length)) }
            }
        }
        return sent == message.count
    }
}
