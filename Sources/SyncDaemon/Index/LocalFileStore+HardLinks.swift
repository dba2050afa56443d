import GRDB

extension LocalFileStore {
    /// The other paths recorded with the inode of each of `files` (path → inode): the other
    /// names of a file with hard links, which a write through one name changes without an
    /// inotify event of their own. Paths among `files` are left out.
    ///
    /// No index on the inode: one pass over the folder's records per 500 inodes, paid only by
    /// a batch that changed a file with several names, where an index would cost every record
    /// written (a download's, too) an entry at a random place.
    func otherNames(folder: String, of files: [String: UInt64]) throws -> [String] {
        let inodes = Array(Set(files.values)).map { Int64(bitPattern: $0) }
        guard !inodes.isEmpty else { return [] }
        return try pool.read { db in
            var found = Set<String>()
            for slice in IndexSQL.slices(inodes) {
                let marks = Array(repeating: "?", count: slice.count).joined(separator: ", ")
                found.formUnion(try String.fetchAll(
                    db, sql: "SELECT path FROM local_files WHERE folder_id = ? AND kind = 'file' AND inode IN (\(marks))",
                    arguments: StatementArguments([folder] + slice.map { $0 as any DatabaseValueConvertible })))
            }
            return found.subtracting(files.keys).sorted()
        }
    }
}
