import Prometheus

extension ServerMetrics {
    /// Counts a request and records its latency, by route pattern (`/v1/folders/{folder}/commit`,
    /// never the raw path, so the number of series stays bounded), method and final status.
    func request(route: String, method: String, status: Int, duration: Duration) {
        let method = Self.knownMethods.contains(method) ? method : "other"
        registry.makeCounter(
            descriptor: Self.name(
                "http_requests", unit: "total", help: "HTTP requests answered, by route pattern, method and status."),
            labels: [("route", route), ("method", method), ("status", String(status))]
        ).increment()
        registry.makeDurationHistogram(
            descriptor: Self.name(
                "http_request_duration", unit: "seconds",
                help: "Time from a request's arrival to its response being ready, by route pattern and method."),
            labels: [("route", route), ("method", method)],
            buckets: Self.latencyBuckets
        ).record(duration)
    }

    /// Methods kept as a label value; anything else is `other`.
    static let knownMethods: Set<String> = ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"]

    /// Why a request was refused authentication.
    enum AuthFailure: String, CaseIterable {
        case missingHeader = "missing_header"
        case notBearer = "not_bearer"
        case unknownToken = "unknown_or_expired_token"
        case revoked = "revoked"
        case malformedCredential = "malformed_credential"
        case invalidCredential = "invalid_credential"
    }

    func authFailed(_ reason: AuthFailure) {
        registry.makeCounter(
            descriptor: Self.name(
                "auth_failures", unit: "total", help: "Requests refused authentication (401), by reason."),
            labels: [("reason", reason.rawValue)]
        ).increment()
    }
}
