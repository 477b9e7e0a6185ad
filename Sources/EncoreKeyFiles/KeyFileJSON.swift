import EncoreCrypto
import EncoreSupport

extension SignatureOutcome.Status {
    /// "verified", "unsigned", "untrusted", "invalid" or "skipped".
    public var name: String {
        switch self {
        case .verified: return "verified"
        case .unsigned: return "unsigned"
        case .untrusted: return "untrusted"
        case .invalid: return "invalid"
        case .skipped: return "skipped"
        }
    }
}

extension KeyFile {
    /// A key file's one JSON form (`encore keyfile inspect --json`; the
    /// schema is in docs/cli.md and its field order is part of it): the
    /// metadata, how the signature turned out, and the keys when given.
    public func json(keys: [ExposureKey]? = nil, revisedKeys: [ExposureKey]? = nil) -> JSONValue {
        let m = metadata
        var members: [(String, JSONValue)] = [
            ("region", .string(m.region)),
            ("batch_num", .int(m.batchNum)),
            ("batch_size", .int(m.batchSize)),
            ("start_timestamp", .int(m.startTimestamp)),
            ("end_timestamp", .int(m.endTimestamp)),
            ("key_count", .int(m.keyCount)),
            ("revised_key_count", .int(m.revisedKeyCount)),
            ("invalid_key_count", .int(m.invalidKeyCount)),
            ("signature", .object([
                ("status", .string(signature.status.name)),
                ("key_id", .string(signature.keyID)),
                ("key_version", .string(signature.keyVersion)),
            ])),
        ]
        if let keys { members.append(("keys", .array(keys.map(\.json)))) }
        if let revisedKeys { members.append(("revised_keys", .array(revisedKeys.map(\.json)))) }
        return .object(members)
    }
}

extension ExposureKey {
    /// A diagnosis key as the key file JSON lists it (hex key data).
    public var json: JSONValue {
        .object([
            ("key_data", .string(keyData.hex)),
            ("transmission_risk_level", .int(transmissionRiskLevel)),
            ("rolling_start_interval_number", .int(rollingStartIntervalNumber)),
            ("rolling_period", .int(rollingPeriod)),
            ("report_type", .string(reportType.name)),
            ("days_since_onset_of_symptoms", .int(daysSinceOnsetOfSymptoms)),
        ])
    }
}
