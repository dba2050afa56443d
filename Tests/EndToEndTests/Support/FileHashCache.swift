import Foundation
import Synchronization
import SyncCore

/// Content hashes of files by path and stat (inode, size, mtime, ctime).
final class FileHashCache: Sendable {
    static let shared = FileHashCache()
    private struct Key: Hashable {
        var path: String
        var inode: UInt64, size: Int64, mtime: Int, mtimeNs: Int, ctime: Int, ctimeNs: Int
    }
    private let hashes = Mutex<[Key: String]>([:])

    func hash(_ path: String, _ st: stat) throws -> String {
        let key = Key(
            path: path, inode: UInt64(st.st_ino), size: Int64(st.st_size), mtime: st.st_mtim.tv_sec,
            mtimeNs: st.st_mtim.tv_nsec, ctime: st.st_ctim.tv_sec, ctimeNs: st.st_ctim.tv_nsec)
        if let known = hashes.withLock({ $0[key] }) { return known }
        let hash = FileChunker().chunk(bytes: Array(try Data(contentsOf: URL(fileURLWithPath: path)))).contentHash
        hashes.withLock { $0[key] = hash }
        return hash
    }
}
