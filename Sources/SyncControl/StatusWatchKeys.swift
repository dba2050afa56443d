/// The keys of `syncctl status --watch` on a terminal: what a byte typed asks for. Pure; the
/// caller reads the terminal and acts.
public enum StatusWatchKeys {
    public enum Action: Sendable, Equatable {
        /// `syncctl retry` for the folders shown: what waits for a retry is tried now.
        case retry
        /// The view ends (as Ctrl-C does).
        case quit
    }

    /// The action of one byte typed; nil for any other key (ignored).
    public static func action(for byte: UInt8) -> Action? {
        switch byte {
        case UInt8(ascii: "r"), UInt8(ascii: "R"): .retry
        case UInt8(ascii: "q"), UInt8(ascii: "Q"): .quit
        default: nil
        }
    }

    /// The header's hint, with keys or without them (a view whose input is not a terminal).
    static func hint(keys: Bool) -> String {
        keys ? "r retries now  q ends" : "Ctrl-C ends"
    }
}
