import Foundation
import Glibc
import SyncCore
import Testing
import TestSupport

@testable import SyncDaemon

/// A file read again because its record no longer matched, whose content the server has
/// already (a commit recorded through the outbox), prepares as unchanged; with other names it
/// says so, so that those are looked at (`Uploader.lookAtOtherNames`). Real files.
struct PreparerHardLinkTests {
    @Test func anUnchangedFileWithOtherNamesReadAgainSaysSo() throws {
        let tmp = try TemporaryDirectory("prepare-links")
        defer { tmp.remove() }
        try Data("content".utf8).write(to: URL(fileURLWithPath: tmp.path + "/a.txt"))
        try Data("content".utf8).write(to: URL(fileURLWithPath: tmp.path + "/alone.txt"))
        #expect(link(tmp.path + "/a.txt", tmp.path + "/b.txt") == 0)
        let preparer = Preparer(folder: FolderRoot(tmp.path))

        func prepare(_ path: String, local: LocalRecord?, base: BaseRecord?) -> Preparation {
            preparer.prepare(path: path, local: local, base: base, liveBelow: { [] })
        }
        // Read once, as new: its record and hash, and the base the server would have.
        guard case .change(let first) = prepare("a.txt", local: nil, base: nil), var record = first.first?.local else {
            Issue.record("a new file must prepare as a change")
            return
        }
        #expect(first.first?.hardLinked == true)
        let base = BaseRecord(path: "a.txt", kind: .file, rev: 3, contentHash: record.contentHash, deleted: false)

        // The record matches: unchanged by its stat, nothing to say.
        guard case .unchanged(_, _, let matched) = prepare("a.txt", local: record, base: base) else {
            Issue.record("a matching record must prepare as unchanged")
            return
        }
        #expect(!matched)
        // The record is stale (the commit went through the outbox): read again, unchanged,
        // and it has another name.
        record.mtimeNs -= 1
        guard case .unchanged(let local, _, let stale) = prepare("a.txt", local: record, base: base) else {
            Issue.record("content the server has must prepare as unchanged")
            return
        }
        #expect(stale)
        #expect(local?.mtimeNs == record.mtimeNs + 1)
        // No record at all (a name seen for the first time): nothing was written here since.
        guard case .unchanged(_, _, let new) = prepare("a.txt", local: nil, base: base) else {
            Issue.record("content the server has must prepare as unchanged")
            return
        }
        #expect(!new)
        // A file with one name: nothing to say either.
        var alone = record
        alone.path = "alone.txt"
        guard case .unchanged(_, _, let single) = prepare("alone.txt", local: alone, base: base) else {
            Issue.record("content the server has must prepare as unchanged")
            return
        }
        #expect(!single)
    }
}
