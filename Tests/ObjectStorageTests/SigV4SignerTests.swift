import Foundation
import Testing
@testable import ObjectStorage

/// The signatures AWS publishes for its examples: the S3 API reference's "Signature
/// Calculations for the Authorization Header: Transferring Payload in a Single Chunk"
/// (four requests to examplebucket on 24 May 2013) and the `get-vanilla` case of the
/// Signature Version 4 test suite.
@Suite struct SigV4SignerTests {
    static let s3Example = SigV4Signer(
        credentials: S3Credentials(accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
        region: "us-east-1")
    /// 2013-05-24T00:00:00Z
    static let may24 = Date(timeIntervalSince1970: 1_369_353_600)
    static let host = ("host", "examplebucket.s3.amazonaws.com")

    static func authorization(_ headers: [(name: String, value: String)]) -> String? {
        headers.first { $0.name == "authorization" }?.value
    }

    static func signature(_ headers: [(name: String, value: String)]) -> String? {
        authorization(headers)?.components(separatedBy: "Signature=").last
    }

    @Test func getObjectWithRange() {
        let signed = Self.s3Example.sign(
            method: "GET", path: "/test.txt", query: [],
            headers: [Self.host, ("Range", "bytes=0-9"), ("x-amz-content-sha256", SigV4Signer.emptyPayloadHash)],
            payloadHash: SigV4Signer.emptyPayloadHash, date: Self.may24)
        #expect(
            Self.authorization(signed)
                == "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
        #expect(signed.contains { $0.name == "x-amz-date" && $0.value == "20130524T000000Z" })
    }

    @Test func putObjectWithAnEncodedKey() {
        let payload = Array("Welcome to Amazon S3.".utf8)
        let hash = SigV4Signer.payloadHash(payload)
        #expect(hash == "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072")
        let signed = Self.s3Example.sign(
            method: "PUT", path: "/test$file.text", query: [],
            headers: [
                Self.host, ("Date", "Fri, 24 May 2013 00:00:00 GMT"), ("x-amz-storage-class", "REDUCED_REDUNDANCY"),
                ("x-amz-content-sha256", hash),
            ],
            payloadHash: hash, date: Self.may24)
        #expect(Self.signature(signed) == "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd")
    }

    @Test func getBucketLifecycle() {
        let signed = Self.s3Example.sign(
            method: "GET", path: "/", query: [("lifecycle", "")],
            headers: [Self.host, ("x-amz-content-sha256", SigV4Signer.emptyPayloadHash)],
            payloadHash: SigV4Signer.emptyPayloadHash, date: Self.may24)
        #expect(Self.signature(signed) == "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543")
    }

    @Test func listObjects() {
        let signed = Self.s3Example.sign(
            method: "GET", path: "/", query: [("prefix", "J"), ("max-keys", "2")],
            headers: [Self.host, ("x-amz-content-sha256", SigV4Signer.emptyPayloadHash)],
            payloadHash: SigV4Signer.emptyPayloadHash, date: Self.may24)
        #expect(Self.signature(signed) == "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7")
    }

    /// aws-sig-v4-test-suite `get-vanilla`: another service, another secret, no payload header.
    @Test func testSuiteGetVanilla() {
        let signer = SigV4Signer(
            credentials: S3Credentials(accessKeyID: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"),
            region: "us-east-1", service: "service")
        let signed = signer.sign(
            method: "GET", path: "/", query: [], headers: [("Host", "example.amazonaws.com")],
            payloadHash: SigV4Signer.emptyPayloadHash, date: Date(timeIntervalSince1970: 1_440_938_160))
        #expect(
            Self.authorization(signed)
                == "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request,SignedHeaders=host;x-amz-date,Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31")
    }

    @Test func sessionTokenIsSentAndSigned() {
        var signer = Self.s3Example
        signer.credentials.sessionToken = "token/with+chars"
        let signed = signer.sign(
            method: "GET", path: "/a", query: [], headers: [Self.host], payloadHash: SigV4Signer.emptyPayloadHash, date: Self.may24)
        #expect(signed.contains { $0.name == "x-amz-security-token" && $0.value == "token/with+chars" })
        #expect(Self.authorization(signed)?.contains("SignedHeaders=host;x-amz-date;x-amz-security-token,") == true)
    }

    @Test func encodingRules() {
        #expect(SigV4Signer.percentEncode("a b/c~d_e.f-g+h=i&é") == "a%20b%2Fc~d_e.f-g%2Bh%3Di%26%C3%A9")
        #expect(SigV4Signer.canonicalURI("/my bucket/packs/0001.pack") == "/my%20bucket/packs/0001.pack")
        #expect(SigV4Signer.canonicalQuery([("prefix", "a/b"), ("list-type", "2"), ("continuation-token", "x=y")])
            == "continuation-token=x%3Dy&list-type=2&prefix=a%2Fb")
        #expect(SigV4Signer.canonicalHeaders([("X-Amz-Meta", "  a   b "), ("Host", "h")]).text == "host:h\nx-amz-meta:a b\n")
    }
}
