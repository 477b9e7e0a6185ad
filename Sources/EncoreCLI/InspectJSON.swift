import EncoreCore

/// The JSON object of `encore export inspect --json` (docs/cli.md gives
/// the schema). Field order is part of the output's contract.
extension InspectReport {
    var json: JSON {
        let m = metadata
        var members: [(String, JSON)] = [
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
    var json: JSON {
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
