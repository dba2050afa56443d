/// Decides when a wave of deletes is large enough to wait for the user's
/// `syncctl approve-deletes`: more than `maxFraction` of the folder's live entries,
/// or more than `maxCount` entries whatever the folder's size. Small folders get no
/// exemption (five files of five deleted is a wave); a single delete is never one. Pure.
public struct DeleteGuard: Sendable, Equatable {
    public var maxFraction: Double
    public var maxCount: Int

    public init(maxFraction: Double, maxCount: Int = 1_000) {
        self.maxFraction = maxFraction
        self.maxCount = maxCount
    }

    public func mustWait(deletes: Int, liveEntries: Int) -> Bool {
        guard deletes > 1 else { return false }
        if deletes > maxCount { return true }
        guard liveEntries > 0 else { return false }
        return Double(deletes) > maxFraction * Double(liveEntries)
    }
}
