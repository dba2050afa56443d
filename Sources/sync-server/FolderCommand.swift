import ArgumentParser
import SyncServerKit

struct FolderCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "folder", abstract: "Manage folders.", subcommands: [Add.self, List.self, Grant.self, Revoke.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create an empty folder.",
            discussion: "Works while the server runs. Fails if the folder already exists.")

        @Argument(help: ArgumentHelp("Folder id: 1-64 characters of A-Z a-z 0-9 . _ -", valueName: "ID"))
        var id: String
        @OptionGroup var options: ConfigOptions

        func run() async throws {
            try await reportingErrors {
                let admin = try ServerAdmin(dataDir: try options.settings().dataDir)
                try await admin.addFolder(id)
                Output.error("created folder \(id)")
            }
        }
    }
}
