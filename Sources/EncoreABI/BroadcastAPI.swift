// encore.h section: crypto, part 2
import CEncoreTypes
import EncoreClient
import EncoreExposure
import EncoreSupport

/// Writes the device's temporary exposure key valid at the client's time to *key: the
/// stored key of that UTC day, or a new one from the CSPRNG, made and
/// stored atomically (callers racing at midnight get the same key).
/// key->struct_size is set by the caller.
@c public func encore_own_key_get_current(_ client: encore_client_ptr?, _ key: UnsafeMutablePointer<encore_own_key>?) -> encore_status {
    guarded {
        let (s, now) = try clientStoreNow(client)
        try checkOutput(key, "key")
        try writeOutput(encore_own_key(try OwnKeySchedule(store: s).currentKey(now: now)), to: key, "key")
    }
}

/// Writes the 20 bytes to broadcast at the client's time (BLE service data of UUID
/// 0xFD6F: RPI ‖ AEM) to out[0 ..< 20]; the AEM's metadata carries version
/// 1.0, `calibration_confidence` (0...3) and `tx_power` (dBm, -128...127).
/// Makes today's key when there is none yet.
@c public func encore_advertisement_make(_ client: encore_client_ptr?, _ tx_power: Int32, _ calibration_confidence: Int32, _ out: UnsafeMutablePointer<UInt8>?, _ out_len: Int) -> encore_status {
    guarded {
        let (s, now) = try clientStoreNow(client)
        guard let power = Int8(exactly: tx_power), let confidence = UInt8(exactly: calibration_confidence) else {
            throw EncoreError(.invalidArgument, "tx_power must be -128...127 and calibration_confidence 0...3")
        }
        try write(OwnKeySchedule(store: s).advertisement(now: now, txPower: power, calibrationConfidence: confidence), to: out, out_len, "out")
    }
}

/// Copies the device's own keys of the last `days` UTC days up to the client's time
/// (today's included, oldest first) in the key file form, from index
/// `first` on (see "Lists"): what a positive user submits.
@c public func encore_own_key_copy_history(_ client: encore_client_ptr?, _ days: Int32, _ first: UInt64, _ out: UnsafeMutablePointer<encore_key>?, _ element_size: Int, _ capacity: Int, _ copied: UnsafeMutablePointer<Int>?) -> encore_status {
    guarded {
        let (s, now) = try clientStoreNow(client)
        let keys = try OwnKeySchedule(store: s).keyHistory(now: now, days: Int(days))
        try copyOut(keys, first: first, out, element_size, capacity, copied) { encore_key($0) }
    }
}
