import Foundation
import Testing
import TestSupport
@testable import ObjectStorage

/// The client against a real S3-speaking server (moto, on 127.0.0.1).
@Suite struct S3ClientTests {
    static func client(_ moto: MotoServer, bucket: String = "packs-\(UInt32.random(in: 0...UInt32.max))", prefix: String = "team/")
        -> S3Client
    {
        S3Client(
            location: S3Location(
                bucket: bucket, prefix: prefix, endpoint: URL(string: moto.endpoint)!, region: "eu-west-1", pathStyle: true),
            credentials: S3Credentials(accessKeyID: MotoServer.accessKeyID, secretAccessKey: MotoServer.secretAccessKey))
    }

    @Test func putGetRangesListDelete() async throws {
        let moto = try await MotoServer.start()
        let s3 = Self.client(moto)
        try await s3.createBucket()
        try await s3.createBucket()  // ours already: fine
        let bytes = pseudoRandomBytes(count: 100_000, seed: 7)
        let key = s3.key("packs/0000000000000001.pack")
        try await s3.put(key: key, bytes: bytes)
        #expect(try await s3.get(key: key) == bytes)
        #expect(try await s3.get(key: key, range: 10..<20) == Array(bytes[10..<20]))
        #expect(try await s3.size(key: key) == 100_000)
        #expect(try await s3.size(key: s3.key("packs/none")) == nil)
        // Three ranges, two of them close together: asked for in any order, answered in it.
        let ranges: [Range<Int64>] = [90_000..<90_100, 5..<50, 60..<70]
        let parts = try await s3.get(key: key, ranges: ranges, mergeGap: 1000)
        #expect(parts == ranges.map { Array(bytes[Int($0.lowerBound)..<Int($0.upperBound)]) })
        await #expect(throws: S3Error.self) { try await s3.get(key: key, range: 99_990..<100_010) }

        try await s3.put(key: s3.key("packs/a b+c.pack"), bytes: [1, 2, 3])
        try await s3.put(key: "elsewhere/x", bytes: [1])
        let listed = try await s3.list(prefix: "packs/")
        #expect(Set(listed.map(\.key)) == [key, s3.key("packs/a b+c.pack")])
        #expect(listed.first { $0.key == key }?.size == 100_000)
        // When each was written, as the store says (moto: the time of the put).
        let written = try #require(listed.first { $0.key == key }?.lastModified)
        #expect(abs(written.timeIntervalSinceNow) < 600, "\(written)")

        try await s3.delete(key: key)
        try await s3.delete(key: key)  // gone already: fine
        let error = await #expect(throws: S3Error.self) { try await s3.get(key: key) }
        #expect(error?.kind == .notFound)
        #expect(error?.status == 404)
        #expect(error?.code == "NoSuchKey")
        #expect(error?.description.contains("GET s3://") == true)
    }

    @Test func listedTimesAreReadWithAndWithoutFractions() {
        #expect(S3Client.timestamp("2009-10-12T17:50:30.000Z") == Date(timeIntervalSince1970: 1_255_369_830))
        #expect(S3Client.timestamp("2009-10-12T17:50:30.250Z") == Date(timeIntervalSince1970: 1_255_369_830.25))
        #expect(S3Client.timestamp("2009-10-12T17:50:30Z") == Date(timeIntervalSince1970: 1_255_369_830))
        #expect(S3Client.timestamp("yesterday") == nil)
    }

    @Test func listingFollowsContinuationTokens() async throws {
        let moto = try await MotoServer.start()
        let s3 = Self.client(moto, prefix: "")
        try await s3.createBucket()
        for n in 0..<25 { try await s3.put(key: "packs/\(String(format: "%03d", n))", bytes: [UInt8(n)]) }
        let listed = try await s3.list(prefix: "packs/", pageSize: 10)
        #expect(listed.map(\.key) == (0..<25).map { "packs/" + String(format: "%03d", $0) })
    }

    @Test func bigObjectsGoUpInParts() async throws {
        let moto = try await MotoServer.start()
        let s3 = Self.client(moto)
        try await s3.createBucket()
        let bytes = pseudoRandomBytes(count: S3Client.multipartAbove + 3 * S3Client.partSize / 2, seed: 9)
        try await s3.upload(key: s3.key("big"), bytes: bytes)
        #expect(try await s3.size(key: s3.key("big")) == Int64(bytes.count))
        let tail = Int64(bytes.count - 10)..<Int64(bytes.count)
        #expect(try await s3.get(key: s3.key("big"), range: tail) == Array(bytes.suffix(10)))
        #expect(try await s3.get(key: s3.key("big")) == bytes)
    }

    @Test func aMissingBucketAndAServerThatIsGoneAreErrors() async throws {
        let moto = try await MotoServer.start()
        var s3 = Self.client(moto)
        let missing = await #expect(throws: S3Error.self) { try await s3.checkBucket() }
        #expect(missing?.kind == .notFound)
        moto.stop()
        s3.attempts = 2
        let gone = await #expect(throws: S3Error.self) { try await s3.put(key: "k", bytes: [1]) }
        #expect(gone?.kind == .transient)
        #expect(gone?.description.contains("no answer from") == true)
    }
}

@Suite struct S3RangeSpanTests {
    @Test func closeRangesShareASpan() {
        let spans = S3Client.spans([100..<200, 0..<10, 20..<30, 5000..<5010], gap: 50)
        #expect(spans == [
            .init(range: 0..<30, members: [1, 2]), .init(range: 100..<200, members: [0]), .init(range: 5000..<5010, members: [3]),
        ])
    }

    @Test func aSpanStaysWithinItsLimit() {
        let spans = S3Client.spans([0..<10, 10..<20, 20..<30], gap: 0, maxSpan: 20)
        #expect(spans.map(\.range) == [0..<20, 20..<30])
    }

    @Test func overlappingRangesAreBothServed() {
        let spans = S3Client.spans([0..<100, 50..<60], gap: 0)
        #expect(spans == [.init(range: 0..<100, members: [0, 1])])
    }
}
