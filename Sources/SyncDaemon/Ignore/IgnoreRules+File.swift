import Glibc
import SyncCore

extension IgnoreRules {
    /// Largest `.syncignore` read.
    static let maxFileBytes = 1 << 20

    /// The folder's `.syncignore` text, nil when there is none. A symlink there
    /// is not followed (it could name any file on this machine): an error.
    static func readFile(in folder: FolderRoot) throws -> String? {
        let fd: Int32
        do {
            fd = try folder.open(fileName, flags: O_RDONLY | O_NONBLOCK)
        } catch {
            if error.isIO(ENOENT) { return nil }
            throw error
        }
        defer { close(fd) }
        guard let stat = FileStat.fstat(fd), stat.kind == .file else {
            throw DaemonError(.ignoreFile, "\(fileName) is not a regular file", path: fileName)
        }
        guard stat.size <= maxFileBytes else {
            throw DaemonError(.ignoreFile, "\(fileName) is larger than \(maxFileBytes) bytes", path: fileName)
        }
        let bytes = try Preparer.readAll(fd: fd, path: fileName, expected: Int(stat.size))
        return String(decoding: bytes.prefix(maxFileBytes), as: UTF8.self)
    }
}
