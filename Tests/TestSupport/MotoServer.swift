import Foundation

/// A real S3-speaking server for tests: moto's standalone server (PyPI `moto[server]`,
/// installed by scripts/install-deps.sh), started on a free port on 127.0.0.1 and killed
/// when the object goes away. It keeps objects in memory; it accepts any credentials.
public final class MotoServer: @unchecked Sendable {
    public let port: Int
    private let process: Process
    public var endpoint: String { "http://127.0.0.1:\(port)" }
    /// Credentials moto accepts (any would do).
    public static let accessKeyID = "test-key"
    public static let secretAccessKey = "test-secret"

    private init(port: Int, process: Process) {
        self.port = port
        self.process = process
    }

    deinit { stop() }

    /// Starts a server and waits (with a deadline) until it accepts connections.
    public static func start() async throws -> MotoServer {
        let port = try freePort()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-m", "moto.server", "-H", "127.0.0.1", "-p", String(port)]
        process.standardOutput = FileHandle.nullDevice
        let log = try Spawning.exclusively {
            let log = Pipe()
            process.standardError = log
            try process.run()
            return log
        }
        let server = MotoServer(port: port, process: process)
        let deadline = ContinuousClock.now + .seconds(30)
        while !canConnect(port: port) {
            guard process.isRunning else {
                let said = String(decoding: log.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                throw TestFailure(
                    "moto's server did not start (is moto[server] installed? scripts/install-deps.sh installs it): \(said.suffix(600))")
            }
            guard ContinuousClock.now < deadline else { throw TestFailure("moto's server did not listen on \(port) within 30 s") }
            try await Task.sleep(for: .milliseconds(50))
        }
        // Its log is not read from here on: let it go nowhere rather than fill the pipe.
        log.fileHandleForReading.readabilityHandler = { _ = $0.availableData }
        return server
    }

    public func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
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
