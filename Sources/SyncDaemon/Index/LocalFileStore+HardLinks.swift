import GRDB

extension LocalFileStore {
    /// The paths of the files recorded with one of `inodes`: the names of files with hard
    /// links, which a write through one name changes without an inotify event of their own.
    ///
    /// No index on the inode: one pass over the folder's records, paid only by a batch that
    /// committed a file with several names, where an index would cost every record written (a
    /// download's, too) an entry at a random place.
    func names(folder: String, inodes: Set<UInt64>) throws -> Set<String> {
        guard !inodes.isEmpty else { return [] }
        let list = "[" + inodes.map { String(Int64(bitPattern: $0)) }.joined(separator: ",") + "]"
        return try pool.read { db in
            let found = try String.fetchAll(
                db, sql: """
                    SELECT path FROM local_files WHERE folder_id = ? AND kind = 'file'
                    AND inode IN (SELECT value FROM json_each(?))
                    """,
                arguments: [folder, list])
            return Set(found)
        }
    }
}
