import GRDB
import PostgresNIO

/// One metadata table as `PostgresImport` copies it: its columns with their PostgreSQL types,
/// and its primary key (the order rows are read in). Both schemas name the columns alike.
struct ImportedTable: Sendable {
    enum Column: Sendable {
        case text(String), bigint(String), boolean(String)
        /// Columns that may be NULL.
        case optionalText(String), optionalBigint(String)

        var name: String {
            switch self {
            case .text(let name), .bigint(let name), .boolean(let name), .optionalText(let name), .optionalBigint(let name):
                return name
            }
        }
    }

    let name: String
    let columns: [Column]
    let key: [String]

    /// Parents before children (foreign keys).
    static let all: [ImportedTable] = [
        ImportedTable(name: "folders", columns: [.text("id"), .bigint("rev"), .bigint("created_at")], key: ["id"]),
        ImportedTable(
            name: "devices",
            columns: [
                .text("id"), .text("name"), .text("secret_hash"), .bigint("created_at"), .optionalBigint("revoked_at"),
                .optionalBigint("last_seen_at"),
            ],
            key: ["id"]),
        ImportedTable(name: "grants", columns: [.text("device_id"), .text("folder_id")], key: ["device_id", "folder_id"]),
        ImportedTable(
            name: "entries",
            columns: [
                .text("folder_id"), .text("path"), .text("kind"), .bigint("size"), .bigint("mtime_ns"), .bigint("mode"),
                .text("chunks"), .text("content_hash"), .boolean("deleted"), .bigint("rev"), .optionalText("symlink_target"),
                .optionalText("device_id"), .optionalText("moved_from"), .optionalText("moved_to"),
            ],
            key: ["folder_id", "path"]),
        ImportedTable(
            name: "versions",
            columns: [
                .text("folder_id"), .bigint("rev"), .text("path"), .text("kind"), .bigint("size"), .bigint("mtime_ns"),
                .bigint("mode"), .text("chunks"), .text("content_hash"), .boolean("deleted"), .optionalText("symlink_target"),
                .optionalText("device_id"), .bigint("committed_at"), .optionalText("moved_from"), .optionalText("moved_to"),
            ],
            key: ["folder_id", "rev"]),
        ImportedTable(
            name: "commit_replies",
            columns: [
                .text("folder_id"), .text("device_id"), .text("commit_id"), .text("request_hash"), .text("response"),
                .bigint("created_at"),
            ],
            key: ["folder_id", "device_id", "commit_id"]),
        ImportedTable(
            name: "packs", columns: [.bigint("id"), .bigint("durable_length"), .boolean("sealed"), .boolean("retired")], key: ["id"]),
        ImportedTable(
            name: "chunk_index",
            columns: [
                .text("hash"), .bigint("pack_id"), .bigint("offset"), .bigint("length"), .bigint("touched_at"),
                .optionalBigint("checksum"),
            ],
            key: ["hash"]),
    ]

    /// Up to `limit` rows after the key `after` (from the start when nil), as one insert; the
    /// key of the last row read.
    func batch(_ db: Database, after: [DatabaseValue]?, limit: Int) throws -> (ImportedBatch, [DatabaseValue]?) {
        let keyList = key.map(quoted).joined(separator: ", ")
        var sql = "SELECT \(columns.map { quoted($0.name) }.joined(separator: ", ")), \(keyList) FROM \(quoted(name))"
        var arguments = StatementArguments()
        if let after {
            sql += " WHERE (\(keyList)) > (\(Array(repeating: "?", count: key.count).joined(separator: ", ")))"
            arguments = StatementArguments(after)
        }
        sql += " ORDER BY \(keyList) LIMIT \(limit)"
        var batch = ImportedBatch(table: self)
        var last: [DatabaseValue]? = nil
        let rows = try Row.fetchCursor(db, sql: sql, arguments: arguments)
        while let row = try rows.next() {
            try batch.append(row)
            last = (columns.count..<(columns.count + key.count)).map { row[$0] as DatabaseValue }
        }
        return (batch, last)
    }

    private func quoted(_ identifier: String) -> String { "\"\(identifier)\"" }
}

/// Rows of one table, written with one `INSERT … SELECT FROM unnest`: every column an array
/// parameter, unnested side by side (a NULL is a placeholder value with a flag in a second array).
struct ImportedBatch {
    let table: ImportedTable
    private var rows: [[DatabaseValue]] = []
    var count: Int { rows.count }

    init(table: ImportedTable) { self.table = table }

    mutating func append(_ row: Row) throws {
        rows.append(table.columns.indices.map { row[$0] as DatabaseValue })
    }

    var insert: PostgresQuery {
        get throws {
            var binds = PostgresBindings()
            var arrays: [String] = []
            var aliases: [String] = []
            var selected: [String] = []
            func bind<T: PostgresArrayEncodable & PostgresNonThrowingEncodable>(_ array: [T], _ type: String) -> String {
                binds.append(array, context: .default)
                arrays.append("$\(binds.count)::\(type)[]")
                aliases.append("c\(binds.count)")
                return "c\(binds.count)"
            }
            for (index, column) in table.columns.enumerated() {
                let values = rows.map { $0[index] }
                switch column {
                case .text: selected.append(bind(try decode(String.self, values, column), "text"))
                case .bigint: selected.append(bind(try decode(Int64.self, values, column), "bigint"))
                case .boolean: selected.append(bind(try decode(Bool.self, values, column), "boolean"))
                case .optionalText:
                    let value = bind(try decode(String.self, values, column, null: ""), "text")
                    selected.append("CASE WHEN \(bind(values.map(\.isNull), "boolean")) THEN NULL ELSE \(value) END")
                case .optionalBigint:
                    let value = bind(try decode(Int64.self, values, column, null: 0), "bigint")
                    selected.append("CASE WHEN \(bind(values.map(\.isNull), "boolean")) THEN NULL ELSE \(value) END")
                }
            }
            let sql = """
                INSERT INTO \(table.name) (\(table.columns.map { "\"\($0.name)\"" }.joined(separator: ", ")))
                SELECT \(selected.joined(separator: ", "))
                FROM unnest(\(arrays.joined(separator: ", "))) AS u(\(aliases.joined(separator: ", ")))
                """
            return PostgresQuery(unsafeSQL: sql, binds: binds)
        }
    }

    /// Values of the type the column has in PostgreSQL (`null` standing for NULL where the
    /// column allows it); anything else is a damaged database, said with where it is, never
    /// written as something else.
    private func decode<T: DatabaseValueConvertible>(
        _ type: T.Type, _ values: [DatabaseValue], _ column: ImportedTable.Column, null: T? = nil
    ) throws -> [T] {
        try values.map { value in
            if value.isNull, let null { return null }
            guard let decoded = T.fromDatabaseValue(value) else {
                throw APIError.internalError(
                    "metadata database: \(table.name).\(column.name) holds \(value), not a \(T.self): nothing was copied")
            }
            return decoded
        }
    }
}
