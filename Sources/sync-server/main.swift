// sync-server: the thin command line over SyncServerKit.
import ArgumentParser
import Foundation
import Logging
import SyncConfig
import SyncCore
import ServiceSupport
import ObjectStorage
import SyncServerKit

struct SyncServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync-server",
        abstract: "Stores synced folders as versioned trees of content-addressed chunks and serves them to devices.",
        discussion: """
            Typical setup:
              sync-server folder add docs --config sync-server.toml
              sync-server device add --name laptop --folder docs --config sync-server.toml > credential
              sync-server serve --config sync-server.toml
            """,
        version: ProductVersion.current,
        subcommands: [Serve.self, StatusCommand.self, FolderCommand.self, DeviceCommand.self, HistoryCommand.self, StorageCommand.self, MigrateCommand.self],
        defaultSubcommand: Serve.self)
}

/// `--config FILE`, shared by every subcommand.
struct ConfigOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The server's TOML configuration file. Default: /etc/sync-server/sync-server.toml "
                + "($CONFIGURATION_DIRECTORY/sync-server.toml under systemd).",
            valueName: "FILE"))
    var config: String?

    /// The file given, else the standard place.
    var path: String { config ?? StandardPaths.serverConfig(environment: ProcessInfo.processInfo.environment) }

    func settings() throws -> ServerSettings {
        try Self.settings(from: ServerConfig.load(path: path))
    }

    static func settings(from loaded: ServerConfig) throws -> ServerSettings {
        var settings = ServerSettings(
            host: loaded.host, port: loaded.port, dataDir: loaded.dataDir, retention: loaded.retention,
            compactBelow: loaded.compactBelow,
            tls: loaded.tls.map { ServerSettings.TLSFiles(certificate: $0.certificate, key: $0.key) },
            blobs: try blobs(loaded))
        settings.metadata = try metadata(loaded)
        return settings
    }

    /// `[storage] metadata` (and `password_file`) as the server's metadata settings.
    static func metadata(_ loaded: ServerConfig) throws -> ServerSettings.Metadata {
        guard loaded.metadata != "sqlite" else { return .sqlite }
        do {
            return .postgres(try PostgresLocation(url: loaded.metadata, passwordFile: loaded.passwordFile))
        } catch {
            throw CommandFailure("\(loaded.file): \(error)")
        }
    }

    /// `[storage] blobs` and `[storage.s3]` as the server's blob settings.
    static func blobs(_ loaded: ServerConfig) throws -> ServerSettings.Blobs {
        guard let s3 = loaded.s3 else { return .filesystem }
        let parsed: (bucket: String, prefix: String)
        switch S3Location.parse(url: loaded.blobs) {
        case .success(let value): parsed = value
        case .failure(let error): throw CommandFailure("\(loaded.file): storage.blobs: \(error)")
        }
        let endpoint = s3.endpoint.flatMap(URL.init(string:)) ?? S3Location.awsEndpoint(region: s3.region)
        return .s3(
            S3Location(bucket: parsed.bucket, prefix: parsed.prefix, endpoint: endpoint, region: s3.region, pathStyle: s3.pathStyle),
            S3Credentials(accessKeyID: s3.accessKeyID, secretAccessKey: s3.secretAccessKey, sessionToken: s3.sessionToken))
    }
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the server until SIGTERM or SIGINT (the default subcommand).",
        discussion: """
            Prints one line, `listening on HOST:PORT`, to stdout once the socket is bound (with port 0 in \
            the config, the port the kernel chose). Logs go to stderr; [server] log_level or LOG_LEVEL \
            (trace, debug, info, notice, warning, error; LOG_LEVEL wins) set the level, default info. \
            SIGHUP reads the config again: log_level, retention and compact_below apply at once, the \
            listen address, data_dir and TLS files need a restart; a config with an error is reported \
            and the one in force kept. Holds data_dir/lock while it runs: a \
            second server or `storage gc` on the same data_dir is refused. Prunes history, collects \
            unreferenced chunks and compacts packs at start and every min(retention/10, 1h).
            """)

    @OptionGroup var options: ConfigOptions

    func run() async throws {
        try await reportingErrors {
            let config = try ServerConfig.load(path: options.path)
            let settings = try ConfigOptions.settings(from: config)
            let level = ReloadableLogLevel(ServerReloader.level(config: config.logLevel, environment: ProcessInfo.processInfo.environment))
            level.bootstrap(format: LogFormat(rawValue: config.logFormat) ?? .text)
            let logger = Logger(label: "sync-server")
            // Held until the process ends: no second server or `storage gc` on this data_dir.
            let lock = try DataDirectoryLock.acquire(dataDir: settings.dataDir, purpose: "serve")
            defer { withExtendedLifetime(lock) {} }
            let server = try await SyncServer.open(settings: settings, logger: logger)
            let reloader = ServerReloader(config: config, server: server, level: level, logger: logger)
            try await server.run(
                onListening: { address in Output.line("listening on \(address)") },
                onReload: { await reloader.reload() })
        }
    }
}

struct DeviceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "device", abstract: "Manage devices.", subcommands: [Add.self, List.self, Rename.self, Revoke.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the devices.",
            discussion: "Columns: id, name, folders, state (active or revoked), last seen (when it last got an access token, UTC).")

        @OptionGroup var options: ConfigOptions

        func run() async throws {
            try await reportingErrors {
                let admin = try await ServerAdmin.open(settings: try options.settings(), logger: Logger(label: "sync-server"))
                Output.line("ID\tNAME\tFOLDERS\tSTATE\tLAST_SEEN")
                for d in try await admin.devices() {
                    let seen = d.lastSeen.map(StatusCommand.time) ?? "never"
                    Output.line("\(d.id)\t\(d.name)\t\(d.folders.joined(separator: ","))\t\(d.revoked ? "revoked" : "active")\t\(seen)")
                }
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Revoke a device: its credential and current access tokens stop working at once.",
            discussion: """
                Takes effect immediately, also on a server that is running: the device's next request is \
                refused with 401. Its history stays. Give the device's id when several share the name.
                """)

        @Argument(help: ArgumentHelp("The device's name or id.", valueName: "NAME"))
        var device: String
        @OptionGroup var options: ConfigOptions

        func run() async throws {
            try await reportingErrors {
                let admin = try await ServerAdmin.open(settings: try options.settings(), logger: Logger(label: "sync-server"))
                let revoked = try await admin.revokeDevice(device)
                Output.error("revoked device \(revoked.name) (\(revoked.id))")
            }
        }
    }

    struct Rename: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Rename a device.",
            discussion: "Names are unique: a name another device has is refused. Give the device's id when several share the old name.")

        @Argument(help: ArgumentHelp("The device's name or id.", valueName: "NAME"))
        var device: String
        @Argument(help: ArgumentHelp("The new name.", valueName: "NEW-NAME"))
        var newName: String
        @OptionGroup var options: ConfigOptions

        func run() async throws {
            try await reportingErrors {
                let admin = try await ServerAdmin.open(settings: try options.settings(), logger: Logger(label: "sync-server"))
                let renamed = try await admin.renameDevice(device, to: newName)
                Output.error("renamed device \(device) to \(renamed.name) (\(renamed.id))")
            }
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Register a device and print its credential.",
            discussion: """
                Prints the credential (`<device_id>.<secret>`) as one line on stdout. It is shown only once: \
                the server keeps just a hash of the secret. Store it in the device's credential_file (mode 0600).
                """)

        @Option(name: .long, help: "A name for the device, shown in history and conflicts.")
        var name: String
        @Option(name: .customLong("folder"), help: ArgumentHelp("A folder the device may sync; repeat for several.", valueName: "ID"))
        var folders: [String] = []
        @OptionGroup var options: ConfigOptions

        func validate() throws {
            guard !folders.isEmpty else { throw ValidationError("give at least one --folder") }
        }

        func run() async throws {
            try await reportingErrors {
                let admin = try await ServerAdmin.open(settings: try options.settings(), logger: Logger(label: "sync-server"))
                Output.line(try await admin.addDevice(name: name, folders: folders))
            }
        }
    }
}

struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Apply the metadata database's migrations, then exit (every start does it too).",
        discussion: "Prints the store and the migrations it has. Safe while servers run: migrations take an advisory lock (PostgreSQL) or the database's write lock (SQLite), and each is applied once.")

    @OptionGroup var options: ConfigOptions

    func run() async throws {
        try await reportingErrors {
            let settings = try options.settings()
            let admin = try await ServerAdmin.open(settings: settings, logger: Logger(label: "sync-server"))
            let applied = try await admin.appliedMigrations()
            await admin.close()
            Output.line("\(settings.metadata): \(applied.count) migration(s) applied: \(applied.joined(separator: ", "))")
        }
    }
}

struct HistoryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "List the versions of a path, newest first.",
        discussion: "Columns: revision, size in bytes, content hash, whether it is a deletion, committing device id, when it was committed (UTC), the device's name.")

    @Argument(help: ArgumentHelp("Path inside the folder, e.g. notes/todo.txt", valueName: "PATH"))
    var path: String
    @Option(name: .long, help: ArgumentHelp("The folder id.", valueName: "ID"))
    var folder: String
    @OptionGroup var options: ConfigOptions

    func run() async throws {
        try await reportingErrors {
            let admin = try await ServerAdmin.open(settings: try options.settings(), logger: Logger(label: "sync-server"))
            let versions = try await admin.history(folder: folder, path: path)
            guard !versions.isEmpty else { throw CommandFailure("no versions of \(path) in folder \(folder)") }
            let provenance = Dictionary(
                try await admin.provenance(folder: folder, path: path).map { ($0.rev, $0) }, uniquingKeysWith: { first, _ in first })
            Output.line("REV\tSIZE\tCONTENT_HASH\tDELETED\tDEVICE\tCOMMITTED\tDEVICE_NAME")
            for v in versions {
                let about = provenance[v.rev]
                let when = about.map { Date(timeIntervalSince1970: TimeInterval($0.committedAt)).formatted(.iso8601) } ?? "-"
                Output.line(
                    "\(v.rev)\t\(v.size)\t\(v.contentHash)\t\(v.deleted ? "yes" : "no")\t\(v.device ?? "-")\t\(when)\t\(about?.deviceName ?? "-")")
            }
        }
    }
}

struct StorageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "storage", abstract: "Check the chunk store, reclaim space in it, or copy it to another store.",
        subcommands: [Check.self, GC.self, Copy.self])

    struct Copy: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Copy a stopped server's data to a new metadata store and blob store (e.g. PostgreSQL and an S3 bucket).",
            discussion: """
                Reads the server of --from (SQLite metadata and blobs = "filesystem", the embedded defaults; it \
                must be stopped: both data directories are locked) and fills the metadata store and blob store \
                of --to: the metadata is copied whole (SQLite's backup into a new data directory, or every row \
                into a PostgreSQL database with metadata = "postgres://..."), then every pack is read, each chunk \
                in it checked against its hash, written to the new store (an S3 bucket with blobs = "s3://..."), \
                and its size checked there. The old data directory is left as it was. Resumable: run it again \
                after an interruption; the metadata is copied anew and packs already copied are skipped. No \
                server starts on the new store until a run has finished. Then start the server with the --to \
                config. The new data_dir (or database) must not hold a server's data already.
                """)

        @Option(name: .customLong("from"), help: ArgumentHelp("The config of the server to copy.", valueName: "OLD.toml"))
        var from: String
        @Option(name: .customLong("to"), help: ArgumentHelp("The config of the new store.", valueName: "NEW.toml"))
        var to: String

        func run() async throws {
            try await reportingErrors {
                let source = try ConfigOptions.settings(from: ServerConfig.load(path: from))
                let target = try ConfigOptions.settings(from: ServerConfig.load(path: to))
                let report = try await StorageCopy.run(from: source, to: target, logger: bootstrapLogging())
                Output.line(report.summary)
            }
        }
    }

    struct GC: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "gc",
            abstract: "Reclaim space now: prune old versions, drop unreferenced chunks, compact packs.",
            discussion: """
                Does once what a running server does by itself every min(retention/10, 1h): prunes versions \
                older than storage.retention, drops chunks that no file and no kept version references and that \
                were last uploaded (or reported present to a client) more than 24 h ago, rewrites sealed packs \
                whose live fraction is below storage.compact_below, and deletes packs with no live chunk. Prints \
                one summary line (versions pruned, chunks and bytes dropped, packs rewritten and deleted, pack bytes \
                before and after).

                Only while the server is stopped: it takes the data directory's lock, and exits 1 naming the \
                server's pid if a running server holds it (that server collects garbage by itself). A server \
                started meanwhile is refused the same way until gc ends. Killing gc at any point loses nothing: \
                the next start or gc finishes or undoes what it was doing.
                """)

        @OptionGroup var options: ConfigOptions

        func run() async throws {
            try await reportingErrors {
                let settings = try options.settings()
                let report = try await StorageGC.runOffline(settings: settings, logger: bootstrapLogging())
                Output.line(report.summary)
            }
        }
    }

    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Verify that every chunk an entry or a kept version references is stored intact.",
            discussion: """
                Reads every referenced chunk from its pack and checks it against its hash. Prints one line \
                per problem (FOLDER/PATH rev REV: chunk HASH: reason) and exits 1 if there is any; otherwise \
                prints a one-line summary and exits 0. Read-only: safe while the server runs.
                """)

        @OptionGroup var options: ConfigOptions

        func run() async throws {
            try await reportingErrors {
                let report = try await StorageCheck.run(settings: try options.settings())
                for problem in report.problems { Output.line(problem.description) }
                guard report.problems.isEmpty else { throw CommandFailure(report.summary) }
                Output.line(report.summary)
            }
        }
    }
}

/// Logs go to stderr; LOG_LEVEL (trace, debug, info, notice, warning, error) sets the level, default info.
func bootstrapLogging() -> Logger {
    LoggingSystem.bootstrap(StreamLogHandler.standardError)
    var logger = Logger(label: "sync-server")
    logger.logLevel = ProcessInfo.processInfo.environment["LOG_LEVEL"].flatMap { Logger.Level(rawValue: $0) } ?? .info
    return logger
}

/// An error whose text is the whole message.
struct CommandFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Runs `body`; any error becomes one line on stderr and exit status 1.
func reportingErrors(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let exit as ExitCode {
        throw exit
    } catch let error as APIError {
        Output.error("sync-server: \(error.message)")
        throw ExitCode.failure
    } catch {
        Output.error("sync-server: \(error)")
        throw ExitCode.failure
    }
}

/// Unbuffered stdout/stderr lines (Glibc's `stdout` is unusable under strict concurrency).
enum Output {
    static func line(_ text: String) { FileHandle.standardOutput.write(Data((text + "\n").utf8)) }
    static func error(_ text: String) { FileHandle.standardError.write(Data((text + "\n").utf8)) }
}

/// Runs the async entry point (a bare `SyncServerCommand.main()` here would pick
/// ParsableCommand's synchronous overload).
func runAsync<Command: AsyncParsableCommand>(_ command: Command.Type) async {
    await command.main(nil)
}

await runAsync(SyncServerCommand.self)
