import ArgumentParser
import Logging
import SyncCore
import SyncServerKit

struct FolderCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "folder", abstract: "Manage folders.", subcommands: [Add.self, List.self, Grant.self, Revoke.self, Remove.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create an empty folder.",
            discussion: "Works while the server runs. Fails if the folder already exists.")

        @Argument(help: ArgumentHelp("Folder id: 1-64 characters of A-Z a-z 0-9 . _ -", valueName: "ID"))
        var id: String
        @OptionGroup var options: ConfigOptions

        func run() async throws {
            try await reportingErrors {
                let admin = try await ServerAdmin.open(settings: try options.settings(), logger: Logger(label: "sync-server"))
                try await admin.addFolder(id)
                Output.error("created folder \(id)")
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete a folder from the server: its files, its history and its grants.",
            discussion: """
                Works while the server runs; devices that sync the folder keep their copies and show an \
                error. The folder's chunks are reclaimed by the next storage rounds (after the 24 h grace \
                period). A folder that holds files is removed only with --yes; the message says how many.
                """)

        @Argument(help: ArgumentHelp("Folder id.", valueName: "ID"))
        var id: String
        @Flag(name: .long, help: "Remove it even though it holds files.")
        var yes = false
        @OptionGroup var options: ConfigOptions

        func run() async throws {
            try await reportingErrors {
                let admin = try await ServerAdmin.open(settings: try options.settings(), logger: Logger(label: "sync-server"))
                guard let folder = try await admin.summary().folders.first(where: { $0.id == id }) else {
                    throw CommandFailure("sync-server: no folder '\(id)'")
                }
                if folder.files > 0 && !yes {
                    throw CommandFailure(
                        "sync-server: folder \(id) holds \(folder.files) file(s) (\(ByteCount.text(folder.bytes))) and their history; "
                            + "removing it deletes them from the server for good (devices keep their copies). Run again with --yes")
                }
                let removed = try await admin.removeFolder(id)
                Output.error("removed folder \(id) (\(removed.files) file(s), \(ByteCount.text(removed.bytes)), rev \(removed.rev))")
            }
        }
    }
}
