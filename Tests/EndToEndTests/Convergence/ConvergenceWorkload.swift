import TestSupport

// The pure half of the randomized convergence test (ConvergenceTests.swift): the
// workload generator (seed → operations on a model tree). Nothing here touches the
// file system or a process.

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
