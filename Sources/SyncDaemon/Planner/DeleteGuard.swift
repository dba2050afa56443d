/// Decides when a wave of deletes is large enough to wait for the user's
/// `syncctl approve-deletes`: more than `maxFraction` of the folder's live
/// entries, and more than a handful. Pure.
public struct DeleteGuard: Sendable, Equatable {
    public var maxFraction: Double
    /// Waves this small never wait, whatever the fraction.
    public var handful: Int

    public init(maxFraction: Double, handful: Int = 10) {
        self.maxFraction = maxFraction
        self.handful = handful
    }

    public func mustWait(deletes: Int, liveEntries: Int) -> Bool {
        guard deletes > handful else { return false }
        guard liveEntries > 0 else { return false }
        return Double(deletes) > maxFraction * Double(liveEntries)
    }
}
