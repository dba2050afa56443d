import Foundation
import SyncCore

/// The info line a person reads when a batch is done, each way: how many changes, how
/// many bytes, how long, how fast. Pure.
enum BatchSummary {
    /// "sent 12 changes to the server: 3.2 MiB in 0.41 s (7.8 MiB/s)"
    static func sent(changes: Int, bytes: Int64, took: Duration) -> String {
        "sent \(count(changes)) to the server" + (bytes > 0 ? ": " + amount(bytes: bytes, took: took) : " in \(seconds(took))")
    }

    /// "applied 12 changes from the server: 3.2 MiB in 0.41 s (7.8 MiB/s)"
    static func applied(changes: Int, bytes: Int64, took: Duration) -> String {
        "applied \(count(changes)) from the server" + (bytes > 0 ? ": " + amount(bytes: bytes, took: took) : " in \(seconds(took))")
    }

    static func count(_ changes: Int) -> String { changes == 1 ? "1 change" : "\(changes) changes" }

    /// "3.2 MiB in 0.41 s (7.8 MiB/s)"
    static func amount(bytes: Int64, took: Duration) -> String {
        let secs = max(Double(took.components.seconds) + Double(took.components.attoseconds) / 1e18, 0.001)
        return "\(size(bytes)) in \(seconds(took)) (\(size(Int64(Double(bytes) / secs)))/s)"
    }

    static func seconds(_ took: Duration) -> String {
        let secs = Double(took.components.seconds) + Double(took.components.attoseconds) / 1e18
        return secs < 10 ? String(format: "%.2f s", secs) : String(format: "%.0f s", secs)
    }

    static func size(_ bytes: Int64) -> String { ByteCount.text(bytes) }
}
