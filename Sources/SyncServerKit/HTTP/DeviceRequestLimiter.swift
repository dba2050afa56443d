import Hummingbird

/// Requests in progress per device: one device (a runaway or hostile client)
/// cannot occupy the server; above the limit it gets `429`, which clients
/// treat as "retry later".
actor DeviceRequestLimiter {
    let limit: Int
    private var inProgress: [String: Int] = [:]

    init(limit: Int) { self.limit = limit }

    func enter(_ device: String) -> Bool {
        let now = inProgress[device, default: 0]
        guard now < limit else { return false }
        inProgress[device] = now + 1
        return true
    }

    func leave(_ device: String) {
        let now = inProgress[device, default: 1] - 1
        inProgress[device] = now > 0 ? now : nil
    }

    func count(_ device: String) -> Int { inProgress[device, default: 0] }
}
