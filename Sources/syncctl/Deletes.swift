import ArgumentParser
import SyncControl

/// `syncctl deletes`: what a held delete wave would delete.
struct Deletes: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Lists the paths of held delete waves (approve them with approve-deletes, undo them with reject-deletes).")
    @OptionGroup var daemon: DaemonOptions
    @ParentCommand var root: Syncctl
    @Argument(help: "Folder id; all folders when omitted.") var folder: String?
    @Flag(name: .long, help: "List every path (without it, the first 100 of each folder).") var all = false
    @Flag(name: .long, help: "Print JSON.") var json = false

    static let shown = 100

    func run() async throws {
        let reply: DeletesReply
        do { reply = try await daemon.client(inheriting: root.daemon).heldDeletes(folder: folder) } catch let failure as ControlClient.Failure {
            Exit.fail(failure)
        }
        if json { return Exit.out(try Exit.json(reply)) }
        for held in reply.folders {
            guard !held.paths.isEmpty else {
                Exit.out("\(held.id): no deletes held")
                continue
            }
            Exit.out("\(held.id): \(held.paths.count) deletes held (syncctl approve-deletes \(held.id) lets them go, syncctl reject-deletes \(held.id) brings the files back)")
            let listed = all ? held.paths : Array(held.paths.prefix(Self.shown))
            for path in listed { Exit.out("  " + path) }
            if listed.count < held.paths.count { Exit.out("  … and \(held.paths.count - listed.count) more (--all lists every one)") }
        }
    }
}

/// `syncctl reject-deletes`: the held wave is dropped and its files come back from the server.
struct RejectDeletes: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reject-deletes",
        abstract: "Drops a held delete wave and brings its files back from the server (nothing is deleted anywhere).")
    @OptionGroup var daemon: DaemonOptions
    @ParentCommand var root: Syncctl
    @Argument(help: "Folder id; all folders when omitted.") var folder: String?

    func run() async throws {
        do {
            let reply = try await daemon.client(inheriting: root.daemon).rejectDeletes(folder: folder)
            Exit.out(
                "rejected \(reply.rejected) deletes in: \(reply.folders.joined(separator: ", ")); bringing back \(reply.restored) paths from the server")
        } catch let failure as ControlClient.Failure { Exit.fail(failure) }
    }
}
