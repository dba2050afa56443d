import ArgumentParser
import Foundation
import Logging
import SyncConfig
import SyncCore
import SyncServerKit

/// `sync-server status`: whether the server answers on its address, and what it holds.
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show whether the server is listening and what it holds: folders, devices, storage.",
        discussion: "Reads the data directory (safe while the server runs). Exit status 0, or 3 when nothing listens on the configured address.")

    @OptionGroup var options: ConfigOptions
    @Flag(name: .long, help: "Print JSON.") var json = false

    struct Report: Encodable {
        var listen: String
        var listening: Bool
        var dataDir: String
        var blobs: String
        var summary: ServerAdmin.Summary
        var devices: [Device]
    }

    struct Device: Encodable {
        var name: String
        var id: String
        var revoked: Bool
        var folders: [String]
        /// ISO 8601, UTC; nil if it never got a token.
        var lastSeen: String?
    }

    func run() async throws {
        try await reportingErrors {
            let config = try ServerConfig.load(path: options.path)
            let settings = try ConfigOptions.settings(from: config)
            let admin = try await ServerAdmin.open(settings: settings, logger: Logger(label: "sync-server"))
            let summary = try await admin.summary()
            let devices = try await admin.devices().map {
                Device(name: $0.name, id: $0.id, revoked: $0.revoked, folders: $0.folders, lastSeen: $0.lastSeen.map(Self.time))
            }
            let listen = config.host.contains(":") ? "[\(config.host)]:\(config.port)" : "\(config.host):\(config.port)"
            let report = Report(
                listen: listen, listening: TCPProbe.answers(host: config.host, port: config.port), dataDir: settings.dataDir,
                blobs: "\(settings.blobs)", summary: summary, devices: devices)
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
                encoder.keyEncodingStrategy = .convertToSnakeCase
                Output.line(String(decoding: try encoder.encode(report), as: UTF8.self))
            } else {
                for line in Self.lines(report) { Output.line(line) }
            }
            if !report.listening { throw ExitCode(3) }
        }
    }

    static func time(_ date: Date) -> String {
        date.formatted(.iso8601)
    }

    static func lines(_ report: Report) -> [String] {
        let s = report.summary
        var lines = [
            "server:   " + (report.listening ? "listening on \(report.listen)" : "nothing listens on \(report.listen)"),
            "data:     \(report.dataDir); packs in \(report.blobs)",
            "storage:  \(s.chunks) chunk(s) in \(s.packs) pack(s), \(ByteCount.text(s.packBytes))",
            "devices:  \(s.devices - s.revokedDevices) active" + (s.revokedDevices > 0 ? ", \(s.revokedDevices) revoked" : ""),
        ]
        for device in report.devices where !device.revoked {
            lines.append("  \(device.name): last seen \(device.lastSeen ?? "never"); \(device.folders.joined(separator: ", "))")
        }
        lines.append("folders:  \(s.folders.count)")
        for folder in s.folders {
            let devices = folder.devices.isEmpty ? "no device" : folder.devices.joined(separator: ", ")
            lines.append("  \(folder.id): rev \(folder.rev), \(folder.files) file(s), \(ByteCount.text(folder.bytes)); \(devices)")
        }
        return lines
    }
}

/// Whether something accepts TCP connections on the address (the server's listen address;
/// `0.0.0.0` and `::` are asked on loopback).
enum TCPProbe {
    static func answers(host: String, port: Int) -> Bool {
        let target = host == "0.0.0.0" ? "127.0.0.1" : host == "::" ? "::1" : host
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(target, String(port), &hints, &found) == 0, let first = found else { return false }
        defer { freeaddrinfo(first) }
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let info = entry {
            let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
            if fd >= 0 {
                defer { close(fd) }
                if connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 { return true }
            }
            entry = info.pointee.ai_next
        }
        return false
    }
}
