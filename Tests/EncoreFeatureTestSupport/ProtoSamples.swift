import CEncoreProto
import EncoreCheckIns
import EncoreExposure
import EncoreFixtures
import EncoreKeyFiles
import EncoreSupport
import EncoreWire

/// Protobuf the tests write on purpose, all of it packed by protobuf-c (the
/// one writer): a key as a TemporaryExposureKey with only the given fields
/// set (one field alone is that field's bytes, so a test can reorder, repeat
/// or drop fields by concatenating), and what no message type describes (a
/// hostile payload, a field of the wrong wire type, an unknown field) as
/// the unknown fields of an otherwise empty message.
package enum ProtoSamples {
    package enum KeyField {
        case keyData([UInt8]), transmissionRiskLevel(Int32), rollingStart(Int32), rollingPeriod(Int32), reportType(Int32), dsos(Int32)
    }

    /// A TemporaryExposureKey with `fields` set (zeros included), packed in
    /// field-number order, then `unknown` as it is.
    package static func key(_ fields: [KeyField], unknown: [ProtoBuilder.UnknownField] = []) -> [UInt8] {
        ExportWriter.written {
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

    /// `fields` as they are, in this order.
    package static func raw(_ fields: ProtoBuilder.UnknownField...) -> [UInt8] {
        ExportWriter.written {
            let b = try ProtoBuilder()
            let m = try b.message(ekexport__teksignature_list__init)
            try b.setUnknownFields(of: m, fields)
            return ProtoBuilder.pack(m)
        }
    }
}
