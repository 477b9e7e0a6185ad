import EncoreCrypto
import EncoreKeyFiles
import EncoreStorage
import EncoreSupport

/// The device's own side of Exposure Notification, over a store: a new
/// temporary exposure key each UTC day, the advertisement to broadcast, and
/// the keys to submit after a positive test.
public struct OwnKeySchedule: Sendable {
    public let store: Store

    public init(store: Store) { self.store = store }

    /// The TEK valid at `now`: the stored key of that UTC day, or a new one
    /// from the CSPRNG (rolling start = the day's first interval, period
    /// 144), made and stored in one transaction.
    public func currentKey(now: Int64) throws -> OwnKey {
        guard let interval = ENInterval.number(unixSeconds: now), let dayStart = Int32(exactly: ENInterval.dayStart(interval)) else {
            throw EncoreError(.invalidArgument, "now (\(now)) is outside the range of interval numbers")
        }
        return try store.ownKey(rollingStart: dayStart, covering: interval) {
            OwnKey(keyData: try SecureRandom.key(), rollingStartIntervalNumber: dayStart,
                   rollingPeriod: Int32(ENInterval.rollingPeriod), created: now)
        }
    }

    /// The 20 bytes to broadcast at `now` (service data of UUID 0xFD6F):
    /// RPI ‖ AEM, the metadata carrying version 1.0, the calibration
    /// confidence (0...3) and the TX power in dBm.
    public func advertisement(now: Int64, txPower: Int8, calibrationConfidence: UInt8 = 0) throws -> [UInt8] {
        guard calibrationConfidence <= 3 else { throw EncoreError(.invalidArgument, "calibration confidence must be 0...3") }
        let key = try currentKey(now: now)
        guard let interval = ENInterval.number(unixSeconds: now) else { throw EncoreError(.invalidArgument, "now is out of range") }
        let rpi = try ENFKeySchedule.rpi(rpik: ENFKeySchedule.rpik(tek: key.keyData), interval: interval)
        let metadata: [UInt8] = [0x40 | (calibrationConfidence << 2), UInt8(bitPattern: txPower), 0, 0]
        return rpi.bytes + (try ENFKeySchedule.aem(aemk: ENFKeySchedule.aemk(tek: key.keyData), rpi: rpi, metadata: metadata))
    }

    /// The own keys of the last `days` UTC days up to `now` (today's
    /// included), oldest first, in the key file form, for submission.
    public func keyHistory(now: Int64, days: Int = 14) throws -> [ExposureKey] {
        guard days >= 0, days <= 3650, let interval = ENInterval.number(unixSeconds: now) else {
            throw EncoreError(.invalidArgument, "days must be 0...3650 and now in range")
        }
        let since = Int64(ENInterval.dayStart(interval)) - Int64(days) * Int64(ENInterval.rollingPeriod)
        return try store.ownKeys(since: Int32(clamping: since)).filter { Int64($0.rollingStartIntervalNumber) <= Int64(interval) }.map(\.exposureKey)
    }
}
