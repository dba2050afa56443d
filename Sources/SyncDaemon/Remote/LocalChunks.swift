import Foundation
import Glibc
import SyncCore

/// Chunks of a download that local files already hold — the old version of a
/// big file edited elsewhere, or any other file sharing chunks with it: read
/// from disk (and verified) instead of fetched. A candidate file is chunked
/// only when its last known chunk list shares chunks with the download.
struct LocalChunks: Sendable {
    struct Found: Sendable {
        var path: String
        var ref: ChunkRef
    }

    private(set) var refs: [String: Found] = [:]
    /// The files chunks are taken from, for the log.
    private(set) var files: [String] = []

    var isEmpty: Bool { refs.isEmpty }

    private(set) var folder: FolderRoot?

    /// Adds the chunks of `wanted` that the file at `path` (beneath `folder`)
    /// holds, if its record (`known`, its last known chunk list) says it shares
    /// any not yet found.
    mutating func add(file path: String, in folder: FolderRoot, known: [String], wanted: Set<String>, chunker: FileChunker) {
        guard known.contains(where: { wanted.contains($0) && refs[$0] == nil }) else { return }
        self.folder = folder
        let fd: Int32
        do {
            fd = try folder.open(path, flags: O_RDONLY)
        } catch {
            return  // gone or unreachable now: those chunks are fetched instead
        }
        defer { close(fd) }
        let chunked: ChunkedFile
        do {
            chunked = try chunker.chunk(fd: fd, path: path)
        } catch {
            return  // unreadable now: those chunks are fetched instead
        }
        var found = false
        for ref in chunked.chunks where wanted.contains(ref.hash) && refs[ref.hash] == nil {
            refs[ref.hash] = Found(path: path, ref: ref)
            found = true
        }
        if found { files.append(path) }
    }

    /// The bytes of chunk `hash` from a local file, if it still holds them.
    func bytes(of hash: String) -> [UInt8]? {
        guard let located = refs[hash], let folder else { return nil }
        let fd: Int32
        do {
            fd = try folder.open(located.path, flags: O_RDONLY)
        } catch {
            return nil  // gone meanwhile: fetched instead
        }
        defer { close(fd) }
        guard let bytes = located.ref.read(fd: fd), Hashing.sha256Hex(bytes) == hash else { return nil }
        return bytes
    }
}
