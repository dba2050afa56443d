import Foundation
import Testing
@testable import ObjectStorage

@Suite struct S3LocationTests {
    @Test func parsesBucketAndPrefix() throws {
        let parsed = try S3Location.parse(url: "s3://sync-data/team/a/").get()
        #expect(parsed.bucket == "sync-data")
        #expect(parsed.prefix == "team/a/")
        #expect(try S3Location.parse(url: "s3://sync-data").get().prefix == "")
        #expect(try S3Location.parse(url: "s3://sync-data//x//").get().prefix == "x/")
    }

    @Test func refusesWhatIsNotALocation() {
        for bad in ["sync-data/x", "s3://", "s3://UPPER/x", "s3://a/x", "s3://-bucket", "s3://bucket/../x", "s3://b_c/x"] {
            #expect(throws: S3LocationError.self, "\(bad)") { try S3Location.parse(url: bad).get() }
        }
    }

    @Test func pathStyleAddressesTheBucketInThePath() {
        let location = S3Location(
            bucket: "b1", prefix: "p", endpoint: URL(string: "http://127.0.0.1:9000")!, region: "us-east-1", pathStyle: true)
        #expect(location.host == "127.0.0.1:9000")
        #expect(location.path(key: "p/packs/1.pack") == "/b1/p/packs/1.pack")
        #expect(location.path(key: nil) == "/b1")
        #expect(location.url(path: location.path(key: nil), query: [("prefix", "p/"), ("list-type", "2")])
            == "http://127.0.0.1:9000/b1?list-type=2&prefix=p%2F")
    }

    @Test func virtualHostedStylePutsTheBucketInTheHost() {
        let location = S3Location(
            bucket: "b1", prefix: "", endpoint: S3Location.awsEndpoint(region: "eu-west-1"), region: "eu-west-1", pathStyle: false)
        #expect(location.host == "b1.s3.eu-west-1.amazonaws.com")
        #expect(location.url(path: location.path(key: "packs/1 a.pack"), query: []) == "https://b1.s3.eu-west-1.amazonaws.com/packs/1%20a.pack")
    }
}
