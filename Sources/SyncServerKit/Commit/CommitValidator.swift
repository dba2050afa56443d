import Foundation
import SyncCore

/// Validates a whole commit before anything is written: any bad change
/// rejects the request (`invalid_path`, `bad_request`, `missing_chunks`).
enum CommitValidator {
    static let maxChanges = 100_000
    static let maxPathBytes = EntryLimits.maxPathBytes

    struct Checked: Sendable {
        /// The changes with NFC-normalized paths.
        var changes: [CommitChange]
        /// Chunks referenced by live files, in first-use order, without duplicates.
        var chunks: [String]
    }

    /// Phase 1, no I/O: paths, hashes and kind consistency.
    static func check(_ request: CommitRequest) throws(APIError) -> Checked {
        guard request.changes.count <= maxChanges else {
            throw .badRequest("at most \(maxChanges) changes per commit, got \(request.changes.count)")
        }
        var changes = request.changes
        var chunks: [String] = []
        var seen = Set<String>()
        for index in changes.indices {
            try check(&changes[index], at: index)
            guard !changes[index].deleted, changes[index].kind == .file, changes[index].moveFrom == nil else { continue }
            for chunk in changes[index].chunks where seen.insert(chunk).inserted { chunks.append(chunk) }
        }
        return Checked(changes: changes, chunks: chunks)
    }

    /// The commit id, if any (8-64 of `A-Z a-z 0-9 -`), and a hash of the changes
    /// it names, so a reused id with other changes is refused. The hash is of a
    /// sorted-keys encoding, not of the request's bytes: JSONEncoder on Linux does
    /// not write keys in the same order twice, so a retry's bytes differ. `JSONWriter`
    /// writes what JSONEncoder with `.sortedKeys` wrote (slashes escaped), so a reply
    /// remembered before it came still matches its retry.
    static func idempotency(of request: CommitRequest, checked: Checked) throws(APIError) -> (id: String, requestHash: String)? {
        guard let id = request.commitId else { return nil }
        guard (8...64).contains(id.utf8.count),
            id.utf8.allSatisfy({ $0 == UInt8(ascii: "-") || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) })
        else { throw .badRequest("commit_id must be 8-64 characters of A-Z a-z 0-9 -") }
        let json = JSONWriter.bytes(of: checked.changes, escapingSlashes: true, capacity: 64 + checked.changes.count * 256)
        return (id, Hashing.sha256Hex(json))
    }

    /// Phase 2: every chunk of a live file exists, and the file's size is the sum of its chunks.
    static func checkChunks(_ checked: Checked, sizes: [String: Int64]) throws(APIError) {
        let missing = checked.chunks.filter { sizes[$0] == nil }
        guard missing.isEmpty else { throw .missingChunks(missing) }
        for (index, change) in checked.changes.enumerated()
        where !change.deleted && change.kind == .file && change.moveFrom == nil {
            let total = change.chunks.reduce(Int64(0)) { $0 + (sizes[$1] ?? 0) }
            guard total == change.size else {
                throw .badRequest("changes[\(index)] \(change.path): size \(change.size) but its chunks hold \(total) bytes")
            }
        }
    }

    /// A move keeps the stored content: only its two paths and its base are checked.
    private static func checkMove(_ change: inout CommitChange, from: String, at: String) throws(APIError) {
        let source: String
        do {
            source = try RelativePath(validating: from).string
        } catch {
            throw .invalidPath("\(at): move_from: \(error)", cause: error)
        }
        change.moveFrom = source
        guard !change.deleted else { throw .badRequest("\(at): a move cannot be a tombstone") }
        guard change.baseRev > 0 else { throw .badRequest("\(at): a move needs the base_rev of the entry at move_from") }
        guard source != change.path, !change.path.hasPrefix(source + "/"), !source.hasPrefix(change.path + "/") else {
            throw .badRequest("\(at): cannot move \(source) into itself or onto its parent")
        }
        change.chunks = []
        change.symlinkTarget = nil
    }

    private static func check(_ change: inout CommitChange, at index: Int) throws(APIError) {
        let label = "changes[\(index)]"
        do {
            change.path = try RelativePath(validating: change.path).string
        } catch {
            throw .invalidPath("\(label): \(error)", cause: error)
        }
        guard change.path.utf8.count <= maxPathBytes else {
            throw .invalidPath("\(label): path longer than \(maxPathBytes) bytes")
        }
        let at = "\(label) \(change.path)"
        guard change.baseRev >= 0 else { throw .badRequest("\(at): base_rev must be >= 0") }
        guard (0...EntryLimits.maxFileSize).contains(change.size) else {
            throw .badRequest("\(at): size must be between 0 and \(EntryLimits.maxFileSize)")
        }
        guard change.mode & ~EntryLimits.modeMask == 0 else {
            throw .badRequest(
                "\(at): mode \(String(change.mode, radix: 8)) (octal) has bits outside 1777: setuid, setgid and file-type bits are refused")
        }
        guard EntryLimits.mtimeNs.contains(change.mtimeNs) else {
            throw .badRequest(
                "\(at): mtime_ns \(change.mtimeNs) is outside \(EntryLimits.mtimeNs.lowerBound)...\(EntryLimits.mtimeNs.upperBound) (years 1900-2255)")
        }
        if let bad = change.chunks.first(where: { !Hashing.isValidHex($0) }) {
            throw .badRequest("\(at): not a chunk hash: \(bad.debugDescription)")
        }
        if change.kind != .symlink { change.symlinkTarget = nil }
        // No store keeps a NUL in text (PostgreSQL refuses it): refused for every change.
        if change.contentHash.utf8.contains(0) || change.symlinkTarget?.utf8.contains(0) == true {
            throw .badRequest("\(at): a NUL byte in content_hash or symlink_target")
        }
        if let from = change.moveFrom {
            try checkMove(&change, from: from, at: at)
            return
        }
        if change.deleted { return }
        switch change.kind {
        case .directory:
            guard change.chunks.isEmpty, change.size == 0 else {
                throw .badRequest("\(at): a directory has no chunks and size 0")
            }
        case .symlink:
            guard let target = change.symlinkTarget, !target.isEmpty, !target.utf8.contains(0),
                target.utf8.count <= EntryLimits.maxSymlinkTargetBytes
            else {
                throw .badRequest(
                    "\(at): symlink_target must be 1-\(EntryLimits.maxSymlinkTargetBytes) bytes without NUL")
            }
            guard change.chunks.isEmpty else { throw .badRequest("\(at): a symlink has no chunks") }
            guard change.contentHash == Hashing.sha256Hex(Array(target.utf8)) else {
                throw .badRequest("\(at): content_hash of a symlink must be SHA-256 of its target")
            }
        case .file:
            guard change.contentHash == Hashing.contentHash(chunks: change.chunks) else {
                throw .badRequest("\(at): content_hash does not match the chunk list")
            }
        }
    }
}
