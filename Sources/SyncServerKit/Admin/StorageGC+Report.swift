import Foundation

extension StorageGC {
    /// What one round did.
    public struct Report: Sendable, Equatable {
        public var versionsPruned = 0
        /// Unreferenced chunks whose index rows were dropped, and their bytes.
        public var chunksDropped = 0
        public var bytesDropped: Int64 = 0
        public var packsRewritten = 0
        public var packsDeleted = 0
        /// Packs not compacted because a live chunk in them is damaged.
        public var packsSkipped = 0
        /// Live records copied out of rewritten packs.
        public var bytesCopied: Int64 = 0
        /// Bytes of all packs before and after the round.
        public var packBytesBefore: Int64 = 0
        public var packBytesAfter: Int64 = 0
        /// Pack objects no row named, left in the bucket by crashed uploads or compactions.
        public var leftoverObjectsDeleted = 0
        /// The longest time one compaction append held the pack writer's lock.
        public var longestAppend: Duration = .zero
        public var took: Duration = .zero

        public init() {}

        public var reclaimedAnything: Bool {
            versionsPruned > 0 || chunksDropped > 0 || packsRewritten > 0 || packsDeleted > 0 || leftoverObjectsDeleted > 0
        }

        /// One line for an operator.
        public var summary: String {
            var parts = [
                "pruned \(versionsPruned) old version(s)",
                "dropped \(chunksDropped) unreferenced chunk(s) (\(Self.mib(bytesDropped)))",
                "rewrote \(packsRewritten) pack(s) (\(Self.mib(bytesCopied)) copied)",
                "deleted \(packsDeleted) pack(s)",
            ]
            if bytesCopied > 0 {
                parts.append(String(format: "longest append %.0f ms", Self.seconds(longestAppend) * 1000))
            }
            if leftoverObjectsDeleted > 0 { parts.append("deleted \(leftoverObjectsDeleted) leftover pack object(s) no row named") }
            if packsSkipped > 0 { parts.append("skipped \(packsSkipped) pack(s) holding damaged chunks (run `sync-server storage check`)") }
            parts.append("packs \(Self.mib(packBytesBefore)) -> \(Self.mib(packBytesAfter))")
            parts.append(String(format: "took %.2f s", Self.seconds(took)))
            return "storage gc: " + parts.joined(separator: "; ")
        }

        static func mib(_ bytes: Int64) -> String { String(format: "%.1f MiB", Double(bytes) / 1_048_576) }

        static func seconds(_ duration: Duration) -> Double {
            Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        }
    }
}
