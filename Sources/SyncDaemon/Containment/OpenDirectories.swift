import SyncCore

/// Directories below a folder root kept open for a batch of operations in them: each is
/// walked from the root once (`FolderRoot.parent(of:)`: component by component, no symlink
/// followed), and the other names in it are reached from that handle. A batch of small
/// downloads resolved every file's parent twice (planning, staging), each time opening the
/// root and every directory on the way.
///
/// A handle stays the directory it was opened as: moved meanwhile, what is resolved through
/// it moves with it, as a `Located` kept between staging and placing does.
struct OpenDirectories: Sendable {
    private var handles: [String: DirectoryHandle] = [:]

    /// How many directories are held open.
    var count: Int { handles.count }

    /// `relative`'s parent as `FolderRoot.parent(of:create:)` resolves it, reusing the
    /// directory if it was resolved before.
    mutating func parent(of relative: String, in root: FolderRoot, create: Bool = false) throws(DaemonError) -> Located {
        let components = try FolderRoot.components(of: relative)
        let name = String(components[components.count - 1])
        let directory = components.dropLast().joined(separator: "/")
        if let handle = handles[directory] { return Located(directory: handle, name: name, relative: relative) }
        let located = try root.parent(of: relative, create: create)
        handles[directory] = located.directory
        return located
    }

    /// `FolderRoot.lookup`, through the directories held open.
    mutating func lookup(_ relative: String, in root: FolderRoot) -> (located: Located?, stat: FileStat.Lookup) {
        root.lookup(relative) { relative throws(DaemonError) in try self.parent(of: relative, in: root) }
    }
}
