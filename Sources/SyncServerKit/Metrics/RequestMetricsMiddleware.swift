import Hummingbird

/// Counts every request with its route pattern and final status, and records its latency.
/// The router's first middleware, so it sees the status `ErrorMiddleware` answered with (an
/// error becomes a response inside it); an unknown route is counted as `unmatched`.
struct RequestMetricsMiddleware: RouterMiddleware {
    typealias Context = ServerRequestContext
    let metrics: ServerMetrics

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let started = ContinuousClock.now
        do {
            let response = try await next(request, context)
            record(request, context: context, status: response.status.code, since: started)
            return response
        } catch let error as any HTTPResponseError {
            record(request, context: context, status: error.status.code, since: started)
            throw error
        } catch {
            // Cancellation (the client went away, shutdown): nothing was answered.
            record(request, context: context, status: 499, since: started)
            throw error
        }
    }

    private func record(_ request: Request, context: Context, status: Int, since started: ContinuousClock.Instant) {
        metrics.request(
            route: Self.route(context.endpointPath), method: request.method.rawValue, status: status,
            duration: ContinuousClock.now - started)
    }

    /// The matched route's pattern, or `unmatched` (Hummingbird says "NotFound").
    static func route(_ endpointPath: String?) -> String {
        guard let endpointPath, endpointPath != "NotFound" else { return "unmatched" }
        return endpointPath
    }
}
