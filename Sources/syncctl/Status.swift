import ArgumentParser
import Foundation
import SyncControl

struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Shows each folder's state, pending work, transfers, conflicts and errors.",
        discussion: """
            Exit status: 0 every folder is fine; 1 an error is shown (a folder in error or \
            offline) or a conflict is unresolved; 2 syncd is not reachable; 3 a folder waits for \
            you (paused, deletes held).
            """)

    @OptionGroup var daemon: DaemonOptions
    @ParentCommand var root: Syncctl

    @Flag(name: .long, help: "Print one JSON object (the stable, scriptable form).")
    var json = false

    func run() async throws {
        let report: StatusReport
        do { report = try await daemon.client(inheriting: root.daemon).status() } catch let failure as ControlClient.Failure { Exit.fail(failure) }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            Exit.out(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else {
            Exit.out(StatusText.render(report))
        }
        if report.exitStatus != 0 { throw ExitCode(report.exitStatus) }
    }
}

struct Pause: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Stops sending changes (all folders, or one). Changes keep being journaled.")
    @OptionGroup var daemon: DaemonOptions
    @ParentCommand var root: Syncctl
    @Argument(help: "Folder id; all folders when omitted.") var folder: String?

    func run() async throws {
        do {
            let reply = try await daemon.client(inheriting: root.daemon).pause(folder: folder)
            Exit.out("paused: " + reply.folders.joined(separator: ", "))
        } catch let failure as ControlClient.Failure { Exit.fail(failure) }
    }
}

struct Resume: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Resumes syncing (all folders, or one).")
    @OptionGroup var daemon: DaemonOptions
    @ParentCommand var root: Syncctl
    @Argument(help: "Folder id; all folders when omitted.") var folder: String?

    func run() async throws {
        do {
            let reply = try await daemon.client(inheriting: root.daemon).resume(folder: folder)
            Exit.out("resumed: " + reply.folders.joined(separator: ", "))
        } catch let failure as ControlClient.Failure { Exit.fail(failure) }
    }
}

struct ApproveDeletes: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "approve-deletes",
        abstract: "Lets a held delete wave (more than max_delete_fraction of a folder) go ahead.")
    @OptionGroup var daemon: DaemonOptions
    @ParentCommand var root: Syncctl
    @Argument(help: "Folder id; all folders when omitted.") var folder: String?

    func run() async throws {
        do {
            let reply = try await daemon.client(inheriting: root.daemon).approveDeletes(folder: folder)
            Exit.out("approved \(reply.released) deletes in: " + reply.folders.joined(separator: ", "))
        } catch let failure as ControlClient.Failure { Exit.fail(failure) }
    }
}

struct Rescan: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Scans folders now for changes the watcher cannot see (a write through another hard link); returns when done.")
    @OptionGroup var daemon: DaemonOptions
    @ParentCommand var root: Syncctl
    @Argument(help: "Folder id; all folders when omitted.") var folder: String?

    func run() async throws {
        do {
            let reply = try await daemon.client(inheriting: root.daemon).rescan(folder: folder)
            Exit.out("rescanned: " + reply.folders.joined(separator: ", "))
        } catch let failure as ControlClient.Failure { Exit.fail(failure) }
    }
}

struct Conflicts: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Lists the conflict copies syncd made (they hold this device's version).")
    @OptionGroup var daemon: DaemonOptions
    @ParentCommand var root: Syncctl
    @Flag(name: .long, help: "Print JSON.") var json = false

    func run() async throws {
        let list: [ConflictInfo]
        do { list = try await daemon.client(inheriting: root.daemon).conflicts() } catch let failure as ControlClient.Failure { Exit.fail(failure) }
        if json {
            Exit.out(String(decoding: try JSONEncoder().encode(list), as: UTF8.self))
        } else if list.isEmpty {
            Exit.out("no conflicts")
        } else {
            for c in list { Exit.out("\(c.folder)  \(c.path)  (remote rev \(c.remoteRev), \(c.detectedAt))") }
        }
    }
}
