/// A chunk was appended to a pack that compaction retired before the chunk could be indexed
/// (the pack had just been sealed): the upload is answered 503 and the client sends it again.
struct PackRetired: Error, CustomStringConvertible {
    var pack: PackID
    var description: String { "pack \(PackName.file(pack)) was compacted while this upload was written to it" }

    var apiError: APIError {
        APIError(
            .init(rawValue: "try_again"), status: .serviceUnavailable,
            "the chunk store was compacting the pack this upload went to; send it again", cause: self)
    }
}
