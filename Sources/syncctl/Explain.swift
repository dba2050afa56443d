import ArgumentParser
import Foundation
import SyncControl

struct Explain: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Says what the daemon knows about one path: in sync, ignored (by which rule), pending, failing, held, a conflict copy, not seen yet.",
        discussion: "Exit status: 0 in sync or ignored; 1 failing or a conflict copy; 3 anything still to do or held.")
    @OptionGroup var daemon: DaemonOptions
    @ParentCommand var root: Syncctl
    @Argument(help: "The path: absolute, or relative to the current directory when that is inside a synced folder, else to the folder's root.")
    var path: String
    @Option(name: .long, help: "Folder id, for a path relative to the folder's root when several folders are synced.") var folder: String?
    @Flag(name: .long, help: "Print JSON (the verdict, the sentence and every fact).") var json = false

    func run() async throws {
        let reply: ExplainReply
        do { reply = try await daemon.client(inheriting: root.daemon).explain(path: path, folder: folder, workingDirectory: FileManager.default.currentDirectoryPath) } catch let failure as ControlClient.Failure {
            Exit.fail(failure)
        }
        if json {
            Exit.out(try Exit.json(reply))
        } else {
            let name = reply.folder.map { "\($0):\(reply.path)" } ?? reply.path
            Exit.out("\(name): \(reply.verdict.rawValue.replacingOccurrences(of: "_", with: " "))")
            Exit.out("  " + reply.sentence)
        }
        let status: Int32 =
            switch reply.verdict {
            case .inSync, .ignored, .outside, .unknown: 0
            case .failing, .conflictCopy: 1
            case .pendingUpload, .downloading, .held, .notSeen: 3
            }
        if status != 0 { throw ExitCode(status) }
    }
}
