import CEncoreProto
import CProtobufC
import EncoreSupport
import EncoreWire

/// CheckInRecord (the plaintext of a protected report): 1
/// startIntervalNumber, 2 period, 3 transmissionRiskLevel.
public enum CheckInRecordCodec {
    /// protobuf-c's proto3 encoding (zero fields omitted), byte for byte
    /// what CWA's apps encrypt.
    public static func encode(startInterval: UInt32, period: UInt32, transmissionRiskLevel: UInt32) -> [UInt8] {
        var m = Cwapt__CheckInRecord()
        cwapt__check_in_record__init(&m)
        m.startintervalnumber = startInterval
        m.period = period
        m.transmissionrisklevel = transmissionRiskLevel
        var out = [UInt8](repeating: 0, count: cwapt__check_in_record__get_packed_size(&m))
        let n = out.withUnsafeMutableBufferPointer { cwapt__check_in_record__pack(&m, $0.baseAddress) }
        return Array(out.prefix(n))
    }

    /// The record's values (unknown fields skipped), nil when it does not decode.
    public static func decode(_ bytes: [UInt8]) -> (start: UInt64, period: UInt64, trl: UInt64)? {
        bytes.withUnsafeBytes { b in
            var wire = ProtoWire(b)
            var r: (start: UInt64, period: UInt64, trl: UInt64) = (0, 0, 0)
            do {
                while let f = try wire.next() {
                    switch (f.number, f.wireType) {
                    case (1, .varint): r.start = f.value
                    case (2, .varint): r.period = f.value
                    case (3, .varint): r.trl = f.value
                    case (1 ... 3, _): return nil
                    default: continue
                    }
                }
            } catch {
                return nil
            }
            return r
        }
    }
}
