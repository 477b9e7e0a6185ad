// encore.h section: store, part 2
import CEncoreTypes
import EncoreSupport
import EncoreTracing

/// Records that tracing was switched on (`active` 1) or off (0) at `time`
/// (unix seconds, not negative). Events at the same time apply in the order
/// they were added; repeating the current state changes nothing.
@c public func encore_tracing_event_add(_ client: encore_client_ptr?, _ time: Int64, _ active: Int32) -> encore_status {
    guarded {
        let s = try clientStore(client)
        guard active == 0 || active == 1 else { throw EncoreError(.invalidArgument, "active must be 0 or 1, not \(active)") }
        try s.addTracingEvent(time: time, active: active == 1)
    }
}

/// Writes the number of tracing events with from <= time < to to *count.
@c public func encore_tracing_event_count(_ client: encore_client_ptr?, _ from: Int64, _ to: Int64, _ count: UnsafeMutablePointer<UInt64>?) -> encore_status {
    guarded {
        let s = try clientStore(client)
        try output(count, "count") { UInt64(try s.countTracingEvents(from: from, to: to)) }
    }
}

/// Copies tracing events with from <= time < to, in time order (then the
/// order they were added), from index `first` on, as every list is copied.
@c public func encore_tracing_event_copy(_ client: encore_client_ptr?, _ from: Int64, _ to: Int64, _ first: UInt64, _ out: UnsafeMutablePointer<encore_tracing_event>?, _ element_size: Int, _ capacity: Int, _ copied: UnsafeMutablePointer<Int>?) -> encore_status {
    guarded {
        let s = try clientStore(client)
        try copyOut(first: first, out, element_size, capacity, copied, count: { try s.countTracingEvents(from: from, to: to) },
                    forEach: { try s.forEachTracingEvent(from: from, to: to, offset: $0, limit: $1, $2) }) { (e: TracingEvent) in
            encore_tracing_event(struct_size: structSize(encore_tracing_event.self), active: e.active ? 1 : 0, time: e.time)
        }
    }
}

/// Writes the seconds tracing was active within [from, to) to *seconds:
/// the last event before `from` gives the state at `from` (off when there is
/// none), and an "on" without a later "off" counts until `to`. `from` after
/// `to` is ENCORE_ERR_INVALID_ARGUMENT; the sum saturates at INT64_MAX.
@c public func encore_tracing_get_active_seconds(_ client: encore_client_ptr?, _ from: Int64, _ to: Int64, _ seconds: UnsafeMutablePointer<Int64>?) -> encore_status {
    guarded {
        let s = try clientStore(client)
        try output(seconds, "seconds") { try s.activeTracingSeconds(from: from, to: to) }
    }
}
