import Foundation
import Testing
import TestSupport

/// `git checkout` rewrites, deletes and creates thousands of files in a burst:
/// the server must end with exactly the checked-out tree, one revision per
/// path that really changed.
@Suite(.serialized, .timeLimit(.minutes(8)))
struct GitCheckoutTests {
    @Test func checkoutBetweenBranchesOfTwoThousandFiles() async throws {
        let rig = try await Rig.start("git", extraFolderConfig: #"ignore = [".git/"]"#)
        defer { rig.stop() }
        let d = rig.daemon
        let git = Git(directory: d.folderPath)
        try await git("init", "-q", "-b", "main")
        for i in 0..<2_000 {
            let dir = "pkg\(i % 40)"
            try FileManager.default.createDirectory(atPath: d.path(dir), withIntermediateDirectories: true)
            try writeFile(d.path("\(dir)/f\(i).txt"), "main \(i)\n")
        }
        try await git("add", "-A")
        try await git("commit", "-q", "-m", "main")
        try await git("checkout", "-q", "-b", "feature")
        for i in stride(from: 0, to: 2_000, by: 7) {  // edits
            try writeFile(d.path("pkg\(i % 40)/f\(i).txt"), "feature \(i)\n")
        }
        for i in stride(from: 3, to: 2_000, by: 11) {  // deletes
            try FileManager.default.removeItem(atPath: d.path("pkg\(i % 40)/f\(i).txt"))
        }
        try FileManager.default.removeItem(atPath: d.path("pkg39"))  // a whole directory
        try FileManager.default.createDirectory(atPath: d.path("added/deeper"), withIntermediateDirectories: true)
        for i in 0..<150 { try writeFile(d.path("added/deeper/n\(i).txt"), "new \(i)\n") }
        try await git("add", "-A")
        try await git("commit", "-q", "-m", "feature")
        let featureTree = try localTree(d.folderPath).filter { !$0.key.hasPrefix(".git") }
        try await rig.waitForServerTree(featureTree, timeout: .seconds(120))
        try await d.waitUntilIdle()

        try await git("checkout", "-q", "main")
        let mainTree = try localTree(d.folderPath).filter { !$0.key.hasPrefix(".git") }
        #expect(mainTree.count > 2_000, "2,000 files and their directories")
        try await rig.waitForServerTree(mainTree, timeout: .seconds(120))
        try await d.waitUntilIdle()
        let revBefore = try await rig.folderRev()

        try await git("checkout", "-q", "feature")
        try await rig.waitForServerTree(featureTree, timeout: .seconds(120))
        try await d.waitUntilIdle()
        let changed = Set(mainTree.keys).union(featureTree.keys).filter { mainTree[$0] != featureTree[$0] }
        #expect(changed.count > 500)
        let revisions = try await rig.server.client(credential: rig.credential).allRevisions(folder: rig.folder)
            .filter { $0.rev > revBefore }
        let extra = Dictionary(grouping: revisions, by: \.path).filter { $0.value.count > 1 }.keys.sorted()
        #expect(revisions.count == changed.count, "one revision per changed path; more than one: \(extra.prefix(10))")
    }
}

/// Runs git in one directory, failing with its output.
struct Git {
    let directory: String

    func callAsFunction(_ arguments: String...) async throws {
        let said = try await Child.capture(
            "/usr/bin/env",
            ["git", "-C", directory, "-c", "user.name=Test", "-c", "user.email=test@example.invalid", "-c", "commit.gpgsign=false"]
                + arguments)
        guard said.status == 0 else {
            throw TestFailure("git \(arguments.joined(separator: " ")) failed: \(said.out)\(said.err)")
        }
    }
}
