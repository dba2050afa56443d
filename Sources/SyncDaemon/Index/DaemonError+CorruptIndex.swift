extension DaemonError {
    /// A row of the index holding a value no release writes: names the table, the column
    /// and the value (and the row's path, when it has one).
    static func corruptIndex(
        table: String, column: String, value: String, path: String? = nil, underlying: (any Error)? = nil
    ) -> DaemonError {
        DaemonError(
            .corruptIndex, "the index is corrupt: table \(table), column \(column) holds \(value)", path: path,
            underlying: underlying)
    }
}
