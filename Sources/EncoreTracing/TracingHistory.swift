import EncoreStorage
import EncoreSupport

/// Tracing (scanning and advertising) was switched on or off at `time`.
public struct TracingEvent: Equatable, Hashable, Sendable {
    /// Unix seconds.
    public var time: Int64
    public var active: Bool

    public init(time: Int64, active: Bool) {
        self.time = time
        self.active = active
    }
}

/// The tracing history: when tracing was switched on and off, so that a risk
/// result can say how long tracing was active (the risk rules need 24 hours
/// in the last 14 days). Events are kept as the host reports them; repeated
/// "on" or "off" events do not change the state.
extension Store {
    /// Records that tracing was switched on (`active`) or off at `time`.
    /// Events at the same time apply in the order they were added.
    public func addTracingEvent(time: Int64, active: Bool) throws {
        guard time >= 0 else { throw EncoreError(.invalidArgument, "tracing event: the time must not be negative") }
        try withConnection { c in
            let s = try c.prepare("INSERT INTO tracing_events (time, active) VALUES (?, ?)")
            s.bind(1, time).bind(2, Int64(active ? 1 : 0))
            try s.run()
        }
    }

    public func addTracingEvent(_ event: TracingEvent) throws {
        try addTracingEvent(time: event.time, active: event.active)
    }

    /// The tracing_events table, in time order (then the order events were added).
    package static let tracingEventRows = TimeRangedTable(name: "tracing_events", columns: "time, active", order: "time, rowid") { s in
        TracingEvent(time: s.int64(0), active: s.int64(1) == 1)
    }

    /// How many events have `from ≤ time < to`.
    public func countTracingEvents(from: Int64 = .min, to: Int64 = .max) throws -> Int {
        try count(Self.tracingEventRows, from: from, to: to)
    }

    /// Events with `from ≤ time < to` in time order (then the order they were
    /// added), skipping `offset` and returning at most `limit`.
    public func tracingEvents(from: Int64 = .min, to: Int64 = .max, offset: Int = 0, limit: Int = .max) throws -> [TracingEvent] {
        try rows(Self.tracingEventRows, from: from, to: to, offset: offset, limit: limit)
    }

    /// The latest event (the state now), nil when none was recorded.
    /// Records that the user turned Exposure Notifications on or off (a
    /// tracing event, unless the state is that already).
    public func setExposureNotifications(_ on: Bool, now: Int64) throws {
        try UnixTime.checkNow(now, "tracing state")
        if try lastTracingEvent()?.active != on { try addTracingEvent(time: now, active: on) }
    }

    public func lastTracingEvent() throws -> TracingEvent? {
        try withConnection { c in
            let s = try c.prepare("SELECT time, active FROM tracing_events ORDER BY time DESC, rowid DESC LIMIT 1")
            return try s.one { TracingEvent(time: $0.int64(0), active: $0.int64(1) == 1) }
        }
    }

    /// Calls `body` with the events of tracingEvents(from:to:) (the
    /// connection is held meanwhile: do not call the store from `body`).
    public func forEachTracingEvent(from: Int64 = .min, to: Int64 = .max, offset: Int = 0, limit: Int = .max,
                                    _ body: (TracingEvent) throws -> Void) throws {
        try forEach(Self.tracingEventRows, from: from, to: to, offset: offset, limit: limit, body)
    }

    /// Seconds tracing was active within [from, to): the last event before
    /// `from` gives the state at `from` (off when there is none); an "on"
    /// without a later "off" counts until `to`. Saturates at Int64.max.
    public func activeTracingSeconds(from: Int64, to: Int64) throws -> Int64 {
        guard from <= to else { throw EncoreError(.invalidArgument, "active tracing time: from (\(from)) is after to (\(to))") }
        return try withConnection { c in
            let before = try c.prepare("SELECT active FROM tracing_events WHERE time < ? ORDER BY time DESC, rowid DESC LIMIT 1")
            before.bind(1, from)
            var onSince: Int64? = try before.one { $0.int64(0) == 1 } == true ? from : nil
            var total: Int64 = 0
            func add(_ end: Int64, _ start: Int64) {
                let (span, o1) = end.subtractingReportingOverflow(start)
                let (sum, o2) = total.addingReportingOverflow(o1 ? .max : span)
                total = o2 ? .max : sum
            }
            try Self.tracingEventRows.forEach(c, from: from, to: to, offset: 0, limit: .max) { e in
                if e.active {
                    if onSince == nil { onSince = e.time }
                } else if let start = onSince {
                    add(e.time, start)
                    onSince = nil
                }
            }
            if let start = onSince { add(to, start) }
            return total
        }
    }
}
