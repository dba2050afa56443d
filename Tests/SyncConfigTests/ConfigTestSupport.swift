import Foundation
import Testing
import TestSupport
@testable import SyncConfig

/// A fresh directory under the system temp dir, removed after `body`.
func withTempDir<T>(_ body: (String) throws -> T) throws -> T {
    let tmp = try TemporaryDirectory("config")
    defer {
        if let error = tmp.remove() { Issue.record("cleanup failed: \(error)") }
    }
    return try body(PathExpansion.realPath(tmp.path) ?? PathExpansion.normalize(tmp.path))
}

func write(_ text: String, to path: String) throws {
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
}

func makeDir(_ path: String) throws {
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
}

/// The repository's Config/ directory (works through a symlinked test directory too).
func exampleConfig(_ name: String) -> String {
    let here = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
    return here.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Config").appendingPathComponent(name).path
}

let testEnv = ["HOME": "/home/ann", "DATA": "/data", "USER": "ann"]
let daemonFile = "/etc/syncd/syncd.toml"
let serverFile = "/etc/sync-server/sync-server.toml"

/// The smallest valid syncd config; tests append to it or replace parts.
let minimalDaemon = """
    [server]
    url = "http://127.0.0.1:8417"
    credential_file = "/etc/syncd/credential"

    [[folder]]
    id = "docs"
    path = "/srv/docs"

    """

func parseDaemon(_ toml: String, env: [String: String] = testEnv) throws(ConfigError) -> DaemonConfig {
    try DaemonConfig.parse(toml: toml, file: daemonFile, environment: env, checkPaths: false)
}

func parseServer(_ toml: String, env: [String: String] = testEnv) throws(ConfigError) -> ServerConfig {
    try ServerConfig.parse(toml: toml, file: serverFile, environment: env)
}

/// One expected failure: the TOML, and the key and a piece of the reason the error must carry.
struct BadConfig: Sendable, CustomTestStringConvertible {
    var toml: String
    var key: String
    var reason: String
    var testDescription: String { "\(key): \(reason)" }

    init(_ toml: String, key: String, reason: String) {
        self.toml = toml
        self.key = key
        self.reason = reason
    }
}

/// Asserts that `body` throws a ConfigError with this file and key, whose reason contains `reason`.
func expectConfigError(
    file: String, key: String, reason: String,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> Void
) {
    do {
        try body()
        Issue.record("expected a ConfigError for \(key) (\(reason)), but it succeeded", sourceLocation: sourceLocation)
    } catch let error as ConfigError {
        #expect(error.file == file, sourceLocation: sourceLocation)
        #expect(error.key == key, "\(error)", sourceLocation: sourceLocation)
        #expect(error.reason.contains(reason), "\(error)", sourceLocation: sourceLocation)
        #expect(!error.description.contains("\n"), sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected a ConfigError, got \(error)", sourceLocation: sourceLocation)
    }
}
