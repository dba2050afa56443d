/// The samples of a Prometheus text exposition (format 0.0.4), for tests that scrape
/// `/metrics`: `name{label="value",…} number` lines; comments and blank lines skipped.
public struct PrometheusText: Sendable {
    public struct Sample: Sendable, Equatable {
        public var name: String
        public var labels: [String: String]
        public var value: Double
    }

    public let samples: [Sample]

    /// Fails on a line that is not a sample (the test sees the line).
    public init(parsing text: String) throws {
        var samples: [Sample] = []
        for line in text.split(separator: "\n") where !line.hasPrefix("#") && !line.allSatisfy(\.isWhitespace) {
            guard let sample = Self.sample(Substring(line)) else {
                throw TestFailure("not a Prometheus sample line: \(line.debugDescription)")
            }
            samples.append(sample)
        }
        self.samples = samples
    }

    /// The value of the one sample `name` whose labels include `labels`; nil if none.
    /// Several matching samples are summed (e.g. a counter over every status of a route).
    public func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        let matching = samples.filter { sample in
            sample.name == name && labels.allSatisfy { sample.labels[$0.key] == $0.value }
        }
        return matching.isEmpty ? nil : matching.reduce(0) { $0 + $1.value }
    }

    /// The names of all samples (for failure messages).
    public var names: Set<String> { Set(samples.map(\.name)) }

    private static func sample(_ line: Substring) -> Sample? {
        var rest = line[...]
        let name = rest.prefix { $0.isLetter || $0.isNumber || $0 == "_" || $0 == ":" }
        guard !name.isEmpty else { return nil }
        rest = rest.dropFirst(name.count)
        var labels: [String: String] = [:]
        if rest.first == "{" {
            rest = rest.dropFirst()
            while rest.first != "}" {
                let key = rest.prefix { $0 != "=" }
                rest = rest.dropFirst(key.count)
                guard rest.hasPrefix("=\"") else { return nil }
                rest = rest.dropFirst(2)
                var value = ""
                while let c = rest.first, c != "\"" {
                    rest = rest.dropFirst()
                    if c == "\\", let escaped = rest.first {
                        rest = rest.dropFirst()
                        value.append(escaped == "n" ? "\n" : escaped)
                    } else {
                        value.append(c)
                    }
                }
                guard rest.first == "\"" else { return nil }
                rest = rest.dropFirst()
                labels[String(key)] = value
                if rest.first == "," { rest = rest.dropFirst() }
                guard !rest.isEmpty else { return nil }
            }
            rest = rest.dropFirst()
        }
        let fields = rest.split(separator: " ")
        guard let first = fields.first, let value = Double(first) ?? Self.special(first) else { return nil }
        return Sample(name: String(name), labels: labels, value: value)
    }

    private static func special(_ text: Substring) -> Double? {
        switch text {
        case "+Inf": .infinity
        case "-Inf": -.infinity
        case "NaN": .nan
        default: nil
        }
    }
}
