import Foundation

/// Local deletes judged as one wave: those of the last `window` count together against
/// `DeleteGuard`, so a big `rm -r` sent in several batches is held as a whole; an approval
/// lets the rest of the wave through for one window. Pure: the time is passed in.
struct DeleteWave: Sendable {
    static let window: TimeInterval = 60
    let deleteGuard: DeleteGuard
    private var recent: [(at: Date, count: Int)] = []
    private var approvedUntil = Date.distantPast

    init(deleteGuard: DeleteGuard) {
        self.deleteGuard = deleteGuard
    }

    /// Whether `count` more deletes may be sent now, the folder holding `liveEntries`
    /// (nil when that could not be read: then they wait). Counts them in the wave if so.
    mutating func admit(_ count: Int, now: Date, liveEntries: () -> Int?) -> Bool {
        recent.removeAll { now.timeIntervalSince($0.at) > Self.window }
        let earlier = recent.reduce(0) { $0 + $1.count }
        if now > approvedUntil {
            guard let live = liveEntries() else { return false }
            // Judged against the folder as it was when the wave began.
            if deleteGuard.mustWait(deletes: earlier + count, liveEntries: live + earlier) { return false }
        }
        recent.append((now, count))
        return true
    }

    /// `syncctl approve-deletes`: the held deletes and the rest of this wave go ahead.
    mutating func approve(now: Date) {
        approvedUntil = now.addingTimeInterval(Self.window)
    }
}
