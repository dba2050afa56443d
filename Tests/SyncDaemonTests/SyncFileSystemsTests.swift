import Foundation
import Glibc
import Testing
import TestSupport

@testable import SyncDaemon

/// A download batch is made durable on every file system its files were staged on: a file
/// system mounted inside the folder is synced too, each file system once.
struct SyncFileSystemsTests {
    @Test func eachFileSystemOfTheStagingDirectoriesIsSyncedOnce() throws {
        let disk = try TemporaryDirectory("syncfs")
        defer { disk.remove() }
        let a = try Self.open(disk.sub("a")), b = try Self.open(disk.sub("b"))
        #expect(try FileAssembler.syncFileSystems(holding: [a, b, a]) == 1)

        // /dev/shm is a tmpfs: another file system, as one mounted inside the folder would be.
        let other = try TemporaryDirectory(under: "/dev/shm", "syncfs")
        defer { other.remove() }
        let c = try Self.open(other.path)
        try #require(Self.device(of: a) != Self.device(of: c))
        #expect(try FileAssembler.syncFileSystems(holding: [a, c, b, c]) == 2)
        #expect(try FileAssembler.syncFileSystems(holding: []) == 0)
    }

    static func open(_ path: String) throws -> DirectoryHandle {
        let fd = Glibc.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        return DirectoryHandle(fd: fd)
    }

    static func device(of directory: DirectoryHandle) -> UInt64 {
        var st = stat()
        return fstat(directory.fd, &st) == 0 ? UInt64(st.st_dev) : 0
    }
}
