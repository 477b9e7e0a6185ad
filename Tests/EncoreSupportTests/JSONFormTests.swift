import EncoreSupport
import Testing

/// The core's one JSON mechanism: exact integers both ways, one writer
/// (compact and pretty), days as "YYYY-MM-DD", and the forms of results
/// that other commands read back.
@Suite struct JSONFormTests {
    @Test func integersAreExactBothWays() throws {
        let text = #"{"a": 9007199254740993, "b": 18446744073709551615, "c": -9223372036854775808, "d": 1.5, "e": 2.0}"#
        let v = try JSONParser.parse(text)
        #expect(v["a"] == .integer(9_007_199_254_740_993))
        #expect(v["b"] == .unsignedInteger(.max))
        #expect(v["c"] == .integer(.min))
        #expect(v["d"] == .number(1.5))
        #expect(v.rendered == #"{"a":9007199254740993,"b":18446744073709551615,"c":-9223372036854775808,"d":1.5,"e":2}"#)
        #expect(try JSONReader(v).integer("a") == 9_007_199_254_740_993)
        #expect(throws: EncoreError.self) { try JSONReader(v).integer("b") }   // beyond Int
        #expect(throws: EncoreError.self) { try JSONReader(v).integer("d") }
        // Numbers of different kinds compare by value.
        #expect(JSONValue.integer(2) == .number(2) && JSONValue.integer(1) == .unsignedInteger(1) && JSONValue.integer(-1) != .unsignedInteger(1))
    }

    @Test func prettyPutsContainersOfContainersOnTheirOwnLines() {
        let v: JSONValue = .object([("name", .string("a\n\"b\"\u{2028}")), ("list", .array([.int(1), .int(2)])),
                                    ("nested", .array([.object([("x", .null)])]))])
        #expect(v.rendered(pretty: true) == """
            {
              "name": "a\\n\\"b\\"\\u2028",
              "list": [1, 2],
              "nested": [
                {"x": null}
              ]
            }
            """)
    }

    @Test func daysAreWrittenAndReadAsText() {
        #expect(UTCTime.day(seconds: 1_700_000_000) == "2023-11-14")
        #expect(UTCTime.midnight(ofDay: "2023-11-14") == 1_699_920_000)
        #expect(UTCTime.midnight(ofDay: "2024-02-29") == 1_709_164_800)
        for bad in ["2023-02-29", "2023-13-01", "2023-1-01", "1969-12-31", "2023-11-14T00:00:00Z", "", "２０２３-11-14"] {
            #expect(UTCTime.midnight(ofDay: bad) == nil, "\(bad)")
        }
        for day: Int64 in [0, 1, 59, 365, 10_000, 2_932_896] {
            #expect(UTCTime.day(seconds: day * 86_400).flatMap(UTCTime.midnight(ofDay:)) == day * 86_400)
        }
    }
}
