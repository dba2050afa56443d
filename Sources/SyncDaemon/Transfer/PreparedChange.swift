import SyncCore

/// A path read and hashed, ready to be committed.
struct PreparedChange: Sendable {
    var change: CommitChange
    /// What to record locally once committed (nil for deletes).
    var local: LocalRecord?
    /// Where each chunk's bytes can be read again, for the chunks the server lacks.
    var source: ChunkSource
    /// A file with other names (hard links) when it was read: what the index records under its
    /// inode at other paths may have been written too, without an event of its own.
    var hardLinked = false
}

enum ChunkSource: Sendable {
    case none
    /// Small files keep their bytes from the hashing read.
    case memory([UInt8], [ChunkRef])
    /// Large files are read again chunk by chunk (and re-verified).
    case file(path: String, in: FolderRoot, [ChunkRef])

    /// The bytes were hashed where they are kept: sent without hashing them again.
    var isInMemory: Bool {
        if case .memory = self { return true }
        return false
    }
}

/// What preparing a path decided.
enum Preparation: Sendable {
    case change([PreparedChange])
    /// `hardLinked`: a file with other names, read again because its record no longer
    /// matched (its content was on the server already: a commit recorded through the outbox
    /// records no "look again" of the other names, `Uploader.lookAtOtherNames`).
    case unchanged(local: LocalRecord?, removeLocalUnder: String?, hardLinked: Bool = false)
    /// Still being written (changed while we read it): try again shortly.
    case unstable
    case failed(DaemonError)
}

extension Preparation {
    /// Bytes this preparation holds in memory for the upload.
    var bytesKept: Int {
        guard case .change(let list) = self else { return 0 }
        return list.reduce(0) { total, prepared in
            if case .memory(let bytes, _) = prepared.source { return total + bytes.count }
            return total
        }
    }
}
