#if canImport(Glibc)
import Glibc
#endif

enum DataDirectory {
    /// Creates the data directory (mode 0700) and its parents if missing.
    static func create(_ path: String) throws {
        guard path.hasPrefix("/") else {
            throw APIError.invalidArgument("data_dir must be an absolute path, got \(path.debugDescription)")
        }
        do {
            try POSIX.makeDirectories(path)
        } catch {
            throw APIError.internalError("cannot create data directory: \(error)", cause: error)
        }
    }
}
