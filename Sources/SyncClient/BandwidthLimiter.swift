import SyncCore

/// Paces one direction of chunk traffic to a byte rate (a `TokenBucket` on the
/// continuous clock). Callers wait in `acquire` until their bytes may go; the rate can
/// change at any time (a reload) and applies to the next reservation.
public actor BandwidthLimiter {
    private let clock = ContinuousClock()
    private var bucket: TokenBucket<ContinuousClock.Instant>

    /// `rate` in bytes per second; 0 = unlimited.
    public init(rate: Int64 = 0) {
        bucket = TokenBucket(rate: rate, now: clock.now)
    }

    public var rate: Int64 { bucket.rate }

    public func setRate(_ rate: Int64) {
        guard rate != bucket.rate else { return }
        bucket.setRate(rate, at: clock.now)
    }

    /// Waits until `bytes` may be sent (or have been received and the next may be asked for).
    /// A cancelled task stops waiting: its transfer is being abandoned anyway.
    public func acquire(_ bytes: Int) async {
        let wait = bucket.reserve(bytes, at: clock.now)
        guard wait > .zero else { return }
        do {
            try await Task.sleep(for: wait, clock: clock)
        } catch {
            return  // cancelled: the request that follows fails with the cancellation
        }
    }
}

/// The daemon's two limits, shared by every folder (the config's `upload_limit` and
/// `download_limit` are for the whole daemon).
public final class BandwidthLimits: Sendable {
    public let upload: BandwidthLimiter
    public let download: BandwidthLimiter

    public init(upload: Int64 = 0, download: Int64 = 0) {
        self.upload = BandwidthLimiter(rate: upload)
        self.download = BandwidthLimiter(rate: download)
    }

    public func set(upload: Int64, download: Int64) async {
        await self.upload.setRate(upload)
        await self.download.setRate(download)
    }
}
