/// What a device believes its folder holds: only its own operations change
/// it, so generation is a pure function of the seed. The real folder also
/// changes through sync; an operation whose precondition no longer holds
/// there is skipped when applied (and logged as such).
struct TreeModel: Equatable {
    var directories: Set<String> = []
    var files: Set<String> = []

    func exists(_ path: String) -> Bool { directories.contains(path) || files.contains(path) }

    static func depth(_ path: String) -> Int { path.isEmpty ? 0 : path.split(separator: "/").count }

    static func join(_ parent: String, _ name: String) -> String { parent.isEmpty ? name : parent + "/" + name }

    static func isInside(_ path: String, _ dir: String) -> Bool { path.hasPrefix(dir + "/") }

    /// How many directory levels `dir` has below it (0 if it has no subdirectories).
    func height(_ dir: String) -> Int {
        directories.filter { Self.isInside($0, dir) }.map { Self.depth($0) - Self.depth(dir) }.max() ?? 0
    }

    func isEmptyDirectory(_ dir: String) -> Bool {
        !files.contains { Self.isInside($0, dir) } && !directories.contains { Self.isInside($0, dir) }
    }

    mutating func apply(_ action: WorkloadAction) {
        switch action {
        case .create(let p, _): files.insert(p)
        case .modify, .append, .truncate: break
        case .rename(let p, let q):
            files.remove(p)
            files.insert(q)
        case .moveDirectory(let d, let e):
            func moved(_ p: String) -> String { p == d ? e : Self.isInside(p, d) ? e + p.dropFirst(d.count) : p }
            directories = Set(directories.map(moved))
            files = Set(files.map(moved))
        case .delete(let p): files.remove(p)
        case .removeTree(let d):
            directories = directories.filter { $0 != d && !Self.isInside($0, d) }
            files = files.filter { !Self.isInside($0, d) }
        case .mkdir(let d): directories.insert(d)
        case .rmdir(let d): directories.remove(d)
        }
    }
}
