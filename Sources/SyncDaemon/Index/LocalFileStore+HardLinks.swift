import Foundation
import GRDB

extension LocalFileStore {
    /// The other paths recorded with the inode of each of `files` (path → inode): the other
    /// names of a file with hard links, which a write through one name changes without an
    /// inotify event of their own. Paths among `files` are left out.
    ///
    /// No index on the inode: one pass over the folder's records, paid only by a batch that
    /// committed a file with several names, where an index would cost every record written (a
    /// download's, too) an entry at a random place.
    func otherNames(folder: String, of files: [String: UInt64]) throws -> [String] {
        let inodes = Set(files.values).map { Int64(bitPattern: $0) }
        guard !inodes.isEmpty else { return [] }
        let list = "[" + inodes.map(String.init).joined(separator: ",") + "]"
        return try pool.read { db in
            let found = try String.fetchAll(
                db, sql: """
                    SELECT path FROM local_files WHERE folder_id = ? AND kind = 'file'
                    AND inode IN (SELECT value FROM json_each(?))
                    """,
                arguments: [folder, list])
            return Set(found).subtracting(files.keys).sorted()
        }
    }
}
