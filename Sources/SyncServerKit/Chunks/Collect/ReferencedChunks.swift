/// The chunks that live entries and kept versions reference, held as the first 64 bits of
/// each hash (8 bytes a chunk instead of a 64-character string: a million chunks fit in
/// ~30 MiB). A chunk whose prefix is in the set counts as referenced: a collision can only
/// keep garbage a little longer, never collect a referenced chunk.
struct ReferencedChunks: Sendable {
    private var prefixes = Set<UInt64>()

    var count: Int { prefixes.count }

    /// Adds every hash of a stored chunk list (`hash,hash,…`).
    mutating func insert(list: String) {
        for hash in list.split(separator: ",") {
            if let prefix = Self.prefix(hash) { prefixes.insert(prefix) }
        }
    }

    func mayContain(_ hash: String) -> Bool {
        guard let prefix = Self.prefix(hash[...]) else { return true }
        return prefixes.contains(prefix)
    }

    static func prefix(_ hash: Substring) -> UInt64? {
        UInt64(hash.prefix(16), radix: 16)
    }
}
