import EncoreCheck
import CEncoreTypes

// The structs that grew after their first version (fields are only ever
// added at the end): a caller built against the first version passes its
// smaller struct_size and gets the fields it has. Every other struct's
// first version is its size now. Add a struct here when it grows.

/// Before rapid tests (test_type, outdated, tested_at).
extension encore_test_status: GrownStruct {
    static var firstVersionSize: Int { MemoryLayout<Self>.offset(of: \.test_type) ?? MemoryLayout<Self>.size }
}

/// Before the configuration's own backoff (configuration, config_failures).
extension encore_sync_summary: GrownStruct {
    static var firstVersionSize: Int { MemoryLayout<Self>.offset(of: \.configuration) ?? MemoryLayout<Self>.size }
}

/// Before the check-in's app and creation time (kind, created).
extension encore_checkin_info: GrownStruct {
    static var firstVersionSize: Int { MemoryLayout<Self>.offset(of: \.kind) ?? MemoryLayout<Self>.size }
}


/// Before private check-ins (checkin_mode): such a caller's clients keep diary check-ins.
extension encore_client_options: GrownStruct {
    static var firstVersionSize: Int { MemoryLayout<Self>.offset(of: \.checkin_mode) ?? MemoryLayout<Self>.size }
}

/// Before kept matches (full, reserved2): such a caller's cached checks match only what is new.
extension encore_check_options: GrownStruct {
    static var firstVersionSize: Int { MemoryLayout<Self>.offset(of: \.full) ?? MemoryLayout<Self>.size }
}

/// Before the typical RSSI (has_typical_rssi, typical_rssi): such a caller's sightings have typical = rssi.
extension encore_sighting: GrownStruct {
    static var firstVersionSize: Int { MemoryLayout<Self>.offset(of: \.has_typical_rssi) ?? MemoryLayout<Self>.size }
}

/// Before the cap on sightings a day (max_sightings_per_day): such a caller's tracers get the default cap.
extension encore_tracer_options: GrownStruct {
    static var firstVersionSize: Int { MemoryLayout<Self>.offset(of: \.max_sightings_per_day) ?? MemoryLayout<Self>.size }
}

/// Before the cap on sightings a day (sightings_over_cap).
extension encore_scan_result: GrownStruct {
    static var firstVersionSize: Int { MemoryLayout<Self>.offset(of: \.sightings_over_cap) ?? MemoryLayout<Self>.size }
}

/// Before the cap on sightings a day (sightings_today and the dropped counts).
extension encore_tracing_status: GrownStruct {
    static var firstVersionSize: Int { MemoryLayout<Self>.offset(of: \.sightings_today) ?? MemoryLayout<Self>.size }
}
