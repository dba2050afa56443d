import Foundation
import Logging
import Testing
import TestSupport

@testable import SyncServerKit

@Suite("PostgreSQL location")
struct PostgresLocationTests {
    @Test func theURLNamesHostPortUserDatabaseAndTLS() throws {
        let location = try PostgresLocation(url: "postgres://sync:s3cret@db.example:6432/syncmeta?sslmode=require", environment: [:])
        #expect(try location == PostgresLocation.expected(host: "db.example", port: 6432, user: "sync", password: "s3cret", database: "syncmeta", ssl: .require))
        #expect(location.description == "postgres://sync@db.example:6432/syncmeta", "no password in what is logged")
        let plain = try PostgresLocation(url: "postgresql://sync@db/syncmeta", environment: [:])
        #expect(plain.port == 5432 && plain.password == nil && plain.sslMode == .prefer)
    }

    @Test func thePasswordComesFromTheURLThenTheFileThenPGPASSWORD() throws {
        let tmp = try TemporaryDirectory("pg-location")
        defer { tmp.remove() }
        try "from-file\nignored\n".write(toFile: tmp.path + "/pw", atomically: true, encoding: .utf8)
        let env = ["PGPASSWORD": "from-env"]
        #expect(try PostgresLocation(url: "postgres://u:from-url@h/d", passwordFile: tmp.path + "/pw", environment: env).password == "from-url")
        #expect(try PostgresLocation(url: "postgres://u@h/d", passwordFile: tmp.path + "/pw", environment: env).password == "from-file")
        #expect(try PostgresLocation(url: "postgres://u@h/d", environment: env).password == "from-env")
        #expect(throws: APIError.self) { try PostgresLocation(url: "postgres://u@h/d", passwordFile: tmp.path + "/missing", environment: env) }
    }

    @Test func aBrokenURLIsASentenceWithoutThePassword() {
        for url in ["mysql://u:pw@h/d", "postgres://u:pw@/d", "postgres://h/d", "postgres://u:pw@h/", "postgres://u:pw@h/d?sslmode=always"] {
            do {
                _ = try PostgresLocation(url: url, environment: [:])
                Issue.record("\(url) was accepted")
            } catch let error as APIError {
                #expect(error.message.hasPrefix("storage."), "\(error.message)")
                #expect(!error.message.contains("pw@"), "the password is not repeated: \(error.message)")
            } catch { Issue.record("\(error)") }
        }
    }
}

extension PostgresLocation {
    static func expected(host: String, port: Int, user: String, password: String?, database: String, ssl: SSLMode) throws -> PostgresLocation {
        var location = try PostgresLocation(url: "postgres://x@y/z", environment: [:])
        location.host = host
        location.port = port
        location.user = user
        location.password = password
        location.database = database
        location.sslMode = ssl
        return location
    }
}

@Suite("PostgreSQL start")
struct PostgresStartTests {
    /// A database the server cannot use stops the start with the server's own words, at once
    /// (not a pool retrying forever).
    @Test func aWrongPasswordOrNoServerIsASentence() async throws {
        let server = try PostgresServer.shared()
        var wrong = try await PostgresLocation(url: try server.database("wrong") + "?sslmode=disable", environment: [:])
        wrong.password = "not-the-password"
        let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        let started = ContinuousClock.now
        do {
            _ = try await PostgresMetadataStore.open(wrong, logger: logger)
            Issue.record("opened with a wrong password")
        } catch let error as APIError {
            #expect(error.message.contains("password authentication failed"), "\(error.message)")
            #expect(!error.message.contains("not-the-password"))
        }
        var nobody = wrong
        nobody.port = try freePort()
        do {
            _ = try await PostgresMetadataStore.open(nobody, logger: logger)
            Issue.record("opened with nothing listening")
        } catch let error as APIError {
            #expect(error.message.contains("cannot use the metadata database postgres://syncd@127.0.0.1:\(nobody.port)/"), "\(error.message)")
        }
        #expect(ContinuousClock.now - started < .seconds(30))
    }

    /// `sslrootcert`: the server's certificate is checked against that CA (`verify-full` also
    /// the host name, `require` with a CA as `verify-ca`); another CA, or the system's, refuse it.
    @Test func theCertificateIsCheckedAgainstSslrootcert() async throws {
        let server = try PostgresServer.shared()
        let tmp = try TemporaryDirectory("pg-tls")
        defer { tmp.remove() }
        let other = try TestCertificates(dir: tmp.path)
        let url = try await server.database("tls")
        let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        func opens(_ query: String) async -> String? {
            do {
                let store = try await PostgresMetadataStore.open(try PostgresLocation(url: url + query), logger: logger)
                try await store.ping()
                await store.shutdown()
                return nil
            } catch let error as APIError {
                return error.message
            } catch {
                return "\(error)"
            }
        }
        for mode in ["verify-full", "verify-ca", "require"] {
            #expect(await opens("?sslmode=\(mode)&sslrootcert=\(server.caFile)") == nil, "\(mode)")
            let refused = await opens("?sslmode=\(mode)&sslrootcert=\(other.caFile)")
            #expect(refused?.contains("cannot use the metadata database") == true, "\(mode): \(refused ?? "opened")")
        }
        #expect(await opens("?sslmode=verify-full") != nil, "the system's CAs do not know the test CA")
        #expect(await opens("?sslmode=require") == nil, "require without a CA file checks nothing")
        #expect(await opens("?sslmode=prefer&sslrootcert=\(other.caFile)") == nil, "prefer checks nothing")
        #expect(throws: APIError.self) { try PostgresLocation(url: url + "?sslmode=verify-full&sslrootcert=\(tmp.path)/missing.pem") }
        #expect(try PostgresLocation(url: url + "?sslmode=verify-full&sslrootcert=system").rootCertificates == nil, "libpq's word for the system's CAs")
    }
}
