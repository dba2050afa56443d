#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Small POSIX helpers for the chunk store (all blocking: call them on a thread pool).
enum POSIX {
    static func errorText(_ code: Int32) -> String { String(cString: strerror(code)) }

    /// This machine's name (gethostname), "localhost" if it has none.
    static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.isEmpty ? "localhost" : name
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
}

extension POSIX {
    /// Exactly `count` bytes of `fd` from `offset`; a file that ends first is an error
    /// (EIO, "short read"), since callers ask only for bytes the index or a size promised.
    static func readExactly(fd: Int32, offset: Int64, count: Int, path: String) throws(StoreIOError) -> [UInt8] {
        var failure: StoreIOError?
        // Not zeroed first: every byte is read into (or the array is not returned).
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            var done = 0
            while done < count {
                let n = pread(fd, buffer.baseAddress! + done, count - done, off_t(offset) + off_t(done))
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = StoreIOError(operation: "read", path: path, code: errno)
                    break
                }
                if n == 0 {
                    failure = StoreIOError(operation: "read (file ends before the chunk does)", path: path, code: EIO)
                    break
                }
                done += n
            }
            initialized = failure == nil ? count : 0
        }
        if let failure { throw failure }
        return bytes
    }

    /// Writes all of `bytes` at `offset`, retrying short writes and EINTR.
    /// The whole file.
    static func readWhole(path: String) throws(StoreIOError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw StoreIOError(operation: "open", path: path, code: errno) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw StoreIOError(operation: "stat", path: path, code: errno) }
        return try readExactly(fd: fd, offset: 0, count: Int(info.st_size), path: path)
    }

    static func writeAll(fd: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int64, path: String) throws(StoreIOError) {
        var done = 0
        while done < bytes.count {
            let n = pwrite(fd, bytes.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done))
            if n < 0 {
                if errno == EINTR { continue }
                throw StoreIOError(operation: "write", path: path, code: errno)
            }
            done += n
        }
    }

    static func dataSync(fd: Int32, path: String) throws(StoreIOError) {
        while fdatasync(fd) != 0 {
            if errno == EINTR { continue }
            throw StoreIOError(operation: "fdatasync", path: path, code: errno)
        }
    }

    /// fsync of a directory, so that names created in it are durable.
    static func syncDirectory(_ path: String) throws(StoreIOError) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw StoreIOError(operation: "open", path: path, code: errno) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw StoreIOError(operation: "fsync", path: path, code: errno) }
    }
}

extension POSIX {
    /// The names in a directory (without `.` and `..`).
    static func names(in directory: String) throws(StoreIOError) -> [String] {
        guard let dir = opendir(directory) else { throw StoreIOError(operation: "opendir", path: directory, code: errno) }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// `rmdir` that leaves a directory that is not empty (or already gone) in place.
    static func removeDirectoryIfEmpty(_ path: String) throws(StoreIOError) {
        guard rmdir(path) == 0 || errno == ENOTEMPTY || errno == EEXIST || errno == ENOENT else {
            throw StoreIOError(operation: "rmdir", path: path, code: errno)
        }
    }
}

struct StoreIOError: Error, Sendable, CustomStringConvertible {
    var operation: String
    var path: String
    var code: Int32
    /// What happened, when more is known than the errno says (an object store's answer).
    var detail: String?

    init(operation: String, path: String, code: Int32, detail: String? = nil) {
        self.operation = operation
        self.path = path
        self.code = code
        self.detail = detail
    }

    var description: String { detail ?? "\(operation) \(path): \(POSIX.errorText(code))" }

    var apiError: APIError {
        if code == ENOSPC || code == EDQUOT {
            return APIError(
                .init(rawValue: "insufficient_storage"), status: .init(code: 507, reasonPhrase: "Insufficient Storage"),
                "the server's disk is full", cause: self)
        }
        return .internalError("chunk store I/O failed: \(description)", cause: self)
    }
}
