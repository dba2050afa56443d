/// The directories a run of renames (or moves to the trash) changed, one open handle each
/// (by file system and inode), for the barrier that makes the run durable
/// (`FileAssembler.syncRenames`): every rename opens handles of its own, and a run of 256
/// in one directory must not hold 512 of them open until its barrier.
struct BarrierDirectories: Sendable {
    private(set) var handles: [DirectoryHandle] = []
    private var known: Set<Identity> = []

    mutating func add(_ directories: [DirectoryHandle]) {
        for directory in directories {
            // One that cannot be read is kept: the barrier then fails and says so.
            guard let id = directory.identity.map({ Identity(device: $0.device, inode: $0.inode) }) else {
                handles.append(directory)
                continue
            }
            if known.insert(id).inserted { handles.append(directory) }
        }
    }

    private struct Identity: Hashable {
        var device: UInt64
        var inode: UInt64
    }
}
