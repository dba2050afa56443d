import Foundation

/// Steps a test makes fail, armed in the environment (`SYNCD_FAULT=<name>`), as their system
/// call would (an `fsync` returning EIO, say). Never set outside tests.
enum InjectedFault: String, Sendable {
    /// The barrier after a run of remote deletes' moves to the trash.
    case deleteBarrier = "delete-barrier"

    private static let armed = ProcessInfo.processInfo.environment["SYNCD_FAULT"]

    static func fails(_ fault: InjectedFault) -> Bool { armed == fault.rawValue }
}
