import Foundation
import SyncCore

/// Imports chunk files of the old layout (`data_dir/chunks/ab/cd/<hash>`, one file per
/// chunk) into packs at start, in groups: read, check against the hash, append, fsync,
/// index in one transaction, and only then unlink the group's files. A crash anywhere
/// leaves each chunk either still a file (imported again next time) or indexed (its file,
/// if still there, is unlinked next time): the import is crash-safe and resumes where it
/// stopped. A file whose bytes do not match its name is moved to `chunks/damaged/` and
/// not indexed (`storage check` names what references it). Blocking.
enum LegacyImport {
    struct Report: Sendable {
        var imported = 0
        var damaged = 0
    }

    static let groupBytes = 8 << 20
    static let groupFiles = 1_000

    static func path(root: String, hash: String) -> String {
        "\(root)/\(hash.prefix(2))/\(hash.dropFirst(2).prefix(2))/\(hash)"
    }

    static func run(root: String, store: ChunkStore) async throws -> Report {
        var report = Report()
        guard access(root, F_OK) == 0 else { return report }
        var group: [(hash: String, path: String)] = []
        var groupSize = 0
        for first in try POSIX.names(in: root) where isFanOut(first) {
            for second in try POSIX.names(in: root + "/" + first) where isFanOut(second) {
                let directory = "\(root)/\(first)/\(second)"
                for name in try POSIX.names(in: directory) where Hashing.isValidHex(name) {
                    let path = directory + "/" + name
                    var info = stat()
                    guard stat(path, &info) == 0 else { throw StoreIOError(operation: "stat", path: path, code: errno) }
                    if !group.isEmpty && (groupSize + Int(info.st_size) > groupBytes || group.count >= groupFiles) {
                        try await importGroup(group, root: root, store: store, report: &report)
                        group = []
                        groupSize = 0
                    }
                    group.append((name, path))
                    groupSize += Int(info.st_size)
                }
            }
        }
        if !group.isEmpty { try await importGroup(group, root: root, store: store, report: &report) }
        try removeEmptyDirectories(root: root)
        return report
    }

    private static func isFanOut(_ name: String) -> Bool {
        name.utf8.count == 2 && name.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    private static func importGroup(
        _ group: [(hash: String, path: String)], root: String, store: ChunkStore, report: inout Report
    ) async throws {
        let known = try await store.index.locations(of: group.map(\.hash))
        var batch = PackBatch()
        var done: [String] = []
        for file in group {
            if known[file.hash] != nil {
                done.append(file.path)
                continue
            }
            let bytes = try readWhole(file.path)
            guard Hashing.sha256Hex(bytes) == file.hash else {
                try quarantine(file, root: root, store: store)
                report.damaged += 1
                continue
            }
            bytes.withUnsafeBytes { batch.add(hash: file.hash, bytes: $0) }
            done.append(file.path)
        }
        if !batch.isEmpty {
            let appended = try store.writer.append(batch)
            let located = zip(batch.records, appended.locations).map { (hash: $0.hash, location: $1) }
            _ = try await store.index.insert(
                located, pack: appended.locations[0].pack, durableLength: appended.durableLength, sealed: false)
            // A crash before this leaves those packs unsealed: verified again at the next start.
            try await store.index.markSealed(appended.sealed)
            report.imported += batch.records.count
        }
        for path in done where unlink(path) != 0 && errno != ENOENT {
            throw StoreIOError(operation: "unlink imported chunk file", path: path, code: errno)
        }
    }

    private static func readWhole(_ path: String) throws -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw StoreIOError(operation: "open", path: path, code: errno) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw StoreIOError(operation: "fstat", path: path, code: errno) }
        return try POSIX.readExactly(fd: fd, offset: 0, count: Int(info.st_size), path: path)
    }

    private static func quarantine(_ file: (hash: String, path: String), root: String, store: ChunkStore) throws {
        let damaged = root + "/damaged"
        try POSIX.makeDirectories(damaged)
        let target = damaged + "/" + file.hash
        guard rename(file.path, target) == 0 else { throw StoreIOError(operation: "rename", path: target, code: errno) }
        store.logger.error("legacy chunk file \(file.path) does not match its hash: moved to \(target), not imported")
    }

    /// The fan-out directories, `tmp` (with leftovers of interrupted uploads) and the root,
    /// where empty.
    private static func removeEmptyDirectories(root: String) throws {
        for first in try POSIX.names(in: root) where isFanOut(first) {
            for second in try POSIX.names(in: root + "/" + first) where isFanOut(second) {
                try POSIX.removeDirectoryIfEmpty("\(root)/\(first)/\(second)")
            }
            try POSIX.removeDirectoryIfEmpty(root + "/" + first)
        }
        if access(root + "/tmp", F_OK) == 0 {
            for name in try POSIX.names(in: root + "/tmp") where unlink(root + "/tmp/" + name) != 0 && errno != ENOENT {
                throw StoreIOError(operation: "unlink", path: root + "/tmp/" + name, code: errno)
            }
            try POSIX.removeDirectoryIfEmpty(root + "/tmp")
        }
        try POSIX.removeDirectoryIfEmpty(root)
    }
}
