import Foundation

/// Where the PostgreSQL metadata database is: `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE`
/// (`postgresql://` too). The password comes from the URL, else from `password_file` (its
/// first line), else from `PGPASSWORD`; none at all is allowed (trust or peer setups).
/// `?sslmode=disable|prefer|require|verify-ca|verify-full` and `sslrootcert=FILE` as libpq
/// reads them.
public struct PostgresLocation: Equatable, Sendable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var user: String
    public var password: String?
    public var database: String
    public var sslMode: SSLMode = .prefer
    /// PEM file of the CAs the server's certificate is checked against (`sslrootcert`); nil:
    /// the system's.
    public var rootCertificates: String?

    public enum SSLMode: String, Sendable, CaseIterable {
        case disable, prefer, require
        case verifyCA = "verify-ca"
        case verifyFull = "verify-full"
    }

    /// Parses `url`; `passwordFile` and `environment` are consulted only when the URL has no password.
    public init(url: String, passwordFile: String? = nil, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        guard let components = URLComponents(string: url), let scheme = components.scheme,
            ["postgres", "postgresql"].contains(scheme)
        else { throw APIError.badRequest("storage.metadata: \(Self.redacted(url)) is not a postgres://USER@HOST:PORT/DATABASE URL") }
        guard let host = components.host, !host.isEmpty else {
            throw APIError.badRequest("storage.metadata: \(Self.redacted(url)) names no host")
        }
        guard let user = components.user, !user.isEmpty else {
            throw APIError.badRequest("storage.metadata: \(Self.redacted(url)) names no user (postgres://USER@HOST/DATABASE)")
        }
        let database = String(components.path.drop(while: { $0 == "/" }))
        guard !database.isEmpty, !database.contains("/") else {
            throw APIError.badRequest("storage.metadata: \(Self.redacted(url)) names no database (postgres://USER@HOST/DATABASE)")
        }
        self.host = host
        self.port = components.port ?? 5432
        self.user = user
        self.database = database
        if let mode = components.queryItems?.first(where: { $0.name == "sslmode" })?.value {
            guard let known = SSLMode(rawValue: mode) else {
                throw APIError.badRequest(
                    "storage.metadata: sslmode=\(mode) is not one of \(SSLMode.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            sslMode = known
        }
        // `system` means the system's CAs, as with libpq; anything else is a PEM file.
        if let file = components.queryItems?.first(where: { $0.name == "sslrootcert" })?.value, file != "system" {
            guard access(file, R_OK) == 0 else {
                throw APIError.badRequest("storage.metadata: sslrootcert=\(file) cannot be read (\(String(cString: strerror(errno))))")
            }
            rootCertificates = file
        }
        if let password = components.password {
            self.password = password
        } else if let passwordFile {
            let text: String
            do { text = try String(contentsOfFile: passwordFile, encoding: .utf8) } catch {
                throw APIError.badRequest("storage.password_file: cannot read \(passwordFile): \(error.localizedDescription)")
            }
            guard let line = text.split(separator: "\n", omittingEmptySubsequences: false).first, !line.isEmpty else {
                throw APIError.badRequest("storage.password_file: \(passwordFile) is empty")
            }
            self.password = String(line)
        } else {
            self.password = environment["PGPASSWORD"]
        }
    }

    /// The URL without its password, for messages and logs.
    public var description: String { "postgres://\(user)@\(host):\(port)/\(database)" }

    public static func redacted(_ url: String) -> String {
        guard var components = URLComponents(string: url), components.password != nil else { return url }
        components.password = "…"
        return components.string ?? "(unparsable URL)"
    }
}
