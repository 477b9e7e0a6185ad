import CEncoreProto
import EncoreTestSupport
import EncoreWire

/// A key as a TemporaryExposureKey with only the given fields set: one field
/// alone is that field's bytes, so a test can reorder, repeat or drop fields
/// by concatenating.
extension ProtoSamples {
    package enum KeyField {
        case keyData([UInt8]), transmissionRiskLevel(Int32), rollingStart(Int32), rollingPeriod(Int32), reportType(Int32), dsos(Int32)
    }

    /// A TemporaryExposureKey with `fields` set (zeros included), packed in
    /// field-number order, then `unknown` as it is.
    package static func key(_ fields: [KeyField], unknown: [ProtoBuilder.UnknownField] = []) -> [UInt8] {
        written {
            let b = try ProtoBuilder()
            let k = try b.message(ekexport__temporary_exposure_key__init)
            for field in fields {
                switch field {
                case .keyData(let d):
                    ProtoBuilder.set(&k.pointee.key_data, &k.pointee.has_key_data, try b.bytes(d))
                case .transmissionRiskLevel(let v): (k.pointee.transmission_risk_level, k.pointee.has_transmission_risk_level) = (v, 1)
                case .rollingStart(let v): (k.pointee.rolling_start_interval_number, k.pointee.has_rolling_start_interval_number) = (v, 1)
                case .rollingPeriod(let v): (k.pointee.rolling_period, k.pointee.has_rolling_period) = (v, 1)
                case .reportType(let v): (k.pointee.report_type, k.pointee.has_report_type) = (v, 1)
                case .dsos(let v): (k.pointee.days_since_onset_of_symptoms, k.pointee.has_days_since_onset_of_symptoms) = (v, 1)
                }
            }
            try b.setUnknownFields(of: k, unknown)
            return ProtoBuilder.pack(k)
        }
    }

    package static func key(_ fields: KeyField...) -> [UInt8] { key(fields) }
}
