import Foundation
import GRDB
import SyncCore

/// Reading the index's rows. A value no release writes — an unknown kind, a NULL or a
/// value of another type where the schema keeps one, JSON that does not decode — is a
/// corrupt index, thrown as `DaemonError.corruptIndex` naming the table, the column and
/// the value; never read as a default (and never a crash: GRDB's subscripts trap).
extension Row {
    /// The value of `column`, checked (no SQLite conversion turns text into 0).
    func indexValue<Value: DatabaseValueConvertible>(_ column: String, table: String, path: String? = nil) throws -> Value {
        do { return try decode(Value.self, forColumn: column) } catch {
            let value = hasColumn(column) ? (self[column] as DatabaseValue).description : "no such column"
            throw DaemonError.corruptIndex(table: table, column: column, value: value, path: path, underlying: error)
        }
    }

    /// The value at `index` of a row read with a known column list (`LocalFileStore.columns`),
    /// checked as by name: GRDB finds a column by name by lowercasing every column name before
    /// it, at each look (a quarter of a record's decoding, 2 % of a pushing device's CPU).
    func indexValue<Value: DatabaseValueConvertible>(checkedAt index: Int, _ column: String, table: String, path: String? = nil)
        throws -> Value
    {
        // (GRDB traps on an index past the row's end.)
        guard index < count else {
            throw DaemonError.corruptIndex(table: table, column: column, value: "no such column", path: path)
        }
        do { return try decode(Value.self, atIndex: index) } catch {
            throw DaemonError.corruptIndex(
                table: table, column: column, value: (self[index] as DatabaseValue).description, path: path, underlying: error)
        }
    }

    /// The value at `index`, for the scan's narrow read of every row (100,000 of them on a
    /// warm rescan): GRDB's fast path. A NULL is still an error, but SQLite converts a
    /// value of another type (text read as a number is 0: the stat then differs, and the
    /// scan reads the file again, which rewrites the record). `column` names it in an error.
    func indexValue<Value: DatabaseValueConvertible & StatementColumnConvertible>(
        at index: Int, _ column: String, table: String, path: String? = nil
    ) throws -> Value {
        do { return try decode(Value.self, atIndex: index) } catch {
            throw DaemonError.corruptIndex(
                table: table, column: column, value: (self[index] as DatabaseValue).description, path: path, underlying: error)
        }
    }
}

/// Values the index stores in its own encoding.
enum IndexValue {
    static func kind(_ value: String, table: String, column: String = "kind", path: String?) throws -> EntryKind {
        guard let kind = EntryKind(rawValue: value) else {
            throw DaemonError.corruptIndex(table: table, column: column, value: String(reflecting: value), path: path)
        }
        return kind
    }

    /// Permission bits, kept as an INTEGER: a value beyond 32 bits is not one we wrote.
    static func mode(_ value: Int64, table: String, column: String = "mode", path: String?) throws -> UInt32 {
        guard let mode = UInt32(exactly: value) else {
            throw DaemonError.corruptIndex(table: table, column: column, value: String(value), path: path)
        }
        return mode
    }

    /// A column holding JSON.
    static func json<Value: Decodable>(
        _ type: Value.Type, from text: String, table: String, column: String, path: String? = nil
    ) throws -> Value {
        do { return try JSONDecoder().decode(type, from: Data(text.utf8)) } catch {
            let shown = text.count > 80 ? String(text.prefix(80)) + "…" : text
            throw DaemonError.corruptIndex(
                table: table, column: column, value: String(reflecting: shown), path: path, underlying: error)
        }
    }

    static func jsonText(_ value: some Encodable) throws -> String {
        String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
    }
}
