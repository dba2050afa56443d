import Foundation
import TestSupport

/// Finds the built executables: $SYNCD_BIN_DIR, else next to the test
/// bundle (SwiftPM puts products and test bundles in one directory).
enum Binaries {
    static func path(_ name: String) throws -> String {
        var candidates: [String] = []
        if let dir = ProcessInfo.processInfo.environment["SYNCD_BIN_DIR"] { candidates.append(dir) }
        let argv0 = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        candidates.append(argv0.path)
        candidates.append(argv0.deletingLastPathComponent().path)
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        candidates.append(root.appendingPathComponent(".build/debug").path)
        for dir in candidates where FileManager.default.isExecutableFile(atPath: dir + "/" + name) {
            return dir + "/" + name
        }
        throw TestFailure("executable \(name) not found in \(candidates); run `swift build` first")
    }
}
