import EncoreCheck
import EncoreHTTP
import EncoreKeyFiles
import EncoreStorage
import EncoreSupport

/// CWA's distribution server (static files behind a CDN) as requests and
/// answers, no I/O: the day and hour indexes and packages of a country, the
/// app configuration. Every package answer must carry an ETag.
public enum DistributionProtocol {
    /// A country code as the paths take it ("EUR", "DE"): 2 or 3 capital letters.
    public static func checkCountry(_ c: String) throws {
        guard (2 ... 3).contains(c.utf8.count), c.utf8.allSatisfy({ (65 ... 90).contains($0) }) else {
            throw EncoreError(.invalidArgument, "a country is 2 or 3 capital letters (\"\(c.prefix(8))\" is not)")
        }
    }

    static func keys(_ base: String, _ country: String) -> String {
        URLPolicy.joined(base, "/version/v1/diagnosis-keys/country/\(country)/date")
    }

    public static func dayIndex(base: String, country: String) -> HTTPRequest {
        HTTPRequest(method: "GET", url: keys(base, country))
    }

    public static func day(base: String, country: String, day: String) -> HTTPRequest {
        HTTPRequest(method: "GET", url: keys(base, country) + "/" + day)
    }

    public static func hourIndex(base: String, country: String, day: String) -> HTTPRequest {
        HTTPRequest(method: "GET", url: keys(base, country) + "/\(day)/hour")
    }

    public static func hour(base: String, country: String, day: String, hour: Int) -> HTTPRequest {
        HTTPRequest(method: "GET", url: keys(base, country) + "/\(day)/hour/\(hour)")
    }

    /// The configuration, unless it still has `etag` (then 304).
    public static func appConfig(base: String, etag: String?) -> HTTPRequest {
        HTTPRequest(method: "GET", url: URLPolicy.joined(base, "/version/v2/app_config_android"),
                    headers: etag.map { [HTTPHeader("If-None-Match", $0)] } ?? [])
    }

    /// CWA's trace warning packages (check-in warnings) of a region, by
    /// hour since the epoch (checkins.md: the index is {"oldest": h, "latest": h}).
    static func warnings(_ base: String, _ region: String) -> String {
        URLPolicy.joined(base, "/version/v2/twp/country/\(region)/hour")
    }

    public static func traceWarningIndex(base: String, region: String) -> HTTPRequest {
        HTTPRequest(method: "GET", url: warnings(base, region))
    }

    public static func traceWarningPackage(base: String, region: String, interval: Int64) -> HTTPRequest {
        HTTPRequest(method: "GET", url: warnings(base, region) + "/\(interval)")
    }

    /// The hours the warning index announces; nil when none are (404).
    public static func traceWarningHours(from r: HTTPResponse) throws -> ClosedRange<Int64>? {
        if r.status == 404 { return nil }
        try expect(r, "the trace warning index")
        guard r.body.count <= 1 << 16, let v = try? JSONParser.parse(r.body), case .object = v else {
            throw EncoreError(.protocolError, "the trace warning index is not a JSON object")
        }
        func hour(_ name: String) throws -> Int64 {
            // Hours since 1970 up to the year 9999.
            guard let n = try? JSONReader(v).member(name).integer(in: 0 ... Int(UTCTime.maxSeconds / 3600)) else {
                throw EncoreError(.protocolError, "the trace warning index's \(name) is not an hour since the epoch")
            }
            return Int64(n)
        }
        let oldest = try hour("oldest"), latest = try hour("latest")
        guard oldest <= latest else { throw EncoreError(.protocolError, "the trace warning index's oldest hour is after its latest") }
        return oldest ... latest
    }

    /// The days of the day index ("YYYY-MM-DD", each a real day), ascending.
    public static func days(from r: HTTPResponse) throws -> [String] {
        try expect(r, "the day index")
        let items = try array(r, "the day index")
        let days = try items.map { item -> String in
            guard case .string(let d) = item, UTCTime.midnight(ofDay: d) != nil else {
                throw EncoreError(.protocolError, "the day index lists something that is not a day YYYY-MM-DD")
            }
            return d
        }
        return Array(Set(days)).sorted()
    }

    /// The hours of an hour index (0...23), ascending. 404 (no hours
    /// published for the day yet) is an empty index.
    public static func hours(from r: HTTPResponse) throws -> [Int] {
        if r.status == 404 { return [] }
        try expect(r, "the hour index")
        let hours = try array(r, "the hour index").map { item -> Int in
            guard let h = item.doubleValue, h == h.rounded(), (0 ... 23).contains(h) else {
                throw EncoreError(.protocolError, "the hour index lists something that is not an hour 0...23")
            }
            return Int(h)
        }
        return Array(Set(hours)).sorted()
    }

    /// A package's bytes and ETag (required: the cache keys on it).
    public static func package(from r: HTTPResponse, _ what: String) throws -> (bytes: [UInt8], etag: String) {
        try expect(r, what)
        guard let etag = r.header("ETag"), !etag.isEmpty, etag.utf8.count <= 256 else {
            throw EncoreError(.protocolError, "\(what): the answer has no ETag")
        }
        return (r.body, etag)
    }

    /// The server's clock from its Date header (RFC 7231: "Sun, 06 Nov 1994
    /// 08:49:37 GMT"), nil when absent or unreadable.
    public static func serverDate(_ r: HTTPResponse) -> Int64? {
        guard let text = r.header("Date") else { return nil }
        let f = text.split(separator: " ")
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        guard f.count == 6, f[5] == "GMT", let day = Int(f[1]), let month = months.firstIndex(of: String(f[2])), let year = Int(f[3]) else {
            return nil
        }
        let time = f[4].split(separator: ":")
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        guard time.count == 3, (1000 ... 9999).contains(year),
              let midnight = UTCTime.midnight(ofDay: "\(year)-\(two(month + 1))-\(two(day))"),
              let h = Int(time[0]), let m = Int(time[1]), let s = Int(time[2]), h < 24, m < 60, s < 61 else { return nil }
        return midnight + Int64(h * 3600 + m * 60 + s)
    }

    static func expect(_ r: HTTPResponse, _ what: String) throws {
        guard r.status == 200 else { throw ServerAnswer.error(r, what) }
    }

    static func array(_ r: HTTPResponse, _ what: String) throws -> [JSONValue] {
        guard r.body.count <= 1 << 20, case .array(let items)? = try? JSONParser.parse(r.body) else {
            throw EncoreError(.protocolError, "\(what) is not a JSON array")
        }
        return items
    }
}
