import Prometheus

extension ServerMetrics {
    /// A commit was answered with `changes` changes.
    func committed(changes: Int) {
        commits.increment()
        committedChanges.increment(by: Int64(changes))
    }

    /// An upload of `bytes` chunk bytes, of which `newChunks` chunks (`newBytes` bytes) were not stored before.
    func chunksReceived(bytes: Int, newChunks: Int, newBytes: Int) {
        chunkBytesReceived.increment(by: Int64(bytes))
        chunksStored.increment(by: Double(newChunks))
        chunkBytesStored.increment(by: Double(newBytes))
    }

    func chunksSent(bytes: Int) {
        chunkBytesSent.increment(by: Int64(bytes))
    }

    /// The chunk index's exact figures (at start and after a storage round).
    func stored(chunks: Int64, bytes: Int64) {
        chunksStored.set(Double(chunks))
        chunkBytesStored.set(Double(bytes))
    }

    /// A storage round ended: its report, or nil when it failed.
    func storageRound(_ report: StorageGC.Report?) {
        guard let report else {
            gcRoundsFailed.increment()
            return
        }
        gcRoundsSucceeded.increment()
        gcBytesReclaimed.increment(by: max(0, report.packBytesBefore - report.packBytesAfter))
        gcChunksDropped.increment(by: Int64(report.chunksDropped))
    }
}
