import Testing
@testable import SyncConfig

/// `blobs = "s3://…"` with `[storage.s3]`, and the AWS environment variables filling in
/// what the file leaves out (the file wins).
@Suite struct ServerConfigS3Tests {
    static let store = "[storage]\nblobs = \"s3://sync-data/team\"\n"

    @Test func fileGivesEverything() throws {
        let config = try parseServer(Self.store + """
            [storage.s3]
            endpoint = "http://127.0.0.1:9000"
            region = "eu-west-1"
            access_key_id = "AK"
            secret_access_key = "SK"
            """, env: testEnv.merging(["AWS_ACCESS_KEY_ID": "env-ak", "AWS_REGION": "us-west-2"]) { $1 })
        #expect(config.blobs == "s3://sync-data/team")
        #expect(config.s3 == ServerConfig.S3(
            endpoint: "http://127.0.0.1:9000", region: "eu-west-1", accessKeyID: "AK", secretAccessKey: "SK", pathStyle: true))
    }

    @Test func environmentFillsTheRest() throws {
        let env = testEnv.merging([
            "AWS_ENDPOINT_URL": "http://[::1]:9000", "AWS_DEFAULT_REGION": "ap-south-1", "AWS_ACCESS_KEY_ID": "ak",
            "AWS_SECRET_ACCESS_KEY": "sk", "AWS_SESSION_TOKEN": "tok",
        ]) { $1 }
        let config = try parseServer(Self.store, env: env)
        #expect(config.s3 == ServerConfig.S3(
            endpoint: "http://[::1]:9000", region: "ap-south-1", accessKeyID: "ak", secretAccessKey: "sk", sessionToken: "tok",
            pathStyle: true))
    }

    @Test func awsItselfUsesVirtualHostsAndTheDefaultRegion() throws {
        let env = testEnv.merging(["AWS_ACCESS_KEY_ID": "ak", "AWS_SECRET_ACCESS_KEY": "sk"]) { $1 }
        let config = try parseServer(Self.store, env: env)
        #expect(config.s3?.endpoint == nil)
        #expect(config.s3?.pathStyle == false)
        #expect(config.s3?.region == "us-east-1")
        #expect(try parseServer(Self.store + "[storage.s3]\npath_style = true", env: env).s3?.pathStyle == true)
    }

    @Test func secretFromAFile() throws {
        try withTempDir { dir in
            try "  s3cret\n".write(toFile: dir + "/secret", atomically: true, encoding: .utf8)
            let config = try parseServer(Self.store + "[storage.s3]\naccess_key_id = \"ak\"\nsecret_access_key_file = \"\(dir)/secret\"")
            #expect(config.s3?.secretAccessKey == "s3cret")
            expectConfigError(file: serverFile, key: "storage.s3.secret_access_key_file", reason: "cannot read \(dir)/none") {
                _ = try parseServer(Self.store + "[storage.s3]\naccess_key_id = \"ak\"\nsecret_access_key_file = \"\(dir)/none\"")
            }
            expectConfigError(file: serverFile, key: "storage.s3.secret_access_key_file", reason: "not both") {
                _ = try parseServer(Self.store + """
                    [storage.s3]
                    access_key_id = "ak"
                    secret_access_key = "x"
                    secret_access_key_file = "\(dir)/secret"
                    """)
            }
        }
    }

    @Test func changingTheStoreNeedsARestart() throws {
        let env = testEnv.merging(["AWS_ACCESS_KEY_ID": "ak", "AWS_SECRET_ACCESS_KEY": "sk"]) { $1 }
        let old = try parseServer(Self.store, env: env)
        let new = try parseServer(Self.store + "[storage.s3]\nregion = \"eu-west-1\"", env: env)
        #expect(ServerConfigChange(from: old, to: new).needsRestart == ["storage.s3"])
    }
}
