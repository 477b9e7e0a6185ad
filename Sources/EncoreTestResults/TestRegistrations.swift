import EncoreExposure
import EncoreHTTP
import EncoreKeyFiles
import EncoreStorage
import EncoreSupport

/// The registered lab test (CWA's test result access) and what became of
/// it: the registration token (a secret: it authorises the TAN), the last
/// result, the TAN only until it is used, and the submission. One at a time.
public struct TestRegistration: Equatable, Sendable {
    /// "GUID" or "TELETAN".
    public var keyType: String
    public var rapid: Bool
    public var registrationToken: String
    public var registeredAt: Int64
    /// The server's result code (0...9) of the last poll, and its time.
    public var result: Int32?
    public var resultAt: Int64?
    public var sampleCollectedAt: Int64?
    /// The final result the user was told of.
    public var notifiedResult: Int32?
    /// The TAN, from when it was received until the upload succeeded.
    public var tan: String?
    public var tanAt: Int64?
    public var submittedAt: Int64?
    public var submittedKeys: Int?
    /// "pcr", "rapid-antigen" or "rapid-pcr" (nil: registered before
    /// encore knew rapid codes; `rapid` tells then).
    public var testKind: String?
    /// The consent time a rapid test's QR code carries.
    public var codeTimestamp: Int64?

    public init(keyType: String, rapid: Bool, registrationToken: String, registeredAt: Int64) {
        self.keyType = keyType
        self.rapid = rapid
        self.registrationToken = registrationToken
        self.registeredAt = registeredAt
    }
}

extension Store {
    private static let registrationColumns = """
        key_type, rapid, registration_token, registered_at, result, result_at, sample_collected_at, notified_result,
        tan, tan_at, submitted_at, submitted_keys, test_kind, code_timestamp
        """

    public func testRegistration() throws -> TestRegistration? {
        try withConnection { try Self.registration($0) }
    }

    /// Stores a new registration; .alreadyRegistered when one exists.
    public func insertTestRegistration(_ r: TestRegistration) throws {
        try withConnection { c in
            try c.transaction {
                guard try Self.registration(c) == nil else {
                    throw EncoreError(.alreadyRegistered, "a test is registered already: forget it before registering another")
                }
                try Self.write(r, c, insert: true)
            }
        }
    }

    /// Changes the registration in one transaction (read, change, write)
    /// and returns it; .notRegistered when there is none.
    @discardableResult
    public func updateTestRegistration(_ change: (inout TestRegistration) throws -> Void) throws -> TestRegistration {
        try withConnection { c in
            try c.transaction {
                guard var r = try Self.registration(c) else { throw EncoreError(.notRegistered, "no test is registered") }
                try change(&r)
                try Self.write(r, c, insert: false)
                return r
            }
        }
    }

    /// Deletes the registration (and its token and TAN); false when there was none.
    @discardableResult
    public func deleteTestRegistration() throws -> Bool {
        try withConnection { c in
            try c.prepare("DELETE FROM test_registration").run()
            return c.changes > 0
        }
    }

    private static func registration(_ c: Connection) throws -> TestRegistration? {
        try c.prepare("SELECT \(registrationColumns) FROM test_registration WHERE id = 1").one { s in
            var r = TestRegistration(keyType: s.text(0) ?? "", rapid: s.int64(1) == 1, registrationToken: s.text(2) ?? "",
                                     registeredAt: s.int64(3))
            r.result = s.optionalInt64(4).map { Int32(clamping: $0) }
            r.resultAt = s.optionalInt64(5)
            r.sampleCollectedAt = s.optionalInt64(6)
            r.notifiedResult = s.optionalInt64(7).map { Int32(clamping: $0) }
            r.tan = s.isNull(8) ? nil : s.text(8)
            r.tanAt = s.optionalInt64(9)
            r.submittedAt = s.optionalInt64(10)
            r.submittedKeys = s.optionalInt64(11).map { Int(clamping: $0) }
            r.testKind = s.isNull(12) ? nil : s.text(12)
            r.codeTimestamp = s.optionalInt64(13)
            return r
        }
    }

    private static func write(_ r: TestRegistration, _ c: Connection, insert: Bool) throws {
        let sql = insert
            ? "INSERT INTO test_registration (id, \(registrationColumns)) VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
            : """
              UPDATE test_registration SET key_type = ?, rapid = ?, registration_token = ?, registered_at = ?, result = ?, result_at = ?,
              sample_collected_at = ?, notified_result = ?, tan = ?, tan_at = ?, submitted_at = ?, submitted_keys = ?,
              test_kind = ?, code_timestamp = ? WHERE id = 1
              """
        let s = try c.prepare(sql)
        s.bind(1, text: r.keyType).bind(2, Int64(r.rapid ? 1 : 0)).bind(3, text: r.registrationToken).bind(4, r.registeredAt)
        s.bind(5, r.result.map(Int64.init)).bind(6, r.resultAt).bind(7, r.sampleCollectedAt).bind(8, r.notifiedResult.map(Int64.init))
        s.bind(9, text: r.tan).bind(10, r.tanAt).bind(11, r.submittedAt).bind(12, r.submittedKeys.map(Int64.init))
        s.bind(13, text: r.testKind).bind(14, r.codeTimestamp)
        try s.run()
    }
}
