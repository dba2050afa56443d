import Foundation
import SyncControl
import Testing
import TestSupport

/// `syncctl log` and the daemon's log lines, with real processes.
@Suite(.serialized)
struct LogTests {
    @Test func syncctlLogShowsRecentEventsAndFollowsNewOnes() async throws {
        let rig = try await TwoDevices.start("log")
        defer { rig.stop() }
        let a = rig.a
        try writeFile(a.path("one.txt"), "one")
        try await eventually("the push is logged") { try await a.syncctl("log", "-n", "200").out.contains("sent 1 change to the server") }
        let recent = try await a.syncctl("log", "-n", "200")
        #expect(recent.status == 0)
        #expect(recent.out.contains("syncd started"), "\(recent.out.prefix(2000))")
        #expect(!recent.out.contains("from the server"), "alpha's own push coming back is not news")
        // The other device says what it applied.
        try await eventually("beta logs what it applied") {
            try await rig.b.syncctl("log", "-n", "200").out.contains("applied 1 change from the server")
        }
        let json = try await a.syncctl("log", "-n", "3", "--json").out.split(separator: "\n")
        #expect(json.count == 3)
        for line in json { #expect(throws: Never.self) { try JSONDecoder().decode(LogEntry.self, from: Data(line.utf8)) } }

        // -f: new events are printed as they happen.
        let outPath = a.dir + "/follow.out"
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        let seen = { (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "" }
        let follow = try Child.spawn(
            try Binaries.path("syncctl"), ["--socket", a.socketPath, "log", "-f", "-n", "1"], stdout: .file(outPath))
        defer { follow.end(hard: false) }
        // Its first answer (the newest event) is printed: it follows from there.
        try await eventually("syncctl log -f printed the newest event") { !seen().isEmpty }
        let firstLines = seen().split(separator: "\n").count
        try writeFile(a.path("two.txt"), "two, a little longer")
        try await eventually("syncctl log -f shows the new push", timeout: .seconds(20)) { seen().contains("sent 1 change to the server") }
        #expect(firstLines == 1, "-n 1 prints one old event")
    }

    @Test func jsonLinesAndNoTimestampUnderJournald() async throws {
        let tmp = try TemporaryDirectory("log-json")
        defer { tmp.remove() }
        let server = try ServerProcess(dir: try tmp.sub("server"))
        let credential = try await server.provision(folder: "docs", device: "alpha")
        try await server.start()
        defer { server.stop() }
        let json = try DaemonProcess(
            dir: try tmp.sub("json"), folderID: "docs", serverURL: server.url, credential: credential,
            extraDaemonConfig: "log_format = \"json\"")
        try await json.start()
        defer { json.stop() }
        try await eventually("syncd logs its start") { json.log.contains("syncd started") }
        for line in json.log.split(separator: "\n") {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(object?["level"] != nil && object?["message"] != nil, "not a JSON log line: \(line)")
        }
        await json.stop()

        let credentialB = try await server.admin(["device", "add", "--name", "beta", "--folder", "docs"])
        let journald = try DaemonProcess(dir: try tmp.sub("journald"), folderID: "docs", serverURL: server.url, credential: credentialB)
        try await journald.start(environment: ["JOURNAL_STREAM": "8:4242"])
        defer { journald.stop() }
        try await eventually("syncd logs its start") { journald.log.contains("syncd started") }
        let started = try #require(journald.log.split(separator: "\n").first { $0.contains("syncd started") })
        #expect(started.hasPrefix("info syncd: syncd started"), "\(started)")
    }
}
