import CCrypto
import EncoreCrypto
import EncoreKeyFiles
import EncoreMatching
import EncoreModel
import EncoreRisk
import EncoreStorage
import EncoreSupport

/// The device's own side of Exposure Notification: a new temporary exposure
/// key each UTC day, the advertisement to broadcast, and the keys to
/// submit after a positive test.
extension Store {
    /// The TEK valid at `now`: the stored key of that UTC day, or a new one
    /// from the CSPRNG (rolling start = the day's first interval, period
    /// 144), made and stored in one transaction so that callers racing at
    /// midnight get the same key.
    public func currentOwnKey(now: Int64) throws -> OwnKey {
        guard let interval = ENInterval.number(unixSeconds: now), let dayStart = Int32(exactly: ENInterval.dayStart(interval)) else {
            throw EncoreError(.invalidArgument, "now (\(now)) is outside the range of interval numbers")
        }
        return try withConnection { c in
            try c.transaction {
                let find = try c.prepare("""
                    SELECT key_data, rolling_start, rolling_period, created FROM own_keys
                    WHERE rolling_start = ? AND rolling_start + rolling_period > ? ORDER BY created DESC LIMIT 1
                    """)
                find.bind(1, Int64(dayStart)).bind(2, Int64(interval))
                if let existing = try find.one({ s -> OwnKey? in
                    guard let k = s.keyData(0) else { return nil }
                    return OwnKey(keyData: k, rollingStartIntervalNumber: dayStart, rollingPeriod: Int32(clamping: s.int64(2)), created: s.int64(3))
                }), let key = existing {
                    return key
                }
                let key = OwnKey(keyData: try Store.randomKey(), rollingStartIntervalNumber: dayStart, rollingPeriod: 144, created: now)
                let insert = try c.prepare("INSERT INTO own_keys (key_data, rolling_start, rolling_period, created) VALUES (?, ?, ?, ?)")
                _ = key.keyData.withUnsafeBytes { insert.bind(1, blob: $0) }
                insert.bind(2, Int64(dayStart)).bind(3, Int64(144)).bind(4, now)
                try insert.run()
                return key
            }
        }
    }

    /// The 20 bytes to broadcast at `now` (service data of UUID 0xFD6F):
    /// RPI ‖ AEM, the metadata carrying version 1.0, the calibration
    /// confidence (0...3) and the TX power in dBm.
    public func advertisement(now: Int64, txPower: Int8, calibrationConfidence: UInt8 = 0) throws -> [UInt8] {
        guard calibrationConfidence <= 3 else { throw EncoreError(.invalidArgument, "calibration confidence must be 0...3") }
        let key = try currentOwnKey(now: now)
        guard let interval = ENInterval.number(unixSeconds: now) else { throw EncoreError(.invalidArgument, "now is out of range") }
        let rpi = try ENCrypto.rpi(rpik: ENCrypto.rpik(tek: key.keyData), interval: interval)
        let metadata: [UInt8] = [0x40 | (calibrationConfidence << 2), UInt8(bitPattern: txPower), 0, 0]
        return rpi.bytes + (try ENCrypto.aem(aemk: ENCrypto.aemk(tek: key.keyData), rpi: rpi, metadata: metadata))
    }

    /// The own keys of the last `days` UTC days up to `now` (today's
    /// included), oldest first, in the key file form, for submission.
    public func ownKeyHistory(now: Int64, days: Int = 14) throws -> [ExposureKey] {
        guard days >= 0, days <= 3650, let interval = ENInterval.number(unixSeconds: now) else {
            throw EncoreError(.invalidArgument, "days must be 0...3650 and now in range")
        }
        let since = Int64(ENInterval.dayStart(interval)) - Int64(days) * Int64(ENInterval.rollingPeriod)
        return try ownKeys(since: Int32(clamping: since)).filter { Int64($0.rollingStartIntervalNumber) <= Int64(interval) }.map(\.exposureKey)
    }

    package static func randomKey() throws -> KeyData {
        var bytes = [UInt8](repeating: 0, count: 16)
        guard RAND_bytes(&bytes, 16) == 1 else { throw EncoreError(.internalError, "the CSPRNG (RAND_bytes) failed") }
        return bytes.withUnsafeBytes { KeyData($0) }
    }
}
