import ArgumentParser
import Foundation
import SyncControl

/// `syncctl log`: the daemon's recent events; `-f` keeps printing new ones.
struct Log: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Prints the daemon's recent log events (at its log_level); -f follows new ones until Ctrl-C.")
    @OptionGroup var daemon: DaemonOptions
    @ParentCommand var root: Syncctl
    @Option(name: .short, help: "How many of the newest events to print first.") var n = 20
    @Flag(name: .short, help: "Keep printing events as they happen.") var f = false
    @Flag(name: .long, help: "One JSON object per event (NDJSON).") var json = false

    func run() async throws {
        guard n >= 0 else { Exit.fail("syncctl: -n must be 0 or more", code: 1) }
        let client: ControlClient
        do { client = try daemon.client(inheriting: root.daemon) } catch let failure as ControlClient.Failure { Exit.fail(failure) }
        var last: Int64
        do {
            let first = try await client.log(after: nil, limit: max(n, 1))
            try show(n == 0 ? [] : first.entries)
            last = first.last
        } catch let failure as ControlClient.Failure { Exit.fail(failure) }
        guard f else { return }
        while true {
            try await Task.sleep(for: .milliseconds(250))
            do {
                let reply = try await client.log(after: last, limit: 1000)
                if reply.dropped > 0 && !json { Exit.out("… \(reply.dropped) event(s) no longer held by the daemon") }
                try show(reply.entries)
                last = reply.entries.last?.seq ?? last
            } catch let failure as ControlClient.Failure { Exit.fail(failure) }
        }
    }

    private func show(_ entries: [LogEntry]) throws {
        for entry in entries { Exit.out(json ? try Exit.json(entry) : entry.line) }
    }
}
