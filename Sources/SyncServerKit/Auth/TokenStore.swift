/// Who is behind an access token, and what it may touch.
struct DeviceSession: Sendable, Equatable {
    var deviceID: String
    var deviceName: String
    /// Folders granted, as read from the metadata on each request.
    var folders: Set<String>
}

/// Access tokens this instance issued or adopted, in memory (with PostgreSQL they are also
/// shared by their SHA-256: `MetadataBackend.shareToken`). With SQLite a restart invalidates them and clients
/// re-authenticate with their credential (by design).
actor TokenStore {
    private struct Issued {
        var session: DeviceSession
        var expires: ContinuousClock.Instant
    }

    private let lifetime: Duration
    private let clock = ContinuousClock()
    private var tokens: [String: Issued] = [:]
    private var nextSweep: ContinuousClock.Instant

    init(lifetime: Duration) {
        self.lifetime = lifetime
        self.nextSweep = ContinuousClock.now + lifetime
    }

    /// A new random 32-byte token (hex) for `session`.
    func issue(for session: DeviceSession) -> String {
        sweepIfDue()
        let token = RandomHex.make(bytes: 32)
        tokens[token] = Issued(session: session, expires: clock.now + lifetime)
        return token
    }

    /// The session behind `token`, or nil if unknown or expired.
    /// Keeps a token another instance issued (found in the shared store) until `expires`.
    func adopt(_ token: String, session: DeviceSession, expiresIn: Duration) {
        sweepIfDue()
        tokens[token] = Issued(session: session, expires: clock.now + expiresIn)
    }

    func session(for token: String) -> DeviceSession? {
        guard let issued = tokens[token] else { return nil }
        guard issued.expires > clock.now else {
            tokens[token] = nil
            return nil
        }
        return issued.session
    }

    /// Forgets every token of `device`.
    func revoke(device: String) {
        tokens = tokens.filter { $0.value.session.deviceID != device }
    }

    var count: Int { tokens.count }

    private func sweepIfDue() {
        let now = clock.now
        guard now >= nextSweep else { return }
        tokens = tokens.filter { $0.value.expires > now }
        nextSweep = now + lifetime
    }
}
