import Foundation

/// A real S3-speaking server for tests: moto's standalone server (PyPI `moto[server]`,
/// installed by scripts/install-deps.sh), started on a free port on 127.0.0.1 and killed
/// when the object goes away. It keeps objects in memory; it accepts any credentials.
public final class MotoServer: Sendable {
    public let port: Int
    private let process: Child
    public var endpoint: String { "http://127.0.0.1:\(port)" }
    /// Credentials moto accepts (any would do).
    public static let accessKeyID = "test-key"
    public static let secretAccessKey = "test-secret"

    /// Where its output goes (a file, not a pipe: nothing waits for a pipe's end).
    private let logPath: String

    private init(port: Int, process: Child, logPath: String) {
        self.port = port
        self.process = process
        self.logPath = logPath
    }

    deinit { stop() }

    /// Starts a server and waits (with a deadline) until it accepts connections.
    public static func start() async throws -> MotoServer {
        let port = try freePort()
        let logPath = NSTemporaryDirectory() + "syncd-test-moto-\(UUID().uuidString.prefix(8)).log"
        let process = try Child.spawn(
            "/usr/bin/env", ["python3", "-m", "moto.server", "-H", "127.0.0.1", "-p", String(port)], stderr: .file(logPath))
        let server = MotoServer(port: port, process: process, logPath: logPath)
        let deadline = ContinuousClock.now + .seconds(30)
        while !canConnect(port: port) {
            guard process.isRunning else {
                let said = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
                throw TestFailure(
                    "moto's server did not start (is moto[server] installed? scripts/install-deps.sh installs it): \(said.suffix(600))")
            }
            guard ContinuousClock.now < deadline else { throw TestFailure("moto's server did not listen on \(port) within 30 s") }
            try await Task.sleep(for: .milliseconds(50))
        }
        return server
    }

    public func stop() {
        defer { unlink(logPath) }
        process.signal(SIGKILL)
        _ = process.waitForExit(within: .seconds(30))
    }

    static func canConnect(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        return withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }
}
