import ArgumentParser
import Foundation
import SyncConfig
import SyncControl
import SyncCore

@main
struct Syncctl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "syncctl",
        abstract: "Shows and steers what syncd is doing.",
        discussion: """
            Exit status: 0 all fine; 1 an error or an unresolved conflict was shown; 2 syncd is \
            not reachable; 3 waiting (offline, paused, deletes held, out of time).
            """,
        version: ProductVersion.current,
        subcommands: [Status.self, Wait.self, Explain.self, History.self, Log.self, Pause.self, Resume.self, Rescan.self, Retry.self, Conflicts.self, Deletes.self, ApproveDeletes.self, RejectDeletes.self, Restore.self])

    /// `syncctl --config FILE status`: the contract puts these before the verb.
    @OptionGroup var daemon: DaemonOptions
}

/// Where to find the daemon: shared by every verb.
struct DaemonOptions: ParsableArguments {
    @Option(name: .long, help: "syncd config file; its control_socket is used. Default: $XDG_CONFIG_HOME/syncd/syncd.toml if it exists.")
    var config: String?

    @Option(name: .long, help: "Path of syncd's control socket (overrides --config).")
    var socket: String?

    /// These options, else the ones given before the verb.
    func client(inheriting parent: DaemonOptions) throws -> ControlClient {
        var merged = self
        merged.socket = socket ?? parent.socket
        merged.config = config ?? parent.config
        return try merged.client()
    }

    func client() throws -> ControlClient {
        if let socket { return ControlClient(socketPath: socket) }
        let environment = ProcessInfo.processInfo.environment
        let path = config ?? StandardPaths.daemonConfig(environment: environment)
        if config != nil || FileManager.default.fileExists(atPath: path) {
            do {
                return ControlClient(socketPath: try DaemonConfig.load(path: path, checkPaths: false).daemon.controlSocket)
            } catch {
                Exit.fail("syncctl: \(error)", code: 1)
            }
        }
        return ControlClient(socketPath: StandardPaths.daemonSocket(environment: environment))
    }
}

enum Exit {
    static func fail(_ message: String, code: Int32) -> Never {
        FileHandle.standardError.write(Data((message + "\n").utf8))
        Foundation.exit(code)
    }

    static func fail(_ failure: ControlClient.Failure) -> Never {
        switch failure {
        case .unreachable: fail("syncctl: \(failure)", code: 2)
        case .failed: fail("syncctl: \(failure)", code: 1)
        }
    }

    /// One JSON object, keys sorted (the scriptable form of every verb).
    static func json<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    static func out(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }
}
