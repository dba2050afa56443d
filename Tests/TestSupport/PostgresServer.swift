import CLinux
import Foundation

/// A real PostgreSQL server for tests: Debian's binaries (scripts/install-deps.sh installs
/// them), a throwaway cluster made with initdb in a temp dir and started with pg_ctl as an
/// unprivileged user (`postgres` when the tests run as root), on a free port of 127.0.0.1,
/// password authentication (SCRAM). One cluster per test process, started on first use;
/// each test takes its own database (`database()`). A watchdog process stops the cluster
/// and removes its directory when the test process ends, however it ends.
///
/// The cluster runs with `fsync=off`: it is thrown away, and the tests are about what the
/// server does, not about PostgreSQL's durability. It offers TLS with a certificate for
/// 127.0.0.1 from a throwaway CA (`caFile`); connections may still go without it.
public final class PostgresServer: Sendable {
    public let port: Int
    public let user = "syncd"
    public let password: String
    public let binaries: String
    let directory: String
    /// The CA that signed the cluster's TLS certificate.
    public var caFile: String { directory + "/tls/ca.pem" }

    private init(port: Int, password: String, binaries: String, directory: String) {
        self.port = port
        self.password = password
        self.binaries = binaries
        self.directory = directory
    }

    private static let started = StartedOnce { try start() }

    /// The test process's cluster, started on first use (blocking: a few seconds, once; a
    /// start that failed is not tried again).
    public static func shared() throws -> PostgresServer { try started.get() }

    /// `postgres://syncd:PASSWORD@127.0.0.1:PORT/NAME` of a new, empty database.
    public func database(_ label: String) async throws -> String {
        let name = Self.databaseName(label)
        try await create(database: name)
        return url(database: name)
    }

    /// A name no other database of the run has, for `create(database:)`.
    public static func databaseName(_ label: String) -> String {
        "t_" + label.lowercased().filter { $0.isLetter || $0.isNumber } + "_" + UUID().uuidString.prefix(8).lowercased()
    }

    /// Creates the empty database `name`.
    public func create(database name: String) async throws {
        try await Self.run(
            binaries + "/createdb", ["-h", "127.0.0.1", "-p", String(port), "-U", user, name], environment: ["PGPASSWORD": password],
            log: directory + "/log")
    }

    public func url(database: String) -> String { "postgres://\(user):\(password)@127.0.0.1:\(port)/\(database)" }

    static func start() throws -> PostgresServer {
        let binaries = try findBinaries()
        let directory = NSTemporaryDirectory() + "syncd-test-pg-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let password = UUID().uuidString
        try password.write(toFile: directory + "/pwfile", atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: directory + "/tls", withIntermediateDirectories: true)
        let certificates = try TestCertificates(dir: directory + "/tls")
        let owner = getuid() == 0 ? try unprivilegedUser() : nil
        if let owner { try run("/bin/chown", ["-R", owner, directory]) }
        try run("/bin/chmod", ["0600", certificates.serverKey])
        let port = try freePort()
        let server = PostgresServer(port: port, password: password, binaries: binaries, directory: directory)
        try server.watch(owner: owner)
        try server.asOwner(owner, binaries + "/initdb", [
            "-D", directory + "/data", "-U", "syncd", "--auth=scram-sha-256", "--pwfile=" + directory + "/pwfile",
            "-E", "UTF8", "--locale=C.UTF-8", "--no-sync",
        ])
        try server.asOwner(owner, binaries + "/pg_ctl", [
            "-D", directory + "/data", "-l", directory + "/log", "-w", "-t", "60", "start", "-o",
            "-p \(port) -k \(directory) -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=600 -c ssl=on "
                + "-c ssl_cert_file=\(certificates.serverCertificate) -c ssl_key_file=\(certificates.serverKey)",
        ])
        return server
    }

    /// A process that waits for this one to end, then stops the cluster and removes it.
    private func watch(owner: String?) throws {
        let stop = [binaries + "/pg_ctl", "-D", directory + "/data", "stop", "-m", "immediate"].map(Self.quoted).joined(separator: " ")
        let asOwner = owner.map { "runuser -u \($0) -- " } ?? ""
        let script = """
            while kill -0 \(getpid()) 2>/dev/null; do sleep 0.5; done
            \(asOwner)\(stop) >/dev/null 2>&1
            rm -rf \(Self.quoted(directory))
            """
        try DetachedShell.start(script)
    }

    private func asOwner(_ owner: String?, _ program: String, _ arguments: [String]) throws {
        if let owner {
            try Self.run("/usr/sbin/runuser", ["-u", owner, "--", program] + arguments, log: directory + "/log")
        } else {
            try Self.run(program, arguments, log: directory + "/log")
        }
    }

    private func run(_ program: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        try Self.run(program, arguments, environment: environment, log: directory + "/log")
    }

    /// Runs a program to its end, at most 180 s; a failure says what it printed (and the
    /// server's log). A `Child`: `pg_ctl start`'s server lives on, and it must hold nothing
    /// of this process (a test's HTTP connection would never close).
    static func run(_ program: String, _ arguments: [String], environment: [String: String] = [:], log: String? = nil) throws {
        let output = NSTemporaryDirectory() + "syncd-test-pg-run-\(UUID().uuidString.prefix(8))"
        defer { unlink(output) }
        let child = try Child.spawn(
            program, arguments, environment: ProcessInfo.processInfo.environment.merging(environment) { $1 },
            stdout: .file(output), stderr: .file(output))
        // A program that hangs (createdb against a server that stopped answering) fails the
        // test instead of parking one of the pool's threads.
        guard child.waitForExit(within: .seconds(180)) else {
            child.signal(SIGKILL)
            _ = child.waitForExit(within: .seconds(30))
            throw TestFailure("\(program) \(arguments.joined(separator: " ")) kept running past 180 s")
        }
        try check(child, program, arguments, output: output, log: log)
    }

    /// `run` from async code: the same, sleeping between looks at the program instead of
    /// holding one of the test process's cooperative threads while it runs.
    static func run(_ program: String, _ arguments: [String], environment: [String: String] = [:], log: String? = nil) async throws {
        let output = NSTemporaryDirectory() + "syncd-test-pg-run-\(UUID().uuidString.prefix(8))"
        defer { unlink(output) }
        let child = try Child.spawn(
            program, arguments, environment: ProcessInfo.processInfo.environment.merging(environment) { $1 },
            stdout: .file(output), stderr: .file(output))
        guard await child.waitForExit(within: .seconds(180)) else {
            child.signal(SIGKILL)
            _ = await child.waitForExit(within: .seconds(30))
            throw TestFailure("\(program) \(arguments.joined(separator: " ")) kept running past 180 s")
        }
        try check(child, program, arguments, output: output, log: log)
    }

    /// Throws what a program that failed printed (and the server's log).
    private static func check(_ child: Child, _ program: String, _ arguments: [String], output: String, log: String?) throws {
        guard child.terminationReason != .exit || child.terminationStatus != 0 else { return }
        let said = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        let logged = log.flatMap { try? String(contentsOfFile: $0, encoding: .utf8) } ?? ""
        throw TestFailure(
            "\(program) \(arguments.joined(separator: " ")) failed (\(child.terminationReason) \(child.terminationStatus)): "
                + "\(said.suffix(1500))\n\(logged.suffix(1500))")
    }

    /// `/usr/lib/postgresql/<newest>/bin`.
    static func findBinaries() throws -> String {
        let root = "/usr/lib/postgresql"
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        let newest = versions.compactMap(Int.init).sorted().last
        guard let newest, FileManager.default.isExecutableFile(atPath: "\(root)/\(newest)/bin/initdb") else {
            throw TestFailure("PostgreSQL's server binaries are not installed under \(root) (scripts/install-deps.sh installs Debian's postgresql)")
        }
        return "\(root)/\(newest)/bin"
    }

    /// PostgreSQL refuses to run as root.
    static func unprivilegedUser() throws -> String {
        if getpwnam("postgres") != nil { return "postgres" }
        if getpwnam("nobody") != nil { return "nobody" }
        throw TestFailure("running as root, and neither user postgres nor nobody exists to run PostgreSQL as")
    }

    static func quoted(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: #"'\''"#) + "'" }
}
