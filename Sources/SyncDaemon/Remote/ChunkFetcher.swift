import SyncClient

/// Fetches many chunks with batched requests (`POST …/chunks/fetch`), several in flight:
/// the receiving side of many small files pays one round trip per few hundred chunks,
/// not one per chunk.
struct ChunkFetcher: Sendable {
    let remote: RemoteClient
    let folder: String
    let maxConcurrent: Int

    static let hashesPerRequest = 256

    struct Fetched: Sendable {
        var chunks: [String: [UInt8]] = [:]
        /// Why some were not fetched (nil: every chunk the server has came).
        var error: RemoteError?
    }

    /// The chunks among `hashes` the server has. A response the server cut at its size
    /// limit leaves the rest for another round; a round that brings nothing new ends it
    /// (the server lacks what is left).
    func fetch(_ hashes: [String]) async -> Fetched {
        var seen = Set<String>()
        var wanted = hashes.filter { seen.insert($0).inserted }
        var fetched = Fetched()
        while !wanted.isEmpty {
            let before = fetched.chunks.count
            let requests = stride(from: 0, to: wanted.count, by: Self.hashesPerRequest).map {
                Array(wanted[$0..<min($0 + Self.hashesPerRequest, wanted.count)])
            }
            await run(requests, into: &fetched)
            wanted = wanted.filter { fetched.chunks[$0] == nil }
            if fetched.error != nil || fetched.chunks.count == before { break }
        }
        return fetched
    }

    /// Runs the requests with at most `maxConcurrent` in flight.
    private func run(_ requests: [[String]], into fetched: inout Fetched) async {
        let remote = self.remote, folder = self.folder
        await withTaskGroup(of: Result<[String: [UInt8]], RemoteError>.self) { group in
            var next = 0
            func addNext() {
                guard next < requests.count else { return }
                let hashes = requests[next]
                next += 1
                group.addTask {
                    do throws(RemoteError) {
                        return .success(try await remote.fetchChunks(folder: folder, hashes: hashes))
                    } catch {
                        return .failure(error)
                    }
                }
            }
            for _ in 0..<max(1, maxConcurrent) { addNext() }
            for await result in group {
                switch result {
                case .success(let chunks): fetched.chunks.merge(chunks) { first, _ in first }
                case .failure(let error): fetched.error = fetched.error ?? error
                }
                addNext()
            }
        }
    }
}
