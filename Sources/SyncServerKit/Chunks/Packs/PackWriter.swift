import Foundation
import NIOConcurrencyHelpers
import NIOCore
import SyncCore

/// Records to append to a pack in one go (`PackRecord` format): parts written one after the
/// other, each either records copied in or a run of records taken as they arrived in a
/// request body (the chunk batch format of the wire is the pack's: nothing is copied).
/// Every chunk must be checked against its hash before it is added: its checksum is taken here.
struct PackBatch: Sendable {
    private(set) var parts: [ByteBuffer] = []
    private(set) var byteCount = 0
    /// Whether the last part is records copied in (the next copied record joins it: a
    /// compaction's or an import's records go in one part, one write, not one each).
    private var lastPartIsCopied = false
    /// Each record's hash, where its chunk's bytes start within the batch, their length and
    /// their `ChunkChecksum`.
    private(set) var records: [(hash: String, offset: Int64, length: Int64, checksum: Int64)] = []

    var isEmpty: Bool { records.isEmpty }

    /// Copies one record in.
    mutating func add(hash: String, bytes chunk: UnsafeRawBufferPointer) {
        note(hash: hash, chunk: chunk, at: byteCount + PackRecord.headerSize)
        if !lastPartIsCopied {
            append(ByteBufferAllocator().buffer(capacity: PackRecord.headerSize + chunk.count))
            lastPartIsCopied = true
        }
        PackRecord.writeHeader(hash: hash, length: chunk.count, to: &parts[parts.count - 1])
        parts[parts.count - 1].writeBytes(chunk)
        byteCount += PackRecord.headerSize + chunk.count
    }

    /// A chunk whose bytes are `range` of `body` (a lone upload): its header is made here,
    /// its bytes are taken from `body` as they are.
    mutating func add(hash: String, chunkAt range: Range<Int>, of body: ByteBuffer) {
        var header = ByteBufferAllocator().buffer(capacity: PackRecord.headerSize)
        PackRecord.writeHeader(hash: hash, length: range.count, to: &header)
        body.withUnsafeReadableBytes { note(hash: hash, chunk: UnsafeRawBufferPointer(rebasing: $0[range]), at: byteCount + header.readableBytes) }
        append(header)
        append(slice(range, of: body))
    }

    /// Records that lie back to back in `body` as they arrived (each a header, then its
    /// chunk's bytes at `range`): taken as they are, one part.
    mutating func add(run: [(hash: String, range: Range<Int>)], of body: ByteBuffer) {
        guard let first = run.first, let last = run.last else { return }
        let start = first.range.lowerBound - PackRecord.headerSize
        body.withUnsafeReadableBytes { bytes in
            for (index, record) in run.enumerated() {
                // Written as they are: each must be its record's header, then its bytes, back to back.
                let header = ChunkBatch.parseHeader(
                    UnsafeRawBufferPointer(rebasing: bytes[(record.range.lowerBound - PackRecord.headerSize)..<record.range.lowerBound]))
                precondition(
                    header.hash == record.hash && header.length == UInt64(record.range.count)
                        && (index == 0 || run[index - 1].range.upperBound + PackRecord.headerSize == record.range.lowerBound),
                    "PackBatch: a run of records that is not as it lies in its body (callers parse the body first)")
                note(hash: record.hash, chunk: UnsafeRawBufferPointer(rebasing: bytes[record.range]), at: byteCount + record.range.lowerBound - start)
            }
        }
        append(slice(start..<last.range.upperBound, of: body))
    }

    private mutating func note(hash: String, chunk: UnsafeRawBufferPointer, at offset: Int) {
        records.append((hash, Int64(offset), Int64(chunk.count), ChunkChecksum.of(chunk)))
    }

    private mutating func append(_ part: ByteBuffer) {
        byteCount += part.readableBytes
        parts.append(part)
        lastPartIsCopied = false
    }

    private func slice(_ range: Range<Int>, of body: ByteBuffer) -> ByteBuffer {
        guard let part = body.getSlice(at: body.readerIndex + range.lowerBound, length: range.count) else {
            preconditionFailure("PackBatch: a record outside its body (callers parse the body first)")
        }
        return part
    }

    /// Writes the batch at `offset` of `fd`, or only its first `limit` bytes (a crash test's torn write).
    func write(fd: Int32, at offset: Int64, path: String, limit: Int? = nil) throws(StoreIOError) {
        var at = offset
        var left = limit ?? byteCount
        for part in parts where left > 0 {
            let count = min(part.readableBytes, left)
            try part.withUnsafeReadableBytes { bytes throws(StoreIOError) in
                try POSIX.writeAll(fd: fd, UnsafeRawBufferPointer(rebasing: bytes[0..<count]), at: at, path: path)
            }
            at += Int64(count)
            left -= count
        }
    }
}

/// The one appender of pack files (`data_dir/packs/<id>.pack`): a lock makes appends one at
/// a time, each written part by part (`PackBatch.write`) and made durable with one
/// `fdatasync` before it returns, so whatever it reports is on disk. A pack is sealed (closed, never written
/// again) once the next batch would take it past `rotateAt`, and at every start a new
/// pack is begun. With `sealsEveryAppend` (packs kept in object storage) every append is
/// a pack of its own, sealed before the lock is let go, so the one who appended it is the
/// one who uploads it. Blocking: call it on a thread pool.
final class PackWriter: Sendable {
    let directory: String
    let rotateAt: Int64
    let sealsEveryAppend: Bool
    private let state: NIOLockedValueBox<State>

    private struct State {
        var current: OpenPack?
        var nextID: PackID
        var syncs = 0
    }

    private struct OpenPack {
        var id: PackID
        var fd: Int32
        var size: Int64
        var path: String
    }

    struct Appended: Sendable {
        /// One per record of the batch, in order (all in one pack).
        var locations: [ChunkLocation]
        /// The pack's length, all of it durable, once the batch was written.
        var durableLength: Int64
        /// Packs sealed on the way.
        var sealed: [PackID]
    }

    init(directory: String, rotateAt: Int64, nextID: PackID, sealsEveryAppend: Bool = false) {
        self.directory = directory
        self.rotateAt = rotateAt
        self.sealsEveryAppend = sealsEveryAppend
        self.state = NIOLockedValueBox(State(nextID: nextID))
    }

    deinit {
        state.withLockedValue { if let pack = $0.current { close(pack.fd) } }
    }

    /// `fdatasync` calls made so far (one per append).
    var syncs: Int { state.withLockedValue { $0.syncs } }

    /// `crashPoint` (tests): when it is due, half of the batch is written and the process killed.
    func append(_ batch: PackBatch, crashPoint: ServerCrashPoint? = nil) throws -> Appended {
        let result: Result<Appended, any Error> = state.withLockedValue { state in
            Result { try Self.append(batch, state: &state, writer: self, crashPoint: crashPoint) }
        }
        return try result.get()
    }

    /// The pack being appended to, if one is open.
    var currentPack: PackID? { state.withLockedValue { $0.current?.id } }

    /// Seals the open pack if it is `pack` (the next append begins a new one); whether it did.
    func seal(_ pack: PackID) -> Bool {
        state.withLockedValue { state in
            guard let current = state.current, current.id == pack else { return false }
            close(current.fd)
            state.current = nil
            return true
        }
    }

    private static func append(
        _ batch: PackBatch, state: inout State, writer: PackWriter, crashPoint: ServerCrashPoint?
    ) throws -> Appended {
        var sealed: [PackID] = []
        if let pack = state.current, pack.size > 0, pack.size + Int64(batch.byteCount) > writer.rotateAt {
            close(pack.fd)
            state.current = nil
            sealed.append(pack.id)
        }
        if state.current == nil {
            // The id is used up even if creating fails (a file may be left with that name).
            let id = state.nextID
            state.nextID += 1
            state.current = try writer.create(id: id)
        }
        guard var pack = state.current else { preconditionFailure("a pack was just opened") }
        if let crashPoint, ServerCrashPoint.isDue(crashPoint) {
            // A crash test's torn write: whatever part of it got written is what the crash leaves.
            _ = Result { () throws(StoreIOError) in try batch.write(fd: pack.fd, at: pack.size, path: pack.path, limit: batch.byteCount / 2) }
            ServerCrashPoint.die()
        }
        do {
            try batch.write(fd: pack.fd, at: pack.size, path: pack.path)
        } catch {
            // Leave no half record behind; if even that fails, the pack is given up (the
            // next append begins another; the start-up check cuts its torn tail).
            if ftruncate(pack.fd, off_t(pack.size)) != 0 { abandon(&state) }
            throw error
        }
        do {
            try POSIX.dataSync(fd: pack.fd, path: pack.path)
        } catch {
            // After a failed fdatasync nothing written since the last good one can be trusted.
            abandon(&state)
            throw error
        }
        let start = pack.size
        pack.size += Int64(batch.byteCount)
        state.current = pack
        state.syncs += 1
        let locations = batch.records.map {
            ChunkLocation(pack: pack.id, offset: start + $0.offset, length: $0.length, checksum: $0.checksum)
        }
        if writer.sealsEveryAppend {
            close(pack.fd)
            state.current = nil
            sealed.append(pack.id)
        }
        return Appended(locations: locations, durableLength: pack.size, sealed: sealed)
    }

    private static func abandon(_ state: inout State) {
        if let pack = state.current { close(pack.fd) }
        state.current = nil
    }

    /// A new empty pack whose name is durable in the directory.
    private func create(id: PackID) throws -> OpenPack {
        let path = directory + "/" + PackName.file(id)
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw StoreIOError(operation: "create pack", path: path, code: errno) }
        do {
            try POSIX.syncDirectory(directory)
        } catch {
            close(fd)
            throw error
        }
        return OpenPack(id: id, fd: fd, size: 0, path: path)
    }
}
