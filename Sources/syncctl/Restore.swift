import ArgumentParser
import SyncControl

struct Restore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Brings back a deleted or overwritten version of a file from the server's history.",
        discussion: """
            Without --rev: a deleted path gets its last content back; an existing one gets the \
            version before its current content. The restored version becomes the newest revision \
            on every device; the one it replaces stays in the history (`sync-server history`).
            """)
    @OptionGroup var daemon: DaemonOptions
    @ParentCommand var root: Syncctl
    @Argument(help: "The path: absolute inside a synced folder, or relative to the folder's root.") var path: String
    @Option(name: .long, help: "The revision to bring back (see `sync-server history`).") var rev: Int64?
    @Option(name: .long, help: "Folder id, for a relative path when several folders are synced.") var folder: String?

    func run() async throws {
        do {
            let reply = try await daemon.client(inheriting: root.daemon).restore(path: path, rev: rev, folder: folder)
            if reply.unchanged == true {
                Exit.out(
                    "\(reply.folder):\(reply.path) already holds the content of rev \(reply.restoredRev) (current rev \(reply.newRev)); nothing changed")
            } else {
                Exit.out("restored \(reply.folder):\(reply.path) from rev \(reply.restoredRev) as rev \(reply.newRev)")
            }
        } catch let failure as ControlClient.Failure { Exit.fail(failure) }
    }
}
