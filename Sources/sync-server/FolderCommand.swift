import ArgumentParser
import SyncServerKit

struct FolderCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "folder", abstract: "Manage folders.", subcommands: [Add.self, Grant.self])

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

    struct Grant: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Give a device access to a folder.",
            discussion: """
                Works while the server runs: the device's next request is allowed (a daemon refused \
                before retries within minutes). Granting twice is harmless. Give the device's id when \
                several share the name.
                """)

        @Argument(help: ArgumentHelp("The folder's id.", valueName: "FOLDER"))
        var folder: String
        @Option(name: .long, help: ArgumentHelp("The device's name or id.", valueName: "NAME"))
        var device: String
        @OptionGroup var options: ConfigOptions

        func run() async throws {
            try await reportingErrors {
                let admin = try ServerAdmin(dataDir: try options.settings().dataDir)
                let granted = try await admin.grant(folder: folder, toDevice: device)
                Output.error("granted folder \(folder) to device \(granted.name) (\(granted.id))")
            }
        }
    }
}
