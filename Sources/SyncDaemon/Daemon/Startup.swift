import Foundation
import Glibc

/// Checks made before the daemon runs anything.
enum Startup {
    /// Reads the device credential, refusing a file that others may read.
    static func readCredential(_ path: String) throws(DaemonError) -> String {
        var st = stat()
        guard stat(path, &st) == 0 else {
            throw DaemonError(.credentialUnreadable, "cannot read credential file \(path): \(String(cString: strerror(errno)))")
        }
        let mode = st.st_mode & 0o777
        guard mode & 0o077 == 0 else {
            throw DaemonError(
                .credentialUnsafe,
                "credential file \(path) has mode \(String(mode, radix: 8)): it must not be readable by group or others; "
                    + "run `chmod 600 \(path)`")
        }
        let text: String
        do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
            throw DaemonError(.credentialUnreadable, "cannot read credential file \(path)", underlying: error)
        }
        let credential = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !credential.isEmpty else { throw DaemonError(.credentialUnreadable, "credential file \(path) is empty") }
        return credential
    }

    static func makePrivateDirectory(_ path: String) throws(DaemonError) {
        do {
            try FileManager.default.createDirectory(
                atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw DaemonError(.stateDirectory, "cannot create state directory \(path)", underlying: error)
        }
    }

    /// Removes a stale socket file; refuses if another daemon answers on it.
    static func claimSocket(_ path: String) throws(DaemonError) {
        guard FileManager.default.fileExists(atPath: path) else { return }
        if canConnect(path) {
            throw DaemonError(.socketInUse, "another syncd is already running on control socket \(path)")
        }
        unlink(path)
    }

    private static func canConnect(_ path: String) -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0
            }
        }
    }
}
