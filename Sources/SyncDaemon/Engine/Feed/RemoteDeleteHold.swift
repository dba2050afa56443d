/// A remote delete wave held for `syncctl approve-deletes`: whether a page's deletes go
/// ahead, and how many wait. An approval lets the next judged page through, once.
struct RemoteDeleteHold: Sendable, Equatable {
    enum Decision: Equatable {
        case go
        /// Held; `newly`: not held with this count before (worth a log line).
        case hold(newly: Bool)
    }

    /// Deletes waiting for approval.
    private(set) var held = 0
    private var approved = false

    /// `mustWait`: the delete-wave guard's verdict on this page's deletes.
    mutating func judge(deletes: Int, mustWait: Bool) -> Decision {
        if approved || !mustWait {
            approved = false
            held = 0
            return .go
        }
        let newly = held != deletes
        held = deletes
        return .hold(newly: newly)
    }

    /// Approves the held wave (if any). Returns how many deletes it holds.
    mutating func approve() -> Int {
        approved = held > 0
        return held
    }
}
