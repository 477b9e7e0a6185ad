import CEncoreProto
import CProtobufC
import EncoreCheck
import EncoreCheckIns
import EncoreExposure
import EncoreHTTP
import EncoreKeyFiles
import EncoreRisk
import EncoreStorage
import EncoreSupport
#if canImport(Glibc)
import Glibc
#endif

/// What encore uses of CWA's app configuration (ApplicationConfigurationAndroid,
/// proto/app_config.proto): the v2 risk calculation parameters (the check
/// uses them instead of the built-in preset), the presence-tracing risk
/// parameters, and the revoked day and hour packages.
public struct AppConfiguration: Sendable {
    public struct RevokedPackage: Sendable, Equatable {
        public var region: String
        /// "YYYY-MM-DD".
        public var date: String
        /// nil for a day package.
        public var hour: Int?
        public var etag: String
    }

    public var risk: RiskConfiguration?
    /// The presence-tracing risk parameters in the JSON form of the
    /// configuration (transmissionRiskValueMapping,
    /// normalizedTimePerCheckInToRiskLevelMapping,
    /// normalizedTimePerDayToRiskLevelMapping, maxCheckInAgeInDays).
    public var presenceTracingRisk: JSONValue?
    public var revoked: [RevokedPackage]

    /// Reads the configuration from a verified package's payload (export.bin
    /// is the bare protobuf, without the key files' header).
    public init(payload: [UInt8]) throws {
        guard let c = payload.withUnsafeBufferPointer({ cwaconfig__application_configuration_android__unpack(nil, $0.count, $0.baseAddress) }) else {
            throw EncoreError(.protocolError, "the app configuration is not an ApplicationConfigurationAndroid protobuf")
        }
        defer { cwaconfig__application_configuration_android__free_unpacked(c, nil) }
        let config = c.pointee
        do {
            risk = try config.riskcalculationparameters.map { try RiskConfiguration(JSONReader(Self.json($0.pointee), path: "riskCalculationParameters")) }
        } catch let e as EncoreError {
            throw EncoreError(.protocolError, "the app configuration's risk parameters: \(e.message)")
        }
        presenceTracingRisk = config.presencetracingparameters?.pointee.riskcalculationparameters.map { Self.json($0.pointee) }
        var revoked: [RevokedPackage] = []
        if let k = config.keydownloadparameters?.pointee {
            for d in Self.list(k.revokeddaypackages, k.n_revokeddaypackages) {
                revoked.append(RevokedPackage(region: Self.string(d.region), date: Self.string(d.date), hour: nil, etag: Self.string(d.etag)))
            }
            for h in Self.list(k.revokedhourpackages, k.n_revokedhourpackages) {
                revoked.append(RevokedPackage(region: Self.string(h.region), date: Self.string(h.date), hour: Int(h.hour), etag: Self.string(h.etag)))
            }
        }
        self.revoked = revoked
    }

    // MARK: - the protobuf as the configuration's JSON form

    static func list<T>(_ p: UnsafeMutablePointer<UnsafeMutablePointer<T>?>?, _ n: Int) -> [T] {
        guard let p else { return [] }
        return (0 ..< n).compactMap { p[$0]?.pointee }
    }

    static func string(_ p: UnsafeMutablePointer<CChar>?) -> String {
        p.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: strlen($0)), as: UTF8.self) } ?? ""
    }

    static func range(_ r: UnsafeMutablePointer<Cwaconfig__Range>?) -> JSONValue {
        guard let r = r?.pointee else { return .object([("min", .number(0)), ("max", .number(0))]) }
        return .object([("min", .number(r.min)), ("max", .number(r.max)),
                        ("minExclusive", .bool(r.minexclusive != 0)), ("maxExclusive", .bool(r.maxexclusive != 0))])
    }

    static func mappings(_ p: UnsafeMutablePointer<UnsafeMutablePointer<Cwaconfig__NormalizedTimeToRiskLevelMapping>?>?, _ n: Int) -> JSONValue {
        .array(list(p, n).map { .object([("normalizedTimeRange", range($0.normalizedtimerange)), ("riskLevel", .int($0.risklevel))]) })
    }

    static func values(_ p: UnsafeMutablePointer<UnsafeMutablePointer<Cwaconfig__TransmissionRiskValueMapping>?>?, _ n: Int) -> JSONValue {
        .array(list(p, n).map { .object([("transmissionRiskLevel", .int($0.transmissionrisklevel)),
                                          ("transmissionRiskValue", .number($0.transmissionriskvalue))]) })
    }

    static func json(_ r: Cwaconfig__RiskCalculationParameters) -> JSONValue {
        let e = r.trlencoding?.pointee ?? Cwaconfig__TransmissionRiskLevelEncoding()
        return .object([
            ("minutesAtAttenuationFilters", .array(list(r.minutesatattenuationfilters, r.n_minutesatattenuationfilters).map {
                .object([("attenuationRange", range($0.attenuationrange)), ("dropIfMinutesInRange", range($0.dropifminutesinrange))])
            })),
            ("trlFilters", .array(list(r.trlfilters, r.n_trlfilters).map { .object([("dropIfTrlInRange", range($0.dropiftrlinrange))]) })),
            ("minutesAtAttenuationWeights", .array(list(r.minutesatattenuationweights, r.n_minutesatattenuationweights).map {
                .object([("attenuationRange", range($0.attenuationrange)), ("weight", .number($0.weight))])
            })),
            ("normalizedTimePerEWToRiskLevelMapping", mappings(r.normalizedtimeperewtorisklevelmapping, r.n_normalizedtimeperewtorisklevelmapping)),
            ("normalizedTimePerDayToRiskLevelMapping", mappings(r.normalizedtimeperdaytorisklevelmapping, r.n_normalizedtimeperdaytorisklevelmapping)),
            ("trlEncoding", .object([
                ("infectiousnessOffsetStandard", .int(e.infectiousnessoffsetstandard)),
                ("infectiousnessOffsetHigh", .int(e.infectiousnessoffsethigh)),
                ("reportTypeOffsetRecursive", .int(e.reporttypeoffsetrecursive)),
                ("reportTypeOffsetSelfReport", .int(e.reporttypeoffsetselfreport)),
                ("reportTypeOffsetConfirmedClinicalDiagnosis", .int(e.reporttypeoffsetconfirmedclinicaldiagnosis)),
                ("reportTypeOffsetConfirmedTest", .int(e.reporttypeoffsetconfirmedtest)),
            ])),
            ("transmissionRiskValueMapping", values(r.transmissionriskvaluemapping, r.n_transmissionriskvaluemapping)),
            ("maxEncounterAgeInDays", .int(r.maxencounterageindays)),
        ])
    }

    static func json(_ p: Cwaconfig__PresenceTracingRiskCalculationParameters) -> JSONValue {
        .object([
            ("transmissionRiskValueMapping", values(p.transmissionriskvaluemapping, p.n_transmissionriskvaluemapping)),
            ("normalizedTimePerCheckInToRiskLevelMapping",
             mappings(p.normalizedtimepercheckintorisklevelmapping, p.n_normalizedtimepercheckintorisklevelmapping)),
            ("normalizedTimePerDayToRiskLevelMapping", mappings(p.normalizedtimeperdaytorisklevelmapping, p.n_normalizedtimeperdaytorisklevelmapping)),
            ("maxCheckInAgeInDays", .int(p.maxcheckinageindays)),
        ])
    }
}
