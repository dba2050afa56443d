import Foundation

/// A fresh directory under the system temp dir, removed on `remove()`.
struct TempDir {
    let path: String

    init(_ label: String) throws {
        path = NSTemporaryDirectory() + "syncd-test-\(label)-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func sub(_ name: String) throws -> String {
        let p = path + "/" + name
        try FileManager.default.createDirectory(atPath: p, withIntermediateDirectories: true)
        return p
    }

    /// Marks the directory to be kept by `remove()`: a failed wait leaves the state and
    /// logs of every process for a post-mortem (a flaky failure cannot be run again at will).
    func keepForPostMortem() {
        FileManager.default.createFile(atPath: path + "/.keep", contents: nil)
    }

    /// `SYNCD_TEST_KEEP=1` keeps the directories (state, logs) for a post-mortem, as does
    /// `keepForPostMortem()`.
    func remove() {
        if ProcessInfo.processInfo.environment["SYNCD_TEST_KEEP"] == "1" || FileManager.default.fileExists(atPath: path + "/.keep") {
            FileHandle.standardError.write(Data("note: kept \(path)\n".utf8))
            return
        }
        do { try FileManager.default.removeItem(atPath: path) } catch {
            // Leftovers in /tmp are harmless; say so rather than hide it.
            FileHandle.standardError.write(Data("note: could not remove \(path): \(error)\n".utf8))
        }
    }
}

/// Writes `bytes` to `path` in place (open, write, close: one IN_CLOSE_WRITE).
func writeFile(_ path: String, _ bytes: [UInt8]) throws {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    guard fd >= 0 else { throw TestFailure("open \(path): errno \(errno)") }
    defer { close(fd) }
    var done = 0
    while done < bytes.count {
        let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + done, bytes.count - done) }
        guard n > 0 else { throw TestFailure("write \(path): errno \(errno)") }
        done += n
    }
}

func writeFile(_ path: String, _ text: String) throws { try writeFile(path, Array(text.utf8)) }

func freePort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    addr.sin_port = 0
    let bound = withUnsafePointer(to: &addr) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard bound == 0 else { throw TestFailure("bind: errno \(errno)") }
    var len = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &addr) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
    }
    return Int(UInt16(bigEndian: addr.sin_port))
}
