import Foundation
import SyncCore

/// A server and two syncd processes syncing the same folder.
struct TwoDevices {
    let tmp: TempDir
    let server: ServerProcess
    let a: DaemonProcess
    let b: DaemonProcess
    /// Alpha's device credential, for talking to the server directly.
    let credentialA: String

    static func start(_ label: String, extraFolderConfig: String = "") async throws -> TwoDevices {
        let tmp = try TempDir(label)
        let server = try ServerProcess(dir: try tmp.sub("server"))
        let credA = try server.provision(folder: "docs", device: "alpha")
        let credB = try server.admin(["device", "add", "--name", "beta", "--folder", "docs"])
        try await server.start()
        let a = try DaemonProcess(
            dir: try tmp.sub("alpha"), folderID: "docs", serverURL: server.url, credential: credA,
            extraFolderConfig: extraFolderConfig)
        let b = try DaemonProcess(
            dir: try tmp.sub("beta"), folderID: "docs", serverURL: server.url, credential: credB,
            extraFolderConfig: extraFolderConfig)
        try await a.start()
        try await b.start()
        return TwoDevices(tmp: tmp, server: server, a: a, b: b, credentialA: credA)
    }

    func stop() {
        a.stop()
        b.stop()
        server.stop()
        tmp.remove()
    }

    /// Waits until both folders hold exactly `expected` (path → content hash, directories as the empty hash).
    func waitForBoth(_ expected: [String: String], timeout: Duration = .seconds(30)) async throws {
        for d in [a, b] {
            var last: [String: String] = [:]
            do {
                try await eventually("\(d.dir) converges", timeout: timeout) {
                    last = try localTree(d.folderPath)
                    return last == expected
                }
            } catch {
                throw TestFailure("\(error)\nexpected \(expected.keys.sorted())\nfound    \(last.keys.sorted())\n--- log tail:\n\(d.log.suffix(2500))")
            }
        }
    }
}

/// path → content hash of everything under `root` (symlinks by target, directories as the empty hash).
func localTree(_ root: String) throws -> [String: String] {
    var out: [String: String] = [:]
    let fm = FileManager.default
    guard let walker = fm.enumerator(atPath: root) else { throw TestFailure("cannot walk \(root)") }
    while let path = walker.nextObject() as? String {
        if (path as NSString).lastPathComponent.hasPrefix(".syncd-tmp-") { continue }
        let full = root + "/" + path
        let attributes = try fm.attributesOfItem(atPath: full)
        switch attributes[.type] as? FileAttributeType {
        case .typeDirectory?: out[path] = Hashing.contentHash(chunks: [])
        case .typeSymbolicLink?: out[path] = Hashing.sha256Hex(Array(try fm.destinationOfSymbolicLink(atPath: full).utf8))
        default: out[path] = FileChunker().chunk(bytes: Array(try Data(contentsOf: URL(fileURLWithPath: full)))).contentHash
        }
    }
    return out
}
