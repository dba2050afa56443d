import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// The few things read from S3's XML answers: the text of named elements, in document order
/// (`<Key>` and `<Size>` of each `<Contents>` of a listing, `<Code>` and `<Message>` of an
/// error, `<UploadId>` of a new multipart upload). Read with Foundation's XML parser.
final class S3XML: NSObject, XMLParserDelegate {
    private let wanted: Set<String>
    private(set) var values: [(name: String, text: String)] = []
    private var current: String?
    private var text = ""

    private init(wanted: Set<String>) { self.wanted = wanted }

    /// The text of each element named in `wanted`, in order; nil if the bytes are not XML.
    static func elements(_ wanted: Set<String>, in bytes: [UInt8]) -> [(name: String, text: String)]? {
        let reader = S3XML(wanted: wanted)
        let parser = XMLParser(data: Data(bytes))
        parser.delegate = reader
        guard parser.parse() else { return nil }
        return reader.values
    }

    static func first(_ name: String, in bytes: [UInt8]) -> String? {
        elements([name], in: bytes)?.first?.text
    }

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        if wanted.contains(elementName) {
            current = elementName
            text = ""
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if current != nil { text += string }
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
        if elementName == current {
            values.append((elementName, text))
            current = nil
        }
    }

    /// `text` with the five XML entities escaped.
    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "'", with: "&apos;")
    }
}
