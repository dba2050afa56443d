/// What a path is. Symlinks are synced as links and never followed.
public enum EntryKind: String, Codable, Sendable, Equatable {
    case file
    case directory
    case symlink
}
