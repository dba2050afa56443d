/// When the engine runs a full scan by itself, decided without a clock (the instants come
/// in). Three reasons, each with its own deadline:
/// - `periodic`: every `rescan_interval` (jittered; more often while watching failed), the
///   safety net for what inotify does not report. Scheduled again after each one.
/// - `requested`: lost events, a root that is back, a name renamed to NFC: one scan after
///   `requestDelay`. A storm of requests is one scan, plus one more for the requests that
///   came while it ran (the request is taken when its scan starts).
/// - `journalRetry`: local changes could not be journaled (the state dir's disk full?):
///   a full scan finds them again; tried every `journalRetryInterval` while it fails.
/// The engine's timer loop asks `due(at:)` and hands what is due to the scan loop.
struct ScanSchedule<Instant: InstantProtocol> where Instant.Duration == Duration {
    static var requestDelay: Duration { .milliseconds(200) }
    static var journalRetryInterval: Duration { .seconds(5) }

    private var periodicAt: Instant?
    private var requested: (at: Instant, reason: String)?
    private var journalRetryAt: Instant?
    private var lastJournalRetry: Instant?

    /// The earliest instant a scan is due, if one is scheduled.
    var nextDeadline: Instant? {
        [periodicAt, requested?.at, journalRetryAt].compactMap { $0 }.min()
    }

    /// The next periodic scan, `interval` from `now`. Returns its deadline.
    mutating func schedulePeriodic(after interval: Duration, at now: Instant) -> Instant {
        let due = now.advanced(by: interval)
        periodicAt = due
        return due
    }

    /// Asks for a scan soon. Returns its deadline, or nil when one is already asked for.
    mutating func request(_ reason: String, at now: Instant) -> Instant? {
        guard requested == nil else { return nil }
        let due = now.advanced(by: Self.requestDelay)
        requested = (due, reason)
        return due
    }

    /// Journaling failed: a scan retries, `journalRetryInterval` after the last retry (and
    /// not at once). Returns its deadline, or nil when one is scheduled already.
    mutating func journalFailed(at now: Instant) -> Instant? {
        guard journalRetryAt == nil else { return nil }
        let soon = now.advanced(by: .seconds(1))
        let due = lastJournalRetry.map { max(soon, $0.advanced(by: Self.journalRetryInterval)) } ?? soon
        journalRetryAt = due
        return due
    }

    /// The scan due at `now`, if any (the earliest first); taking it clears its deadline.
    mutating func due(at now: Instant) -> ScanReason? {
        let candidates: [(Instant, ScanReason)] = [
            periodicAt.map { ($0, .periodic) }, requested.map { ($0.at, .requested($0.reason)) },
            journalRetryAt.map { ($0, .journalRetry) },
        ].compactMap { $0 }
        guard let (_, reason) = candidates.filter({ $0.0 <= now }).min(by: { $0.0 < $1.0 }) else { return nil }
        switch reason {
        case .periodic: periodicAt = nil
        case .requested: requested = nil
        case .journalRetry:
            journalRetryAt = nil
            lastJournalRetry = now
        }
        return reason
    }
}

/// Why the engine scans by itself (see `ScanSchedule`).
enum ScanReason: Equatable, Sendable {
    case periodic
    case requested(String)
    case journalRetry
}
