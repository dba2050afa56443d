/// `[daemon] metrics_listen`: where syncd serves Prometheus metrics.
extension DaemonConfig {
    /// A TCP address for `GET /metrics`: `localhost` or an IP address (v4, or v6 in brackets)
    /// and a port in 1...65535. Host names other than `localhost` are refused, so the metrics
    /// never end up on an interface a name happens to resolve to.
    public struct MetricsListen: Sendable, Equatable, CustomStringConvertible {
        /// `localhost`, an IPv4 address, or an IPv6 address without brackets.
        public var host: String
        public var port: Int

        public init(host: String, port: Int) {
            self.host = host
            self.port = port
        }

        /// `host:port`, with an IPv6 host in brackets.
        public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

        /// Whether only this machine can reach it (127.0.0.0/8, ::1, localhost).
        public var isLoopback: Bool { DaemonConfigParser.isLoopback(host) }

        static func parse(_ text: String, reader: TOMLReader) throws(ConfigError) -> MetricsListen {
            let (host, port) = try ServerConfig.parseListen(text, reader: reader, key: "metrics_listen", examplePort: 9417)
            func fail(_ why: String) -> ConfigError {
                reader.error("metrics_listen", "invalid metrics address \"\(text)\": \(why)")
            }
            guard port != 0 else {
                throw fail("port 0 would pick a different port at every start, which nothing could scrape; give a fixed port such as 9417")
            }
            guard host.lowercased() == "localhost" || isIPv4(host) || host.contains(":") else {
                throw fail(
                    "\"\(host)\" is a host name; give \"127.0.0.1\" (this machine only) or the IP address of the interface to serve on")
            }
            return MetricsListen(host: host.lowercased() == "localhost" ? "127.0.0.1" : host, port: port)
        }

        /// Four decimal octets 0...255.
        static func isIPv4(_ host: String) -> Bool {
            let octets = host.split(separator: ".", omittingEmptySubsequences: false)
            return octets.count == 4
                && octets.allSatisfy { !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isASCIIDigit) && UInt8($0) != nil }
        }
    }
}
