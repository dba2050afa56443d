import Foundation
import Testing
import TestSupport

@testable import SyncServerKit

@Suite("Data directory lock")
struct DataDirectoryLockTests {
    @Test func aSecondHolderIsRefusedWithTheFirstOnesPidUntilItLetsGo() throws {
        let tmp = try TemporaryDirectory("data-lock")
        defer { tmp.remove() }
        var first: DataDirectoryLock? = try DataDirectoryLock.acquire(dataDir: tmp.path, purpose: "serve")
        do {
            _ = try DataDirectoryLock.acquire(dataDir: tmp.path, purpose: "storage gc")
            Issue.record("a second lock was granted")
        } catch let error as APIError {
            #expect(error.message.contains("in use by another sync-server process (pid \(getpid()) (serve))"), "\(error.message)")
        }
        withExtendedLifetime(first) {}
        first = nil
        #expect(try DataDirectoryLock.acquire(dataDir: tmp.path, purpose: "storage gc").path == tmp.path + "/lock")
    }
}
