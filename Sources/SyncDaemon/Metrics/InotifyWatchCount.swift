import Foundation

/// The inotify watches this process holds now, all folders together, as the kernel counts
/// them (`inotify wd:` lines in `/proc/self/fdinfo` of each inotify descriptor). The
/// status's `watched_directories` is the count of a folder's last full watch; this one
/// follows directories created and removed since.
enum InotifyWatchCount {
    /// Nil when /proc cannot be read (the gauge is then left out of the scrape).
    static func current() -> Int? {
        let files = FileManager.default
        let fds: [String]
        do { fds = try files.contentsOfDirectory(atPath: "/proc/self/fd") } catch { return nil }
        var count = 0
        for fd in fds {
            // A descriptor closed since the listing is simply not counted.
            guard let target = try? files.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(fd)"),
                target == "anon_inode:inotify",
                let info = try? String(contentsOfFile: "/proc/self/fdinfo/\(fd)", encoding: .utf8)
            else { continue }
            count += info.split(separator: "\n").filter { $0.hasPrefix("inotify wd:") }.count
        }
        return count
    }
}
