/// How full of live chunks one pack is, as the index says.
struct PackUsage: Sendable, Equatable {
    var pack: PackID
    /// The pack's recorded durable length.
    var size: Int64
    /// Live chunks' records (header and bytes).
    var liveBytes: Int64
    var liveChunks: Int
    var sealed: Bool
    var retired: Bool

    var liveFraction: Double { size > 0 ? Double(liveBytes) / Double(size) : 0 }
}

/// What compaction does with the packs (pure: tested without I/O). A sealed pack with no
/// live chunk is deleted; one whose live fraction is below `threshold` is rewritten (its live
/// records copied to the pack being written, then the pack deleted); a retired pack (a
/// deletion cut short) is deleted again. Packs not sealed are never touched: the one being
/// written is sealed first if it qualifies (`sealsCurrent`), others are verified at start.
struct CompactionPlan: Sendable, Equatable {
    var delete: [PackID] = []
    var rewrite: [PackID] = []

    init(delete: [PackID] = [], rewrite: [PackID] = []) {
        self.delete = delete
        self.rewrite = rewrite
    }

    init(packs: [PackUsage], current: PackID?, threshold: Double) {
        for usage in packs.sorted(by: { $0.pack < $1.pack }) where usage.pack != current {
            if usage.retired {
                delete.append(usage.pack)
            } else if !usage.sealed {
                continue
            } else if usage.liveChunks == 0 {
                delete.append(usage.pack)
            } else if usage.liveFraction < threshold {
                rewrite.append(usage.pack)
            }
        }
    }

    var isEmpty: Bool { delete.isEmpty && rewrite.isEmpty }

    /// Whether the pack being written should be sealed now so this round can compact it:
    /// it holds recorded bytes and is all garbage, or below the threshold.
    static func sealsCurrent(_ usage: PackUsage?, threshold: Double) -> Bool {
        guard let usage, !usage.sealed, !usage.retired, usage.size > 0 else { return false }
        return usage.liveChunks == 0 || usage.liveFraction < threshold
    }
}
