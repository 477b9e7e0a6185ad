import ArgumentParser
import EncoreCheckIns
import EncoreClient
import EncoreExposure
import EncoreKeyFiles
import EncoreRisk
import EncoreStorage
import EncoreSupport
import EncoreTracing

/// `encore tracing ...`: what the tracing (a radio host such as
/// encored's radio) did with the store.
struct TracingCommand: CommandGroup {
    static let configuration = CommandConfiguration(
        commandName: "tracing",
        abstract: "The tracing's state: on or off, scans, RPIs heard, the adapter and calibration.",
        discussion: StoreArguments.keyHelp,
        subcommands: [TracingStatusCommand.self]
    )
}

/// `encore tracing status --db PATH [--now T] [--json]`
struct TracingStatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show whether tracing is on, since when, the RPIs heard and the last scan.",
        discussion: """
            What microG's settings page shows: whether tracing is on and since when, the \
            distinct RPIs heard in the last hour and the last 14 days, the last scan, the \
            adapter the tracing host recorded, the tracing time of the last 14 days (CWA needs \
            24 hours for a risk other than UNKNOWN), and the calibration (TX power, RSSI \
            correction, confidence; "measured" when set for this device, else the defaults), \
            and the sightings stored today with those the cap on a day's sightings dropped \
            (today and in the 14 days kept; the tracing host's max_sightings_per_day, 200000 \
            by default: new RPIs are dropped from 90% of it, RPIs already kept that day at it). \
            No RPI is printed. With --json one object: {active, since, lastScan, \
            rpisLastHour, rpisLast14Days, activeSecondsLast14Days, adapter, calibration, \
            sightingsToday, sightingsDroppedToday, sightingsDroppedLast14Days}.

            \(StoreArguments.keyHelp)

            Example:
              encore tracing status --db client.db --json
            """
    )

    @OptionGroup var store: StoreArguments

    @OptionGroup var clock: NowArgument

    @OptionGroup var output: JSONFlag

    func run() throws {
        let client = try store.client(now: clock)
        let s = client.store
        let st: TracingStatus
        do {
            st = try s.tracingStatus(now: client.now())
        } catch {
            throw store.fail(error)
        }
        let c = st.calibration
        if output.json {
            let json: JSONValue = .object([
                ("active", .bool(st.active)), ("since", .int(st.since)), ("lastScan", .int(st.lastScan)),
                ("rpisLastHour", .int(st.rpisLastHour)), ("rpisLast14Days", .int(st.rpisLast14Days)),
                ("activeSecondsLast14Days", .int(st.activeSecondsLast14Days)), ("adapter", .string(st.adapter)),
                ("calibration", .object([("txPower", .int(c.effectiveTxPower)), ("rssiCorrection", .int(c.effectiveRSSICorrection)),
                                         ("confidence", .int(c.effectiveConfidence)),
                                         ("measured", .object([("txPower", .int(c.txPower)), ("rssiCorrection", .int(c.rssiCorrection)),
                                                               ("confidence", .int(c.confidence))]))])),
                ("sightingsToday", .int(st.sightingsToday)), ("sightingsDroppedToday", .int(st.sightingsDroppedToday)),
                ("sightingsDroppedLast14Days", .int(st.sightingsDroppedLast14Days)),
            ])
            Output.write(json.rendered(pretty: true) + "\n")
            return
        }
        func time(_ t: Int64?) -> String { t.map { UTCTime.iso8601(seconds: $0) ?? String($0) } ?? "never" }
        func measured(_ v: Int8?) -> String { v == nil ? "default" : "measured" }
        Output.write("""
            tracing:           \(st.active ? "on" : "off") since \(time(st.since))
            last scan:         \(time(st.lastScan))
            RPIs heard:        \(st.rpisLastHour) in the last hour, \(st.rpisLast14Days) in 14 days
            tracing time:      \(st.activeSecondsLast14Days / 3600) h \(st.activeSecondsLast14Days % 3600 / 60) min in 14 days
            sightings:         \(st.sightingsToday) today; over the cap, dropped: \(st.sightingsDroppedToday) today, \(st.sightingsDroppedLast14Days) in 14 days
            adapter:           \(st.adapter ?? "none recorded")
            TX power:          \(c.effectiveTxPower) dBm (\(measured(c.txPower)))
            RSSI correction:   \(c.effectiveRSSICorrection) dB (\(measured(c.rssiCorrection)))
            confidence:        \(c.effectiveConfidence) of 3\n
            """)
    }
}
