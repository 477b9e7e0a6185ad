/// One HTTP request, as the protocols make them: no I/O here.
public struct HTTPRequest: Sendable, Equatable {
    public var method: String
    public var url: String
    /// In order; names as the protocol writes them.
    public var headers: [HTTPHeader]
    public var body: [UInt8]

    public init(method: String, url: String, headers: [HTTPHeader] = [], body: [UInt8] = []) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }

    /// The path of the URL ("/version/v1/tan"), for messages and padding.
    public var path: String {
        let parts = url.split(separator: "/", maxSplits: 3, omittingEmptySubsequences: false)
        // "https:", "", "host:port", "rest…"
        guard parts.count == 4, parts[0].hasSuffix(":"), parts[1].isEmpty else { return "/" }
        return "/" + String(parts[3].prefix { $0 != "?" && $0 != "#" })
    }
}

public struct HTTPHeader: Sendable, Equatable {
    public var name: String
    public var value: String

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// One HTTP answer, whatever its status.
public struct HTTPResponse: Sendable, Equatable {
    public var status: Int
    public var headers: [HTTPHeader]
    public var body: [UInt8]

    public init(status: Int, headers: [HTTPHeader] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The last header of that name (names compare without case), nil when absent.
    public func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.last { $0.name.lowercased() == wanted }?.value
    }

    /// Headers from the block of a raw HTTP answer (its status line first).
    public static func headers(fromBlock block: String) -> [HTTPHeader] {
        block.split(whereSeparator: { $0 == "\r\n" || $0 == "\n" }).dropFirst().compactMap { line in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            let name = line[..<colon].trimmingCharacters(in: " \t")
            let value = line[line.index(after: colon)...].trimmingCharacters(in: " \t")
            return name.isEmpty ? nil : HTTPHeader(String(name), String(value))
        }
    }
}

extension StringProtocol {
    /// Without leading and trailing characters of `set` (no Foundation here).
    func trimmingCharacters(in set: String) -> Substring {
        let s = Substring(self)
        guard let first = s.firstIndex(where: { !set.contains($0) }),
              let last = s.lastIndex(where: { !set.contains($0) }) else { return "" }
        return s[first ... last]
    }
}
