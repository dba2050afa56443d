import SyncControl
import Testing

@testable import SyncDaemon

/// `syncctl explain`'s verdict and sentence, from a path's facts alone.
struct PathExplainerTests {
    let stat = FileStat(kind: .file, inode: 7, size: 3, mtimeNs: 100, ctimeNs: 100, mode: 0o644)
    var local: LocalRecord {
        LocalRecord(
            path: "a.txt", kind: .file, inode: 7, size: 3, mtimeNs: 100, ctimeNs: 100, mode: 0o644, contentHash: "h1", chunks: [],
            symlinkTarget: nil)
    }
    func base(_ hash: String = "h1", rev: Int64 = 12, deleted: Bool = false) -> BaseRecord {
        BaseRecord(path: "a.txt", kind: .file, rev: rev, contentHash: hash, deleted: deleted)
    }
    func facts(_ change: (inout PathExplainer.Facts) -> Void = { _ in }) -> PathExplainer.Facts {
        var f = PathExplainer.Facts(path: "a.txt", folder: "docs", folderState: .idle)
        f.disk = .found(stat)
        f.local = local
        f.base = base()
        change(&f)
        return f
    }
    func verdict(_ f: PathExplainer.Facts) -> PathVerdict { PathExplainer.explain(f).0 }
    func sentence(_ f: PathExplainer.Facts) -> String { PathExplainer.explain(f).1 }

    @Test func inSyncWhenDiskIndexAndBaseAgree() {
        #expect(PathExplainer.explain(facts()) == (.inSync, "In sync at revision 12."))
        #expect(verdict(facts { $0.base = base("h2") }) == .pendingUpload)
        #expect(verdict(facts { $0.disk = .found(FileStat(kind: .file, inode: 7, size: 4, mtimeNs: 200, ctimeNs: 200, mode: 0o644)) })
            == .pendingUpload)
        #expect(verdict(facts { $0.disk = .missing; $0.base = base(deleted: true) }) == .inSync)
        #expect(verdict(facts { $0.disk = .missing }) == .pendingUpload)
    }

    @Test func ignoredNamesTheRuleAndWhereItIs() {
        let s = sentence(facts { $0.ignored = .init(rule: "*.log", source: .file(line: 3), matched: "a.txt") })
        #expect(s == "Not synced: ignored by the rule `*.log` from .syncignore line 3.")
        let inside = sentence(facts { $0.ignored = .init(rule: "build/", source: .config, matched: "build") })
        #expect(inside.contains("inside build") && inside.contains("syncd's config"))
        #expect(verdict(facts { $0.ignored = .init(rule: ".syncd", source: .daemon, matched: ".syncd") }) == .ignored)
    }

    @Test func failingSaysTheMessageAndTheRetry() {
        let retried = PathErrorStatus(path: "a.txt", message: "disk full", retryAt: "2026-11-24T10:00:00Z", code: "disk_full")
        #expect(sentence(facts { $0.error = retried }) == "Not synced: disk full [disk_full]; retried at 2026-11-24T10:00:00Z.")
        let stuck = PathErrorStatus(path: "a.txt", message: "a parent is a symlink", retryAt: nil)
        #expect(sentence(facts { $0.error = stuck }).contains("it needs you (then `syncctl retry`)"))
        let refused = PathErrorStatus(path: "a.txt", message: "refused a remote entry", retryAt: nil, code: "invalid_path")
        #expect(sentence(facts { $0.error = refused }).hasSuffix("it needs you."), "retry does not apply a refused remote change")
        #expect(verdict(facts { $0.remoteRetryRev = 30 }) == .failing)
    }

    @Test func pendingHeldTransferringAndConflictCopies() {
        #expect(verdict(facts { $0.journal = ("held", 0, "t") }) == .held)
        #expect(sentence(facts { $0.journal = ("pending", 2, "T") }) == "A local change waiting to be sent (2 attempts so far, next at T).")
        #expect(verdict(facts { $0.transfer = Transfer(path: "a.txt", direction: "download", bytesDone: 1, bytesTotal: 3) }) == .downloading)
        #expect(verdict(facts { $0.conflict = (40, "T") }) == .conflictCopy)
    }

    @Test func notSeenUnknownAndThePausedFolder() {
        #expect(verdict(facts { $0.local = nil; $0.base = nil }) == .notSeen)
        #expect(verdict(facts { $0.disk = .missing; $0.local = nil; $0.base = nil }) == .unknown)
        #expect(verdict(facts { $0.disk = .unsupported }) == .notSeen)
        let paused = sentence(facts { $0.folderState = .paused; $0.journal = ("pending", 0, "T") })
        #expect(paused.hasSuffix("nothing moves until `syncctl resume docs`."))
        #expect(!sentence(facts { $0.folderState = .paused }).contains("paused"), "in sync needs no word on the pause")
    }
}
