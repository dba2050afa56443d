import CInotify
import Glibc

/// Adds watches for a directory and every directory below it that the
/// filter admits. Runs on the watcher thread only.
enum TreeWatch {
    static func add(_ root: String, filter: WatchFilter?, into watched: inout WatchedDirectories) -> Result<Int, WatchError> {
        var stack = [root]
        var added = 0
        while let dir = stack.popLast() {
            if let code = watched.add(dir, mask: InotifyWatcher.mask) {
                if code == ENOENT || code == ENOTDIR { continue }  // gone meanwhile: its parent's event covers it
                return .failure(WatchError(path: dir, errno: code, maxUserWatches: Int(inotifytools_get_max_user_watches())))
            }
            added += 1
            guard let handle = opendir(dir) else { continue }
            defer { closedir(handle) }
            while let entry = readdir(handle) {
                // Only directories are watched: a file's name is not even made a String.
                let type = entry.pointee.d_type
                guard type == UInt8(DT_DIR) || type == UInt8(DT_UNKNOWN) else { continue }
                let name = withUnsafePointer(to: entry.pointee.d_name) {
                    $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
                }
                if name == "." || name == ".." { continue }
                let child = dir + "/" + name
                var isDirectory = type == UInt8(DT_DIR)
                if type == UInt8(DT_UNKNOWN) {
                    var st = stat()
                    isDirectory = lstat(child, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
                }
                if isDirectory && filter?.shouldWatch(child) != false { stack.append(child) }
            }
        }
        return .success(added)
    }
}
