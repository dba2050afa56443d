import Foundation
import SyncCore

// The pure half of the randomized convergence test (ConvergenceTests.swift):
// a seeded PRNG, the workload generator (seed → operations on a model tree)
// and the version audit. Nothing here touches the file system or a process.

/// SplitMix64: tiny, and the same sequence on every platform and Swift version
/// (the standard library's `random(in:using:)` algorithms are not promised to be).
struct SplitMix64 {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// 0..<n (the modulo bias is irrelevant at these sizes).
    mutating func below(_ n: Int) -> Int {
        precondition(n > 0)
        return Int(next() % UInt64(n))
    }

    mutating func int(in range: ClosedRange<Int>) -> Int { range.lowerBound + below(range.count) }

    mutating func chance(_ p: Double) -> Bool { Double(next() >> 11) / Double(UInt64(1) << 53) < p }

    mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }
}

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

/// A seeded workload: an initial tree (created on the first device before the
/// random phase) and, per device, a list of operations with pauses.
/// `ConvergenceWorkload(seed:opsPerDevice:)` is pure: the same arguments give
/// the same workload on every run and machine, which is what makes a printed
/// seed enough to replay a failure.
struct ConvergenceWorkload: Sendable, Equatable {
    static let devices = ["alpha", "beta"]
    /// A file at the root that no operation touches: a folder that becomes empty
    /// is (rightly) paused by syncd, which is not what this test is about.
    static let anchor = "anchor.txt"
    /// Small name pools, shared by both devices, so that they collide often.
    /// Files and directories use distinct names (no file/directory clashes).
    static let fileNames = ["a.txt", "b.txt", "c.md", "notes", "my notes.txt", "e.bin"]
    static let directoryNames = ["d1", "d2", "sub", "x y"]
    static let maxDirectoryDepth = 3

    let seed: UInt64
    let opsPerDevice: Int
    var initialDirectories: [String] = []
    /// path → content, sorted by path.
    var initialFiles: [InitialFile] = []
    /// One list per device.
    var ops: [[WorkloadOp]] = []

    struct InitialFile: Sendable, Equatable {
        var path: String
        var bytes: [UInt8]
    }

    init(seed: UInt64, opsPerDevice: Int) {
        self.seed = seed
        self.opsPerDevice = opsPerDevice
        var master = SplitMix64(seed: seed)
        var setup = SplitMix64(seed: master.next())
        let deviceSeeds = Self.devices.map { _ in master.next() }

        var model = TreeModel()
        for _ in 0..<setup.int(in: 2...4) {
            let parents = [""] + model.directories.sorted().filter { TreeModel.depth($0) < 2 }
            let path = TreeModel.join(setup.pick(parents), setup.pick(Self.directoryNames))
            if !model.exists(path) { model.directories.insert(path) }
        }
        for i in 0..<setup.int(in: 4...8) {
            let parents = [""] + model.directories.sorted()
            let path = TreeModel.join(setup.pick(parents), setup.pick(Self.fileNames))
            guard !model.exists(path) else { continue }
            model.files.insert(path)
            initialFiles.append(InitialFile(path: path, bytes: Self.content(tag: "initial#\(i)", seed: seed, rng: &setup)))
        }
        initialDirectories = model.directories.sorted()
        initialFiles.sort { $0.path < $1.path }

        for (device, deviceSeed) in deviceSeeds.enumerated() {
            var rng = SplitMix64(seed: deviceSeed)
            var own = model
            var list: [WorkloadOp] = []
            for index in 0..<opsPerDevice {
                let action = Self.nextAction(model: own, device: device, index: index, seed: seed, rng: &rng)
                own.apply(action)
                // Mostly quick succession (often concurrent with the other device's
                // ops); now and then a pause long enough for sync to catch up.
                let pause = rng.chance(0.1) ? rng.int(in: 100...400) : rng.int(in: 0...30)
                list.append(WorkloadOp(device: device, index: index, pauseBeforeMs: pause, action: action))
            }
            ops.append(list)
        }
    }

    /// Content unique to (seed, tag): the tag names the device and operation.
    /// Mostly small; sometimes large enough (several chunks, hundreds of ms to
    /// move) that transfers overlap with later operations.
    static func content(tag: String, seed: UInt64, rng: inout SplitMix64, maxSmall: Int = 2_000) -> [UInt8] {
        let size = rng.chance(0.04) ? rng.int(in: 300_000...1_500_000) : rng.int(in: 0...maxSmall)
        return Array("\(tag) seed \(seed)\n".utf8) + pseudoRandomBytes(count: size, seed: rng.next())
    }

    private enum Kind: CaseIterable {
        case create, modify, append, truncate, rename, moveDirectory, delete, removeTree, mkdir, rmdir

        var weight: Int {
            switch self {
            case .create: 30
            case .modify: 30
            case .append: 20
            case .truncate: 8
            case .rename: 20
            case .moveDirectory: 7
            case .delete: 15
            case .removeTree: 3
            case .mkdir: 12
            case .rmdir: 8
            }
        }
    }

    private static func nextAction(model: TreeModel, device: Int, index: Int, seed: UInt64, rng: inout SplitMix64)
        -> WorkloadAction
    {
        let tag = "\(devices[device])#\(index)"
        // Sorted: Set iteration order differs between processes.
        let files = model.files.sorted()
        let directories = model.directories.sorted()
        let total = Kind.allCases.reduce(0) { $0 + $1.weight }
        while true {
            var roll = rng.below(total)
            var kind = Kind.create
            for k in Kind.allCases {
                if roll < k.weight {
                    kind = k
                    break
                }
                roll -= k.weight
            }
            switch kind {
            case .create:
                let parents = [""] + directories
                let path = TreeModel.join(rng.pick(parents), rng.pick(fileNames))
                if model.exists(path) { continue }
                return .create(path, content(tag: tag, seed: seed, rng: &rng))
            case .modify:
                guard !files.isEmpty else { continue }
                return .modify(rng.pick(files), content(tag: tag, seed: seed, rng: &rng))
            case .append:
                guard !files.isEmpty else { continue }
                return .append(rng.pick(files), content(tag: tag + " appended", seed: seed, rng: &rng, maxSmall: 500))
            case .truncate:
                guard !files.isEmpty else { continue }
                return .truncate(rng.pick(files), percent: rng.int(in: 0...90))
            case .rename:
                guard !files.isEmpty else { continue }
                let from = rng.pick(files)
                let to = TreeModel.join(rng.pick([""] + directories), rng.pick(fileNames))
                if model.exists(to) { continue }
                return .rename(from, to: to)
            case .moveDirectory:
                guard !directories.isEmpty else { continue }
                let from = rng.pick(directories)
                let parents = ([""] + directories).filter { $0 != from && !TreeModel.isInside($0, from) }
                let to = TreeModel.join(rng.pick(parents), rng.pick(directoryNames))
                if model.exists(to) || TreeModel.depth(to) + model.height(from) > maxDirectoryDepth { continue }
                return .moveDirectory(from, to: to)
            case .delete:
                guard !files.isEmpty else { continue }
                return .delete(rng.pick(files))
            case .removeTree:
                guard !directories.isEmpty else { continue }
                return .removeTree(rng.pick(directories))
            case .mkdir:
                let parents = [""] + directories.filter { TreeModel.depth($0) < maxDirectoryDepth }
                let path = TreeModel.join(rng.pick(parents), rng.pick(directoryNames))
                if model.exists(path) { continue }
                return .mkdir(path)
            case .rmdir:
                let empty = directories.filter { model.isEmptyDirectory($0) }
                guard !empty.isEmpty else { continue }
                return .rmdir(rng.pick(empty))
            }
        }
    }
}

/// What is at a path, for comparing trees (an empty file and a directory have
/// the same content hash, so the kind must be part of it).
enum TreeItem: Sendable, Equatable, CustomStringConvertible {
    case file(String)
    case directory
    case symlink(String)

    var description: String {
        switch self {
        case .file(let h): "file \(h.prefix(12))"
        case .directory: "dir"
        case .symlink(let h): "link \(h.prefix(12))"
        }
    }
}

/// A file version a device wrote and still owned at the end of its workload.
struct TrackedVersion: Sendable, Equatable {
    var device: String
    var opIndex: Int
    var contentHash: String
    /// Every path the device itself gave it (written at the first, renamed or
    /// moved along with its directory to the next), the last being where it is
    /// now as far as the device knows.
    var lineage: [String]
}

/// The "no version is lost" invariant of the convergence test.
///
/// What is guaranteed: the version a device wrote last at a path and did not
/// itself overwrite or delete afterwards (following its own renames and
/// directory moves). Such a version was on that device's disk with nothing
/// more of the device's own doing to it, so syncd must get it to the server
/// (committed at the path, or kept as a conflict copy and uploaded) — or the
/// server already held it when another device's change replaced it here.
/// What is not guaranteed: a version the same device overwrote, truncated,
/// appended to or deleted before it was uploaded (coalescing may rightly skip
/// it), so those are not tracked at all.
///
/// After quiescence a tracked version must be found
///   1. in the final tree at one of its lineage paths, or
///   2. in the final tree as a conflict copy (any path containing " (conflict "),
///   3. in the server history of one of its lineage paths (it was committed and
///      then changed, moved or deleted by the other device), or
///   4. in the server history of a conflict copy (committed as a copy that was
///      later changed or deleted).
/// Write contents are unique per (seed, device, op), so a content hash names
/// one write (except empty files, which are all alike: a weaker but sound check).
enum VersionAudit {
    static let conflictMarker = " (conflict "

    /// Where `version` survives, or nil if it is lost. `history` maps a path to the
    /// content hashes of its live file versions on the server (paths not fetched
    /// are treated as unknown, i.e. no versions).
    static func locate(
        _ version: TrackedVersion, tree: [String: TreeItem], history: [String: Set<String>], conflictPaths: [String]
    ) -> String? {
        let h = version.contentHash
        for p in version.lineage.reversed() where tree[p] == .file(h) { return "at \(p)" }
        for (p, item) in tree.sorted(by: { $0.key < $1.key }) where p.contains(conflictMarker) && item == .file(h) {
            return "conflict copy \(p)"
        }
        for p in version.lineage.reversed() where history[p]?.contains(h) == true { return "history of \(p)" }
        for p in conflictPaths.sorted() where history[p]?.contains(h) == true { return "history of conflict copy \(p)" }
        return nil
    }
}
