import Foundation

/// A process's log so far, read leniently: a read that meets a character half written (or a
/// name that is not UTF-8) must not come back empty, as a strict decoding did.
func logText(atPath path: String) -> String {
    guard let data = FileManager.default.contents(atPath: path) else { return "" }
    return String(decoding: data, as: UTF8.self)
}
