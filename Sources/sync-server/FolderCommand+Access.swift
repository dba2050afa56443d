import ArgumentParser
import Logging
import SyncServerKit

extension FolderCommand {
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the folders.", discussion: "Columns: folder id, the devices that may sync it (names).")

        @OptionGroup var options: ConfigOptions

        func run() async throws {
            try await reportingErrors {
                let admin = try await ServerAdmin.open(settings: try options.settings(), logger: Logger(label: "sync-server"))
                let devices = try await admin.devices().filter { !$0.revoked }
                Output.line("FOLDER\tDEVICES")
                for folder in try await admin.folders() {
                    let names = devices.filter { $0.folders.contains(folder) }.map(\.name)
                    Output.line("\(folder)\t\(names.joined(separator: ","))")
                }
            }
        }
    }

    struct Grant: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Let a device sync a folder.", discussion: "Applies to the device's next request, also on a running server.")

        @Argument(help: ArgumentHelp("The folder id.", valueName: "ID"))
        var folder: String
        @Option(name: .long, help: ArgumentHelp("The device's name or id.", valueName: "NAME"))
        var device: String
        @OptionGroup var options: ConfigOptions

        func run() async throws {
            try await reportingErrors {
                let admin = try await ServerAdmin.open(settings: try options.settings(), logger: Logger(label: "sync-server"))
                let granted = try await admin.grant(deviceNamed: device, folder: folder)
                Output.error("device \(granted.name) may sync folder \(folder)")
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Stop a device syncing a folder.",
            discussion: "Its next request for the folder is refused with 403, also on a running server. The folder's files stay.")

        @Argument(help: ArgumentHelp("The folder id.", valueName: "ID"))
        var folder: String
        @Option(name: .long, help: ArgumentHelp("The device's name or id.", valueName: "NAME"))
        var device: String
        @OptionGroup var options: ConfigOptions

        func run() async throws {
            try await reportingErrors {
                let admin = try await ServerAdmin.open(settings: try options.settings(), logger: Logger(label: "sync-server"))
                let device = try await admin.revokeAccess(deviceNamed: device, folder: folder)
                Output.error("device \(device.name) may no longer sync folder \(folder)")
            }
        }
    }
}
