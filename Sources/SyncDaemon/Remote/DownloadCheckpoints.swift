import Logging
import SyncCore

/// How far each big download under way got, recorded in the index as it goes (every `step`
/// bytes written): a kill -9 or a power cut, which saves nothing at the stop, then costs the
/// next start no more than a step of it. At the next start such a row is kept again like one
/// saved at a stop (`PartialDownloads.restore`), but its stat says nothing (the kill may have
/// come before the page cache reached the disk): its try reads the chunks back and keeps those
/// that hash right (`PartialDownload.checkedPrefix`).
///
/// A checkpoint only saves work: one that cannot be written is logged, and the download goes
/// on without it.
struct DownloadCheckpoints: Sendable {
    let store: PartialDownloadStore
    let folder: String
    let logger: Logger
    /// Bytes written between two checkpoints: 32 index transactions per GiB downloaded.
    var step: Int64 = 32 << 20

    /// The download of `entry` into the staging file `fd`, with `lengths` written, becomes its
    /// path's row (a checkpoint; a cut try kept; a kept one resumed).
    func record(_ entry: WireEntry, staging: Located, fd: Int32, lengths: [Int]) {
        guard let checkpoint = PartialDownload.checkpoint(entry, staging: staging, fd: fd, lengths: lengths) else { return }
        do {
            try store.record(folder: folder, checkpoint)
        } catch {
            logger.warning(
                "cannot record how far a download got; a kill now would start it over",
                metadata: ["folder": "\(folder)", "path": "\(entry.path)", "error": "\(error)"])
        }
    }

    /// The download of `path` landed, or its staging file was removed: its row goes.
    func clear(path: String) {
        do {
            try store.remove(folder: folder, path: path)
        } catch {
            // Harmless: at the next start the row finds no staging file and is dropped.
            logger.warning(
                "cannot remove a download's checkpoint", metadata: ["folder": "\(folder)", "path": "\(path)", "error": "\(error)"])
        }
    }
}
