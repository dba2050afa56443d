import Foundation

/// Checks that span several keys, and (optionally) the file system.
extension DaemonConfig {
    /// Longest Unix socket path Linux accepts (`sun_path` is 108 bytes, NUL included).
    static let maxSocketPathBytes = 107

    func validate(checkPaths: Bool) throws(ConfigError) {
        try validateFolders()
        try validateStateDir()
        if checkPaths {
            try checkFileSystem()
        }
    }

    private func error(_ key: String, _ reason: String) -> ConfigError {
        ConfigError(file: file, key: key, reason: reason)
    }

    private func validateFolders() throws(ConfigError) {
        for (i, folder) in folders.enumerated() {
            for j in 0..<i {
                let other = folders[j]
                if folder.id == other.id {
                    throw error("folder[\(i)].id", "duplicate folder id \"\(folder.id)\" (also used by folder[\(j)])")
                }
                if let relation = Self.overlap(folder.path, other.path) {
                    throw error("folder[\(i)].path",
                                "folder \"\(folder.id)\" path \(folder.path) \(relation) folder[\(j)] \"\(other.id)\" path \(other.path); folders must not overlap")
                }
            }
        }
    }

    /// "is the same as", "is inside", "contains", or nil when the paths are disjoint.
    static func overlap(_ a: String, _ b: String) -> String? {
        if a == b { return "is the same as" }
        if PathExpansion.isSameOrInside(a, b) { return "is inside" }
        if PathExpansion.isSameOrInside(b, a) { return "contains" }
        return nil
    }

    private func validateStateDir() throws(ConfigError) {
        for (i, folder) in folders.enumerated() {
            if PathExpansion.isSameOrInside(daemon.stateDir, folder.path) {
                throw error("daemon.state_dir",
                            "state directory \(daemon.stateDir) is inside folder[\(i)] \"\(folder.id)\" path \(folder.path); the daemon would sync its own files")
            }
        }
        let bytes = daemon.controlSocket.utf8.count
        if bytes > Self.maxSocketPathBytes {
            throw error("daemon.control_socket",
                        "socket path is \(bytes) bytes long; Unix sockets allow at most \(Self.maxSocketPathBytes)")
        }
    }

    private func checkFileSystem() throws(ConfigError) {
        for (i, folder) in folders.enumerated() {
            switch Self.fileType(folder.path) {
            case nil: throw error("folder[\(i)].path", "folder \(folder.path) does not exist; create it first")
            case S_IFDIR: break
            default: throw error("folder[\(i)].path", "\(folder.path) is not a directory")
            }
        }
        // Symlinks could still make two folders overlap: compare resolved paths too.
        let resolved = folders.map { PathExpansion.realPath($0.path) ?? $0.path }
        for i in folders.indices {
            for j in 0..<i {
                if let relation = Self.overlap(resolved[i], resolved[j]) {
                    throw error("folder[\(i)].path",
                                "folder \"\(folders[i].id)\" path \(folders[i].path) (really \(resolved[i])) \(relation) folder[\(j)] \"\(folders[j].id)\" path \(folders[j].path) (really \(resolved[j])); folders must not overlap")
                }
            }
        }
        let credential = server.credentialFile
        switch Self.fileType(credential) {
        case nil:
            throw error("server.credential_file",
                        "credential file \(credential) does not exist; create it with `sync-server device add`")
        case S_IFREG: break
        default: throw error("server.credential_file", "\(credential) is not a regular file")
        }
        if let caFile = server.caFile, Self.fileType(caFile) != S_IFREG {
            throw error("server.ca_file", "\(caFile) is not a readable regular file (a PEM file of trusted certificate authorities)")
        }
    }

    /// The `S_IFMT` bits of `path` (symlinks followed), or nil when it cannot be stat'ed.
    static func fileType(_ path: String) -> mode_t? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return info.st_mode & S_IFMT
    }
}
