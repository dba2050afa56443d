import ArgumentParser
import SyncConfig
import SyncControl

struct Wait: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Waits until every local change made before it is committed and every remote change the server had then is applied.",
        discussion: """
            Returns at once when a folder cannot get there by itself (paused, deletes held, an \\
            error that needs a person). Exit status: 0 in sync; 1 an error, or a conflict copy \\
            made meanwhile; 2 syncd is not reachable; 3 out of time, offline, paused or deletes \\
            held. Under changes that never stop, it waits for a quiet moment (or the timeout).
            """)
    @OptionGroup var daemon: DaemonOptions
    @ParentCommand var root: Syncctl
    @Argument(help: "Folder id; all folders when omitted.") var folder: String?
    @Option(name: .long, help: "Give up after this long (e.g. 30s, 5m); no limit when omitted.") var timeout: String?
    @Flag(name: .long, help: "Print JSON.") var json = false

    func run() async throws {
        var limit: Duration?
        if let timeout {
            guard let parsed = ConfigDurations.parse(timeout) else {
                throw ValidationError("--timeout \(timeout): a duration like 30s, 500ms or 5m")
            }
            limit = parsed
        }
        let reply: WaitReply
        do { reply = try await daemon.client(inheriting: root.daemon).wait(folder: folder, timeout: limit) } catch let failure as ControlClient.Failure {
            Exit.fail(failure)
        }
        if json {
            Exit.out(try Exit.json(reply))
        } else {
            for result in reply.folders { Exit.out("\(result.id): \(result.outcome.rawValue): \(result.message)") }
        }
        if reply.exitStatus != 0 { throw ExitCode(reply.exitStatus) }
    }
}
