#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Small POSIX helpers for the chunk store (all blocking: call them on a thread pool).
enum POSIX {
    static func errorText(_ code: Int32) -> String { String(cString: strerror(code)) }

    /// Flushes the whole file system holding `fd` (Linux `syncfs(2)`; Glibc's
    /// Swift module does not export it, so it is looked up at run time; where
    /// it is missing, `sync(2)`).
    static func syncFileSystem(fd: Int32) -> Int32 {
        #if os(Linux)
        typealias SyncFS = @convention(c) (Int32) -> Int32
        if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "syncfs") {
            return unsafeBitCast(symbol, to: SyncFS.self)(fd)
        }
        #endif
        sync()
        return 0
    }

    /// `mkdir -p` with mode 0700 for new directories.
    static func makeDirectories(_ path: String) throws(StoreIOError) {
        var current = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            current += "/" + component
            if mkdir(current, 0o700) != 0 && errno != EEXIST {
                throw StoreIOError(operation: "mkdir", path: current, code: errno)
            }
        }
    }

    /// Writes all of `bytes` to `fd`, retrying short writes and EINTR.
    static func writeAll(fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(StoreIOError) {
        var offset = 0
        while offset < bytes.count {
            let n = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                throw StoreIOError(operation: "write", path: path, code: errno)
            }
            offset += n
        }
    }
}

struct StoreIOError: Error, Sendable, CustomStringConvertible {
    var operation: String
    var path: String
    var code: Int32
    var description: String { "\(operation) \(path): \(POSIX.errorText(code))" }

    var apiError: APIError {
        if code == ENOSPC || code == EDQUOT {
            return APIError(
                .init(rawValue: "insufficient_storage"), status: .init(code: 507, reasonPhrase: "Insufficient Storage"),
                "the server's disk is full", cause: self)
        }
        return .internalError("chunk store I/O failed: \(description)", cause: self)
    }
}
