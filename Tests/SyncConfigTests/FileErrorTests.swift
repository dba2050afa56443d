import Foundation
import Testing
@testable import SyncConfig

/// Errors that involve the file system: unreadable config files and, with checkPaths, missing paths.
@Suite struct FileErrorTests {
    @Test func missingConfigFile() throws {
        try withTempDir { dir in
            let path = dir + "/nope.toml"
            expectConfigError(file: path, key: "", reason: "cannot read config file: no such file") {
                _ = try DaemonConfig.load(path: path, environment: testEnv)
            }
            expectConfigError(file: path, key: "", reason: "no such file") {
                _ = try ServerConfig.load(path: path, environment: testEnv)
            }
        }
    }

    @Test func configFileIsADirectory() throws {
        try withTempDir { dir in
            expectConfigError(file: dir, key: "", reason: "it is a directory") {
                _ = try DaemonConfig.load(path: dir, environment: testEnv)
            }
        }
    }

    @Test func configFileIsNotUTF8() throws {
        try withTempDir { dir in
            let path = dir + "/bad.toml"
            try Data([0x61, 0x20, 0x3D, 0x20, 0x22, 0xFF, 0xFE, 0x22]).write(to: URL(fileURLWithPath: path))
            expectConfigError(file: path, key: "", reason: "not valid UTF-8") {
                _ = try ServerConfig.load(path: path, environment: testEnv)
            }
        }
    }

    @Test func syntaxErrorFromFileHasLineAndColumn() throws {
        try withTempDir { dir in
            let path = dir + "/syncd.toml"
            try write("[daemon]\nlog_level = \"info\n", to: path)
            expectConfigError(file: path, key: "", reason: "TOML syntax error at line 2, column") {
                _ = try DaemonConfig.load(path: path, environment: testEnv)
            }
        }
    }

    /// A config in `dir` whose folder and credential paths are relative to it.
    func config(folder: String, credential: String) -> String {
        """
        [server]
        url = "http://127.0.0.1:8417"
        credential_file = "\(credential)"
        [[folder]]
        id = "docs"
        path = "\(folder)"
        """
    }

    @Test func folderPathMustExist() throws {
        try withTempDir { dir in
            try write("c", to: dir + "/cred")
            let file = dir + "/syncd.toml"
            try write(config(folder: "missing", credential: "cred"), to: file)
            expectConfigError(file: file, key: "folder[0].path", reason: "folder \(dir)/missing does not exist") {
                _ = try DaemonConfig.load(path: file, environment: testEnv)
            }
            // The same file passes without the check.
            #expect(throws: Never.self) { try DaemonConfig.load(path: file, environment: testEnv, checkPaths: false) }
        }
    }

    @Test func folderPathMustBeADirectory() throws {
        try withTempDir { dir in
            try write("c", to: dir + "/cred")
            try write("not a dir", to: dir + "/file")
            let file = dir + "/syncd.toml"
            try write(config(folder: "file", credential: "cred"), to: file)
            expectConfigError(file: file, key: "folder[0].path", reason: "\(dir)/file is not a directory") {
                _ = try DaemonConfig.load(path: file, environment: testEnv)
            }
        }
    }

    @Test func credentialFileMustExist() throws {
        try withTempDir { dir in
            try makeDir(dir + "/docs")
            let file = dir + "/syncd.toml"
            try write(config(folder: "docs", credential: "cred"), to: file)
            expectConfigError(file: file, key: "server.credential_file", reason: "\(dir)/cred does not exist") {
                _ = try DaemonConfig.load(path: file, environment: testEnv)
            }
        }
    }

    @Test func credentialFileMustBeARegularFile() throws {
        try withTempDir { dir in
            try makeDir(dir + "/docs")
            try makeDir(dir + "/cred")
            let file = dir + "/syncd.toml"
            try write(config(folder: "docs", credential: "cred"), to: file)
            expectConfigError(file: file, key: "server.credential_file", reason: "is not a regular file") {
                _ = try DaemonConfig.load(path: file, environment: testEnv)
            }
        }
    }

    @Test func foldersOverlappingThroughSymlinkAreRejected() throws {
        try withTempDir { dir in
            try makeDir(dir + "/real/inner")
            try write("c", to: dir + "/cred")
            try FileManager.default.createSymbolicLink(atPath: dir + "/link", withDestinationPath: dir + "/real/inner")
            let file = dir + "/syncd.toml"
            try write(config(folder: "real", credential: "cred") + "\n[[folder]]\nid = \"b\"\npath = \"link\"\n",
                      to: file)
            expectConfigError(file: file, key: "folder[1].path", reason: "(really \(dir)/real/inner) is inside") {
                _ = try DaemonConfig.load(path: file, environment: testEnv)
            }
        }
    }
}
