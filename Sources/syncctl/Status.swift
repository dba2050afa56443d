import ArgumentParser
import Foundation
import SyncConfig
import SyncControl

struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Shows each folder's state, pending work, transfers, conflicts and errors.",
        discussion: """
            Exit status: 0 every folder is fine; 1 an error is shown (a folder in error or \
            offline) or a conflict is unresolved; 2 syncd is not reachable; 3 a folder waits for \
            you (paused, deletes held). With --watch: a live view that redraws in place on a \
            terminal (plain lines, one per change, to a pipe; with --json one status object per \
            line each time it changes) until Ctrl-C (exit 0) or the daemon goes away (exit 2).
            """)

    @OptionGroup var daemon: DaemonOptions
    @ParentCommand var root: Syncctl

    @Argument(help: "Folder id; all folders when omitted.") var folder: String?

    @Flag(name: .long, help: "Print one JSON object (the stable, scriptable form).")
    var json = false

    @Flag(name: .long, help: "Keep watching: redraw on a terminal, a line per change elsewhere (NDJSON with --json).")
    var watch = false

    @Option(name: .long, help: "With --watch, how often to ask the daemon (e.g. 500ms, 2s).")
    var interval = "500ms"

    func run() async throws {
        let client = try daemon.client(inheriting: root.daemon)
        if watch {
            guard let every = ConfigDurations.parse(interval), every > .zero else {
                throw ValidationError("--interval \(interval): a duration like 500ms or 2s")
            }
            await WatchLoop.run(client: client, folder: folder, json: json, interval: every)
        }
        let report: StatusReport
        do throws(ControlClient.Failure) { report = Self.only(folder, of: try await client.status()) } catch { Exit.fail(error) }
        if json {
            Exit.out(try Exit.json(report))
        } else {
            Exit.out(StatusText.render(report))
        }
        if report.exitStatus != 0 { throw ExitCode(report.exitStatus) }
    }

    /// The report with only `folder` (all when nil); an unknown folder ends syncctl (exit 1).
    static func only(_ folder: String?, of report: StatusReport) -> StatusReport {
        switch select(folder, of: report) {
        case .success(let only): return only
        case .failure(let unknown): Exit.fail("syncctl: \(unknown)", code: 1)
        }
    }

    static func select(_ folder: String?, of report: StatusReport) -> Result<StatusReport, UnknownFolder> {
        guard let folder else { return .success(report) }
        guard report.folders.contains(where: { $0.id == folder }) else {
            return .failure(UnknownFolder(id: folder, known: report.folders.map(\.id)))
        }
        var only = report
        only.folders = report.folders.filter { $0.id == folder }
        return .success(only)
    }

    struct UnknownFolder: Error, CustomStringConvertible {
        var id: String
        var known: [String]
        var description: String { "no folder with id \(id) (folders: \(known.joined(separator: ", ")))" }
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

struct Retry: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Tries again now what waits for a retry: the server asked again, failed pushes and remote changes tried again.",
        discussion: """
            For when the cause is gone and the next retry is far off: the server is back, an admin \
            granted the folder, space was freed, a file the server refused may now go up. What \
            fails again is shown again, its backoff started over.
            """)
    @OptionGroup var daemon: DaemonOptions
    @ParentCommand var root: Syncctl
    @Argument(help: "Folder id; all folders when omitted.") var folder: String?
    @Option(
        name: .long,
        help: "Only this path and what is below it: absolute, or relative to the current directory when that is inside a synced folder and no FOLDER is named, else to the folder's root.")
    var path: String?

    func run() async throws {
        do {
            let client = try daemon.client(inheriting: root.daemon)
            guard let path else {
                Exit.out(try await client.retry(folder: folder).said)
                return
            }
            let reply = try await client.retry(path: path, folder: folder, workingDirectory: FileManager.default.currentDirectoryPath)
            // A syncd from before `--path` retried the whole folder (or every folder): say so
            // rather than name the path.
            guard let relative = reply.path else {
                Exit.fail(
                    "syncctl: this syncd does not know --path (restart it after the upgrade); it retried all of "
                        + reply.folders.joined(separator: ", ") + " (\(reply.pathsSaid))", code: 1)
            }
            let name = (reply.folders.first ?? "") + (relative.isEmpty ? "" : ":" + relative)
            Exit.out(reply.paths == 0 ? "nothing waits for a retry at \(name)" : "retrying now: \(name) (\(reply.pathsSaid))")
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
