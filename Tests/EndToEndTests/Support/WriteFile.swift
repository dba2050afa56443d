import Foundation
import TestSupport

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
