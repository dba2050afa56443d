/// The directories a run of renames (or moves to the trash) changed, for the barrier that
/// makes the run durable (`sync`): up to `FileAssembler.directoriesSyncedOneByOne` distinct
/// ones (by file system and inode) are each fsynced; past that, each file system is synced
/// once, and one handle per file system is all that is kept. Every rename opens handles of
/// its own: a run of 256 must not hold 512 of them open until its barrier.
struct BarrierDirectories: Sendable {
    private(set) var handles: [DirectoryHandle] = []
    private var known: Set<Identity> = []
    /// Past the limit: `handles` holds one directory per file system (`devices`).
    private var devices: Set<UInt64> = []
    private(set) var wide = false
    private var unreadable = false

    mutating func add(_ directories: [DirectoryHandle]) {
        for directory in directories {
            // One that cannot be read is kept (one is enough): the barrier then fails and says so.
            guard let id = directory.identity.map({ Identity(device: $0.device, inode: $0.inode) }) else {
                if !unreadable {
                    unreadable = true
                    handles.append(directory)
                }
                continue
            }
            if wide {
                if devices.insert(id.device).inserted { handles.append(directory) }
            } else if known.insert(id).inserted {
                handles.append(directory)
                if handles.count > FileAssembler.directoriesSyncedOneByOne { widen() }
            }
        }
    }

    /// Makes what was renamed in and out of these directories durable.
    func sync() throws(DaemonError) {
        if wide {
            try FileAssembler.syncFileSystems(holding: handles)
        } else {
            try FileAssembler.syncRenames(in: handles)
        }
    }

    private mutating func widen() {
        wide = true
        known = []
        handles = handles.filter { handle in
            guard let device = handle.identity?.device else { return true }
            return devices.insert(device).inserted
        }
    }

    private struct Identity: Hashable {
        var device: UInt64
        var inode: UInt64
    }
}
