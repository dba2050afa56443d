import Foundation
import Glibc

/// libinotifytools does not expose its inotify descriptor; find it in
/// /proc/self/fd so the watcher thread can `poll` it together with its
/// command eventfd (libinotifytools' own timeout has one-second granularity).
enum InotifyFD {
    static func find() -> Int32? {
        let names: [String]
        do { names = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") } catch { return nil }
        var buffer = [CChar](repeating: 0, count: 256)
        var found: Int32?
        for name in names {
            guard let fd = Int32(name) else { continue }
            let n = readlink("/proc/self/fd/\(name)", &buffer, buffer.count - 1)
            guard n > 0 else { continue }
            buffer[n] = 0
            let target = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            if target == "anon_inode:inotify" { found = max(found ?? fd, fd) }
        }
        return found
    }
}
