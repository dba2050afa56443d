// The wire types the hot paths decode, read by `JSONReader`: the same keys as their
// `CodingKeys` (`JSONReaderTests` compares each with JSONDecoder).

extension EntryKind {
    static func read(_ reader: inout JSONReader) throws(JSONReadError) -> EntryKind {
        let raw = try reader.string()
        guard let kind = EntryKind(rawValue: raw) else { throw reader.failure("unknown kind \(JSONReadError.shown(raw))") }
        return kind
    }
}

extension WireEntry: JSONReadable {
    public init(reading reader: inout JSONReader) throws(JSONReadError) {
        var members = JSONMembers()
        var path: String?, kind: EntryKind?, size: Int64?, mtimeNs: Int64?, mode: UInt32?, chunks: [String]?
        var contentHash: String?, deleted: Bool?, rev: Int64?
        var symlinkTarget: String?, device: String?, movedFrom: String?, movedTo: String?
        try reader.object { (reader, key) throws(JSONReadError) in
            switch key {
            case "path": try members.mark(0, key, reader); path = try reader.string()
            case "kind": try members.mark(1, key, reader); kind = try EntryKind.read(&reader)
            case "size": try members.mark(2, key, reader); size = try reader.int64()
            case "mtime_ns": try members.mark(3, key, reader); mtimeNs = try reader.int64()
            case "mode": try members.mark(4, key, reader); mode = try reader.uint32()
            case "chunks": try members.mark(5, key, reader); chunks = try reader.strings()
            case "content_hash": try members.mark(6, key, reader); contentHash = try reader.string()
            case "deleted": try members.mark(7, key, reader); deleted = try reader.bool()
            case "rev": try members.mark(8, key, reader); rev = try reader.int64()
            case "symlink_target": try members.mark(9, key, reader); symlinkTarget = try reader.optional { (r) throws(JSONReadError) in try r.string() }
            case "device": try members.mark(10, key, reader); device = try reader.optional { (r) throws(JSONReadError) in try r.string() }
            case "moved_from": try members.mark(11, key, reader); movedFrom = try reader.optional { (r) throws(JSONReadError) in try r.string() }
            case "moved_to": try members.mark(12, key, reader); movedTo = try reader.optional { (r) throws(JSONReadError) in try r.string() }
            default: try reader.skipValue()
            }
        }
        self.init(
            path: try members.required(path, "path", reader), kind: try members.required(kind, "kind", reader),
            size: try members.required(size, "size", reader), mtimeNs: try members.required(mtimeNs, "mtime_ns", reader),
            mode: try members.required(mode, "mode", reader), chunks: try members.required(chunks, "chunks", reader),
            contentHash: try members.required(contentHash, "content_hash", reader),
            deleted: try members.required(deleted, "deleted", reader), rev: try members.required(rev, "rev", reader),
            symlinkTarget: symlinkTarget, device: device, movedFrom: movedFrom, movedTo: movedTo)
    }
}

extension ChangesResponse: JSONReadable {
    public init(reading reader: inout JSONReader) throws(JSONReadError) {
        var members = JSONMembers()
        var entries: [WireEntry]?, cursor: Int64?, hasMore: Bool?, head: Int64?
        try reader.object { (reader, key) throws(JSONReadError) in
            switch key {
            case "entries": try members.mark(0, key, reader); entries = try reader.array(of: WireEntry.self)
            case "cursor": try members.mark(1, key, reader); cursor = try reader.int64()
            case "has_more": try members.mark(2, key, reader); hasMore = try reader.bool()
            case "head": try members.mark(3, key, reader); head = try reader.optional { (r) throws(JSONReadError) in try r.int64() }
            default: try reader.skipValue()
            }
        }
        self.init(
            entries: try members.required(entries, "entries", reader), cursor: try members.required(cursor, "cursor", reader),
            hasMore: try members.required(hasMore, "has_more", reader), head: head)
    }
}

extension CommitChange: JSONReadable {
    public init(reading reader: inout JSONReader) throws(JSONReadError) {
        var members = JSONMembers()
        var path: String?, baseRev: Int64?, kind: EntryKind?, size: Int64?, mtimeNs: Int64?, mode: UInt32?
        var chunks: [String]?, contentHash: String?, deleted: Bool?, symlinkTarget: String?, moveFrom: String?
        try reader.object { (reader, key) throws(JSONReadError) in
            switch key {
            case "path": try members.mark(0, key, reader); path = try reader.string()
            case "base_rev": try members.mark(1, key, reader); baseRev = try reader.int64()
            case "kind": try members.mark(2, key, reader); kind = try EntryKind.read(&reader)
            case "size": try members.mark(3, key, reader); size = try reader.int64()
            case "mtime_ns": try members.mark(4, key, reader); mtimeNs = try reader.int64()
            case "mode": try members.mark(5, key, reader); mode = try reader.uint32()
            case "chunks": try members.mark(6, key, reader); chunks = try reader.strings()
            case "content_hash": try members.mark(7, key, reader); contentHash = try reader.string()
            case "deleted": try members.mark(8, key, reader); deleted = try reader.bool()
            case "symlink_target": try members.mark(9, key, reader); symlinkTarget = try reader.optional { (r) throws(JSONReadError) in try r.string() }
            case "move_from": try members.mark(10, key, reader); moveFrom = try reader.optional { (r) throws(JSONReadError) in try r.string() }
            default: try reader.skipValue()
            }
        }
        self.init(
            path: try members.required(path, "path", reader), baseRev: try members.required(baseRev, "base_rev", reader),
            kind: try members.required(kind, "kind", reader), size: try members.required(size, "size", reader),
            mtimeNs: try members.required(mtimeNs, "mtime_ns", reader), mode: try members.required(mode, "mode", reader),
            chunks: try members.required(chunks, "chunks", reader),
            contentHash: try members.required(contentHash, "content_hash", reader),
            deleted: try members.required(deleted, "deleted", reader), symlinkTarget: symlinkTarget, moveFrom: moveFrom)
    }
}

extension CommitRequest: JSONReadable {
    public init(reading reader: inout JSONReader) throws(JSONReadError) {
        var members = JSONMembers()
        var changes: [CommitChange]?, commitId: String?
        try reader.object { (reader, key) throws(JSONReadError) in
            switch key {
            case "changes": try members.mark(0, key, reader); changes = try reader.array(of: CommitChange.self)
            case "commit_id": try members.mark(1, key, reader); commitId = try reader.optional { (r) throws(JSONReadError) in try r.string() }
            default: try reader.skipValue()
            }
        }
        self.init(changes: try members.required(changes, "changes", reader), commitId: commitId)
    }
}

extension MovedEntry: JSONReadable {
    public init(reading reader: inout JSONReader) throws(JSONReadError) {
        var members = JSONMembers()
        var path: String?, rev: Int64?
        try reader.object { (reader, key) throws(JSONReadError) in
            switch key {
            case "path": try members.mark(0, key, reader); path = try reader.string()
            case "rev": try members.mark(1, key, reader); rev = try reader.int64()
            default: try reader.skipValue()
            }
        }
        self.init(path: try members.required(path, "path", reader), rev: try members.required(rev, "rev", reader))
    }
}

extension CommitResult: JSONReadable {
    public init(reading reader: inout JSONReader) throws(JSONReadError) {
        var members = JSONMembers()
        var path: String?, status: CommitStatus?, rev: Int64?, current: WireEntry?, moved: [MovedEntry]?
        try reader.object { (reader, key) throws(JSONReadError) in
            switch key {
            case "path": try members.mark(0, key, reader); path = try reader.string()
            case "status":
                try members.mark(1, key, reader)
                let raw = try reader.string()
                guard let known = CommitStatus(rawValue: raw) else { throw reader.failure("unknown status \(JSONReadError.shown(raw))") }
                status = known
            case "rev": try members.mark(2, key, reader); rev = try reader.int64()
            case "current": try members.mark(3, key, reader); current = try reader.optional { (r) throws(JSONReadError) in try WireEntry(reading: &r) }
            case "moved": try members.mark(4, key, reader); moved = try reader.optional { (r) throws(JSONReadError) in try r.array(of: MovedEntry.self) }
            default: try reader.skipValue()
            }
        }
        self.init(
            path: try members.required(path, "path", reader), status: try members.required(status, "status", reader),
            rev: try members.required(rev, "rev", reader), current: current, moved: moved)
    }
}

extension CommitResponse: JSONReadable {
    public init(reading reader: inout JSONReader) throws(JSONReadError) {
        var members = JSONMembers()
        var results: [CommitResult]?, folderRev: Int64?
        try reader.object { (reader, key) throws(JSONReadError) in
            switch key {
            case "results": try members.mark(0, key, reader); results = try reader.array(of: CommitResult.self)
            case "folder_rev": try members.mark(1, key, reader); folderRev = try reader.int64()
            default: try reader.skipValue()
            }
        }
        self.init(results: try members.required(results, "results", reader), folderRev: try members.required(folderRev, "folder_rev", reader))
    }
}
