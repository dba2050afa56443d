/// One thing a device's user does to its folder.
enum WorkloadAction: Sendable, Equatable, CustomStringConvertible {
    /// A new file (the path must not exist).
    case create(String, [UInt8])
    /// Overwrites an existing file's whole content in place (O_TRUNC).
    case modify(String, [UInt8])
    /// Appends to an existing file (O_APPEND).
    case append(String, [UInt8])
    /// Truncates an existing, non-empty file to `percent` of its length.
    case truncate(String, percent: Int)
    /// Renames a file (the target must not exist).
    case rename(String, to: String)
    /// Renames a directory with everything in it (the target must not exist).
    case moveDirectory(String, to: String)
    /// Deletes a file.
    case delete(String)
    /// `rm -r` of a directory.
    case removeTree(String)
    case mkdir(String)
    /// Removes a directory only if it is empty.
    case rmdir(String)

    var description: String {
        switch self {
        case .create(let p, let b): "create \(p.quoted) (\(b.count) B)"
        case .modify(let p, let b): "modify \(p.quoted) (\(b.count) B)"
        case .append(let p, let b): "append \(p.quoted) (+\(b.count) B)"
        case .truncate(let p, let percent): "truncate \(p.quoted) to \(percent)%"
        case .rename(let p, let q): "rename \(p.quoted) -> \(q.quoted)"
        case .moveDirectory(let p, let q): "mvdir \(p.quoted) -> \(q.quoted)"
        case .delete(let p): "delete \(p.quoted)"
        case .removeTree(let p): "rm -r \(p.quoted)"
        case .mkdir(let p): "mkdir \(p.quoted)"
        case .rmdir(let p): "rmdir \(p.quoted)"
        }
    }
}

extension String {
    fileprivate var quoted: String { contains(" ") ? "'\(self)'" : self }
}

struct WorkloadOp: Sendable, Equatable {
    /// Index into `ConvergenceWorkload.devices`.
    var device: Int
    /// Position in that device's list.
    var index: Int
    /// How long the device waits before doing it.
    var pauseBeforeMs: Int
    var action: WorkloadAction
}
