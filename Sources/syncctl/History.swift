import ArgumentParser
import Foundation
import SyncControl

struct History: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Lists the server's versions of a path, newest first: revision, time, device, size. `syncctl restore PATH --rev N` brings one back.")
    @OptionGroup var daemon: DaemonOptions
    @ParentCommand var root: Syncctl
    @Argument(help: "The path: absolute, or relative to the current directory when that is inside a synced folder, else to the folder's root.")
    var path: String
    @Option(name: .long, help: "Folder id, for a path relative to the folder's root when several folders are synced.") var folder: String?
    @Flag(name: .long, help: "Print JSON.") var json = false

    func run() async throws {
        let reply: HistoryReply
        do {
            reply = try await daemon.client(inheriting: root.daemon).history(
                path: path, folder: folder, workingDirectory: FileManager.default.currentDirectoryPath)
        } catch let failure as ControlClient.Failure {
            Exit.fail(failure)
        }
        if json {
            Exit.out(try Exit.json(reply))
            return
        }
        guard !reply.versions.isEmpty else { Exit.fail("\(reply.folder):\(reply.path): the server has no version of it", code: 1) }
        var rows = [["REV", "COMMITTED", "DEVICE", "SIZE", "WHAT"]]
        for v in reply.versions {
            let what = v.deleted ? "deleted" : v.kind
            rows.append(["\(v.rev)", v.committedAt ?? "-", v.device ?? "-", v.deleted ? "-" : "\(v.size)", what])
        }
        let widths = rows[0].indices.map { i in rows.map { $0[i].count }.max() ?? 0 }
        Exit.out("\(reply.folder):\(reply.path)")
        for row in rows {
            Exit.out(zip(row, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  "))
        }
    }
}
