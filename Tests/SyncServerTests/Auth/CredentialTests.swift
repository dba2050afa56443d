import Testing

@testable import SyncServerKit

@Suite("Credentials")
struct CredentialTests {
    @Test func generatedCredentialRoundTrips() throws {
        let credential = Credential.generate()
        #expect(credential.deviceID.count == 16)
        #expect(credential.secret.count == 64)
        let parsed = try #require(Credential(parsing: credential.string + "\n"))
        #expect(parsed == credential)
        #expect(credential.secretHash != credential.secret)
    }

    @Test(arguments: [
        "", "abc", "0123456789abcdef", "0123456789ABCDEF." + String(repeating: "a", count: 64),
        "0123456789abcdef." + String(repeating: "a", count: 63),
        "0123456789abcdef.." + String(repeating: "a", count: 64),
        "0123456789abcdef." + String(repeating: "g", count: 64),
    ])
    func malformedCredentialsAreRejected(raw: String) {
        #expect(Credential(parsing: raw) == nil)
    }

    @Test func constantTimeComparison() {
        #expect(ConstantTime.equals("abc", "abc"))
        #expect(!ConstantTime.equals("abc", "abd"))
        #expect(!ConstantTime.equals("abc", "abcd"))
    }
}
