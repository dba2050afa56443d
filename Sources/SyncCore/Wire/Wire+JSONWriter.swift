// The wire types the hot paths encode, written by `JSONWriter`: the same keys as their
// `CodingKeys`, in code-unit order (`JSONWriterTests` compares each with JSONEncoder).

extension WireEntry: JSONWritable {
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("chunks", chunks)
        writer.member("content_hash", contentHash)
        writer.member("deleted", deleted)
        writer.member("device", device)
        writer.member("kind", kind.rawValue)
        writer.member("mode", mode)
        writer.member("moved_from", movedFrom)
        writer.member("moved_to", movedTo)
        writer.member("mtime_ns", mtimeNs)
        writer.member("path", path)
        writer.member("rev", rev)
        writer.member("size", size)
        writer.member("symlink_target", symlinkTarget)
        writer.endObject()
    }
}

extension ChangesResponse: JSONWritable {
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("cursor", cursor)
        writer.member("entries", entries)
        writer.member("has_more", hasMore)
        writer.member("head", head)
        writer.endObject()
    }
}

extension CommitChange: JSONWritable {
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("base_rev", baseRev)
        writer.member("chunks", chunks)
        writer.member("content_hash", contentHash)
        writer.member("deleted", deleted)
        writer.member("kind", kind.rawValue)
        writer.member("mode", mode)
        writer.member("move_from", moveFrom)
        writer.member("mtime_ns", mtimeNs)
        writer.member("path", path)
        writer.member("size", size)
        writer.member("symlink_target", symlinkTarget)
        writer.endObject()
    }
}

extension CommitRequest: JSONWritable {
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("changes", changes)
        writer.member("commit_id", commitId)
        writer.endObject()
    }
}

extension MovedEntry: JSONWritable {
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("path", path)
        writer.member("rev", rev)
        writer.endObject()
    }
}

extension CommitResult: JSONWritable {
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("current", current)
        writer.member("moved", moved)
        writer.member("path", path)
        writer.member("rev", rev)
        writer.member("status", status.rawValue)
        writer.endObject()
    }
}

extension CommitResponse: JSONWritable {
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("folder_rev", folderRev)
        writer.member("results", results)
        writer.endObject()
    }
}

extension MissingChunksRequest: JSONWritable {
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("hashes", hashes)
        writer.endObject()
    }
}

extension MissingChunksResponse: JSONWritable {
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("missing", missing)
        writer.endObject()
    }
}

extension FetchChunksRequest: JSONWritable {
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("hashes", hashes)
        writer.endObject()
    }
}
