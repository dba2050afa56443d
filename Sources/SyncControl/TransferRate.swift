/// The speed of one folder's transfers each way, from successive status samples: the bytes
/// done of the transfers in flight, at the times they were read (any clock: the caller passes
/// the time, so a test gives the samples it wants).
///
/// Bytes moved between two samples: what each transfer seen in both gained, plus what a
/// transfer first seen has done. The speed is over the last `window`, from the first sample
/// before data moved. With the folder's totals of finished files (`done`, from a daemon that
/// reports them) the bytes moved are the change in (finished files' bytes + bytes done in
/// flight), which counts files that start and finish between two samples too; without them
/// a transfer that ends between two samples is not counted for its last stretch.
public struct TransferRate: Sendable, Equatable {
    /// How far back the speed looks.
    public let window: Duration

    private struct Sample: Sendable, Equatable {
        var time: Duration
        /// Bytes moved each way since the first sample.
        var up: Int64
        var down: Int64
    }

    private var samples: [Sample] = []
    private var lastDone: [String: Int64] = [:]
    /// Finished bytes + bytes in flight, each way, at the last sample (with totals only).
    private var lastMeasure: Measure?

    private struct Measure: Sendable, Equatable {
        var up: Int64
        var down: Int64
    }

    public init(window: Duration = .seconds(5)) { self.window = window }

    /// Adds the transfers in flight at `time` (later than the previous sample's), and the
    /// folder's totals of finished files when the daemon reports them.
    public mutating func add(_ transfers: [Transfer], done totals: TransferTotals? = nil, at time: Duration) {
        var done: [String: Int64] = [:]
        var moved = (up: Int64(0), down: Int64(0))
        if let totals {
            let inFlight = { (direction: String) in transfers.filter { $0.direction == direction }.reduce(Int64(0)) { $0 + $1.bytesDone } }
            let measure = Measure(up: totals.bytesUploaded + inFlight("upload"), down: totals.bytesDownloaded + inFlight("download"))
            if let last = lastMeasure { moved = (max(0, measure.up - last.up), max(0, measure.down - last.down)) }
            lastMeasure = measure
        } else {
            for t in transfers {
                let key = t.direction + "\u{0}" + t.path
                done[key] = t.bytesDone
                let gained = samples.isEmpty ? 0 : max(0, t.bytesDone - (lastDone[key] ?? 0))
                if t.direction == "upload" { moved.up += gained } else { moved.down += gained }
            }
        }
        lastDone = done
        let previous = samples.last ?? Sample(time: time, up: 0, down: 0)
        samples.append(Sample(time: time, up: previous.up + moved.up, down: previous.down + moved.down))
        // Keep the newest sample at or before the window's start, and every one after it;
        // then drop a quiet start, so that a transfer after a pause shows its own speed at once.
        while samples.count > 2 && samples[1].time <= time - window { samples.removeFirst() }
        while samples.count > 2 && samples[0].up == samples[1].up && samples[0].down == samples[1].down { samples.removeFirst() }
    }

    /// Bytes per second sent (`upload`) or received (`download`) over the window; nil before
    /// two samples.
    public func bytesPerSecond(_ direction: String) -> Double? {
        guard let first = samples.first, let last = samples.last, last.time > first.time else { return nil }
        let bytes = direction == "upload" ? last.up - first.up : last.down - first.down
        let span = last.time - first.time
        let seconds = Double(span.components.seconds) + Double(span.components.attoseconds) / 1e18
        return Double(bytes) / seconds
    }

    /// Seconds until `remaining` bytes are moved at the current speed; nil when unknown or stalled.
    public func secondsLeft(_ direction: String, remaining: Int64) -> Double? {
        guard remaining > 0, let speed = bytesPerSecond(direction), speed > 0 else { return nil }
        return Double(remaining) / speed
    }
}
