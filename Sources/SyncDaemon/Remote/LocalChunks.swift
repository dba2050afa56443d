import Foundation
import Glibc
import SyncCore

/// Chunks of a download that local files already hold — the old version of a
/// big file edited elsewhere, or any other file sharing chunks with it: read
/// from disk (and verified) instead of fetched. A candidate file is chunked
/// only when its last known chunk list shares chunks with the download.
struct LocalChunks: Sendable {
    struct Located: Sendable {
        var fullPath: String
        var ref: ChunkRef
    }

    private(set) var refs: [String: Located] = [:]
    /// The files chunks are taken from, for the log.
    private(set) var files: [String] = []

    var isEmpty: Bool { refs.isEmpty }

    /// Adds the chunks of `wanted` that the file at `fullPath` holds, if its
    /// record (`known`, its last known chunk list) says it shares any not yet found.
    mutating func add(file fullPath: String, known: [String], wanted: Set<String>, chunker: FileChunker) {
        guard known.contains(where: { wanted.contains($0) && refs[$0] == nil }) else { return }
        let fd = open(fullPath, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return }
        defer { close(fd) }
        let chunked: ChunkedFile
        do {
            chunked = try chunker.chunk(fd: fd, path: fullPath)
        } catch {
            return  // unreadable now: those chunks are fetched instead
        }
        var found = false
        for ref in chunked.chunks where wanted.contains(ref.hash) && refs[ref.hash] == nil {
            refs[ref.hash] = Located(fullPath: fullPath, ref: ref)
            found = true
        }
        if found { files.append(fullPath) }
    }

    /// The bytes of chunk `hash` from a local file, if it still holds them.
    func bytes(of hash: String) -> [UInt8]? {
        guard let located = refs[hash], let bytes = located.ref.read(from: located.fullPath),
            Hashing.sha256Hex(bytes) == hash
        else { return nil }
        return bytes
    }
}
