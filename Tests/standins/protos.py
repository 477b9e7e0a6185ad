"""Every protobuf message the stand-in servers and their tests speak.

There is no protoc on the machine, so the messages are declared here in a
small table form, turned into `FileDescriptorProto`s and loaded into a private
descriptor pool at import time; the classes below are ordinary protobuf
message classes (`SerializeToString`, `FromString`, field access).

Field numbers were transcribed from public sources (no code copied):
- Key export (TemporaryExposureKeyExport, SignatureInfo, TemporaryExposureKey,
  TEKSignatureList, TEKSignature): /work/shared/spec/key-export.md, this
  repository's proto/export.proto, and corona-warn-app/cwa-server
  common/protocols/.../external/exposurenotification/
  temporary_exposure_key_export.proto (Google's published format).
- SubmissionPayload: /work/shared/spec/test-result-and-submission.md and
  cwa-server .../internal/submission_payload.proto (fields 1..8; the
  submission types 2 HOST_WARNING and 3..9 self reports from the cwa-server
  SubmissionController and cwa-app-android's SrsSubmissionType mapping).
- CheckIn, CheckInRecord, CheckInProtectedReport, TraceWarningPackage,
  TraceTimeIntervalWarning, and QRCodePayload, TraceLocation,
  CrowdNotifierData, CWALocationData: /work/shared/spec/checkins.md and cwa-server
  .../internal/pt/check_in.proto (mac = 4 in the later revision) and
  .../internal/pt/trace_warning.proto.
- ApplicationConfigurationAndroid / IOS and their parts: cwa-server
  .../internal/v2/app_config_android.proto, app_config_ios.proto,
  key_download_parameters.proto, exposure_detection_parameters.proto,
  risk_calculation_parameters.proto (fields 8 transmissionRiskValueMapping and
  9 maxEncounterAgeInDays from cwa-app-android's copy of the same file),
  presence_tracing_parameters.proto (maxCheckInAgeInDays = 4 from cwa-server),
  app_features.proto, semantic_version.proto; the v1 ApplicationConfiguration
  (minRiskScore = 1) from cwa-server .../internal/app_config.proto.
- ProblematicEventWrapper / ProblematicEvent: /work/shared/spec/checkins.md and
  notifyme-app/notifyme-sdk-backend: swisscovid-cn-sdk-backend
  .../proto_v3_0/ProblematicEventWrapper.proto (SwissCovid: 4 day, 5 eAD,
  6 nonce) and notifyme-sdk-backend .../proto_v3_0/ProblematicEventWrapper.proto
  (NotifyMe: 4 startTime, 5 endTime, 6 eAD, 7 nonce).
- PushRegistration / PushType: /work/shared/spec/push.md and
  swisscovid-cn-sdk-backend .../proto/PushRegistration.proto.

Enum-typed fields whose out-of-range values a test must be able to see
(report_type, submissionType) are declared int32: same varint on the wire,
but an unexpected value is kept instead of vanishing into unknown fields.
"""

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

from .wire import varint

_F = descriptor_pb2.FieldDescriptorProto
_SCALARS = {
    "double": _F.TYPE_DOUBLE, "int64": _F.TYPE_INT64, "uint64": _F.TYPE_UINT64,
    "int32": _F.TYPE_INT32, "fixed64": _F.TYPE_FIXED64, "bool": _F.TYPE_BOOL,
    "string": _F.TYPE_STRING, "bytes": _F.TYPE_BYTES, "uint32": _F.TYPE_UINT32,
    "sint32": _F.TYPE_SINT32, "sint64": _F.TYPE_SINT64,
}


def _add_field(msg, package, name, number, ftype, label, default=None, enums=()):
    f = msg.field.add(name=name, number=number, json_name=name)
    f.label = _F.LABEL_REPEATED if label == "repeated" else _F.LABEL_OPTIONAL
    if ftype in _SCALARS:
        f.type = _SCALARS[ftype]
    else:
        # A relative name is resolved against the package; nested names are
        # written "Outer.Inner".
        f.type_name = ftype if ftype.startswith(".") else f".{package}.{ftype}"
        f.type = _F.TYPE_ENUM if ftype.split(".")[-1] in enums else _F.TYPE_MESSAGE
    if default is not None:
        f.default_value = str(default)


def _add_message(container, package, prefix, spec, enums):
    """spec = (name, fields, nested specs, enum specs); a field is
    (name, number, type[, "repeated"][, default]) or (name, number,
    ("map", key type, value type))."""
    name, fields, nested, menums = (tuple(spec) + ((), ()))[:4]
    msg = container.add(name=name)
    full = f"{prefix}{name}"
    for ename, values in menums:
        e = msg.enum_type.add(name=ename)
        for vname, vnum in values:
            e.value.add(name=vname, number=vnum)
    for sub in nested:
        _add_message(msg.nested_type, package, f"{full}.", sub, enums)
    for field in fields:
        fname, number, ftype = field[:3]
        label = field[3] if len(field) > 3 else "optional"
        default = field[4] if len(field) > 4 else None
        if isinstance(ftype, tuple):  # map<k, v>: a nested MapEntry message
            _, ktype, vtype = ftype
            entry_name = fname[0].upper() + fname[1:] + "Entry"
            entry = msg.nested_type.add(name=entry_name)
            entry.options.map_entry = True
            _add_field(entry, package, "key", 1, ktype, "optional", enums=enums)
            _add_field(entry, package, "value", 2, vtype, "optional", enums=enums)
            _add_field(msg, package, fname, number, f"{full}.{entry_name}", "repeated", enums=enums)
        else:
            _add_field(msg, package, fname, number, ftype, label, default, enums)


def _file(pool, name, package, syntax, messages, enums=(), deps=()):
    fdp = descriptor_pb2.FileDescriptorProto(name=name, package=package, syntax=syntax)
    fdp.dependency.extend(deps)
    enum_names = {e[0] for e in enums}
    for m in messages:
        for e in (tuple(m) + ((), ()))[3]:
            enum_names.add(e[0])
    for ename, values in enums:
        e = fdp.enum_type.add(name=ename)
        for vname, vnum in values:
            e.value.add(name=vname, number=vnum)
    for m in messages:
        _add_message(fdp.message_type, package, "", m, enum_names)
    pool.Add(fdp)


_POOL = descriptor_pool.DescriptorPool()

# --- Key export (proto2: presence of optional fields matters) ---------------
_file(_POOL, "standins/export.proto", "standins.export", "proto2", [
    ("TemporaryExposureKeyExport", [
        ("start_timestamp", 1, "fixed64"), ("end_timestamp", 2, "fixed64"),
        ("region", 3, "string"), ("batch_num", 4, "int32"), ("batch_size", 5, "int32"),
        ("signature_infos", 6, "SignatureInfo", "repeated"),
        ("keys", 7, "TemporaryExposureKey", "repeated"),
        ("revised_keys", 8, "TemporaryExposureKey", "repeated"),
    ]),
    ("SignatureInfo", [
        ("app_bundle_id", 1, "string"), ("android_package", 2, "string"),
        ("verification_key_version", 3, "string"), ("verification_key_id", 4, "string"),
        ("signature_algorithm", 5, "string"),
    ]),
    ("TemporaryExposureKey", [
        ("key_data", 1, "bytes"), ("transmission_risk_level", 2, "int32"),
        ("rolling_start_interval_number", 3, "int32"),
        ("rolling_period", 4, "int32", "optional", 144),
        ("report_type", 5, "int32"),  # enum ReportType on the wire, see module doc
        ("days_since_onset_of_symptoms", 6, "sint32"),
    ]),
    ("TEKSignatureList", [("signatures", 1, "TEKSignature", "repeated")]),
    ("TEKSignature", [
        ("signature_info", 1, "SignatureInfo"), ("batch_num", 2, "int32"),
        ("batch_size", 3, "int32"), ("signature", 4, "bytes"),
    ]),
])

# --- CWA presence tracing (proto3) ------------------------------------------
_file(_POOL, "standins/pt.proto", "standins.pt", "proto3", [
    ("CheckIn", [
        ("locationId", 1, "bytes"), ("startIntervalNumber", 2, "uint32"),
        ("endIntervalNumber", 3, "uint32"), ("transmissionRiskLevel", 4, "uint32"),
    ]),
    ("CheckInRecord", [
        ("startIntervalNumber", 1, "uint32"), ("period", 2, "uint32"),
        ("transmissionRiskLevel", 3, "uint32"),
    ]),
    ("CheckInProtectedReport", [
        ("locationIdHash", 1, "bytes"), ("iv", 2, "bytes"),
        ("encryptedCheckInRecord", 3, "bytes"), ("mac", 4, "bytes"),
    ]),
    ("TraceWarningPackage", [
        ("intervalNumber", 1, "uint32"), ("region", 2, "string"),
        ("timeIntervalWarnings", 3, "TraceTimeIntervalWarning", "repeated"),
        ("checkInProtectedReports", 4, "CheckInProtectedReport", "repeated"),
    ]),
    ("TraceTimeIntervalWarning", [
        ("locationIdHash", 1, "bytes"), ("startIntervalNumber", 2, "uint32"),
        ("period", 3, "uint32"), ("transmissionRiskLevel", 4, "uint32"),
    ]),
    # The QR code of an event or place (checkins.md: no field 4 in TraceLocation).
    ("QRCodePayload", [
        ("version", 1, "uint32"), ("locationData", 2, "TraceLocation"),
        ("crowdNotifierData", 3, "CrowdNotifierData"), ("vendorData", 4, "bytes"),
    ]),
    ("TraceLocation", [
        ("version", 1, "uint32"), ("description", 2, "string"), ("address", 3, "string"),
        ("startTimestamp", 5, "uint64"), ("endTimestamp", 6, "uint64"),
    ]),
    ("CrowdNotifierData", [
        ("version", 1, "uint32"), ("publicKey", 2, "bytes"), ("cryptographicSeed", 3, "bytes"),
    ]),
    ("CWALocationData", [
        ("version", 1, "uint32"), ("type", 2, "uint32"), ("defaultCheckInLengthInMinutes", 3, "uint32"),
    ]),
])

# --- CWA submission (proto2, like the server's file) ------------------------
_file(_POOL, "standins/submission.proto", "standins.submission", "proto2", [
    ("SubmissionPayload", [
        ("keys", 1, ".standins.export.TemporaryExposureKey", "repeated"),
        ("requestPadding", 2, "bytes"),
        ("visitedCountries", 3, "string", "repeated"),
        ("origin", 4, "string"),
        ("consentToFederation", 5, "bool"),
        ("checkIns", 6, ".standins.pt.CheckIn", "repeated"),
        ("submissionType", 7, "int32"),  # enum SubmissionType, see SUBMISSION_TYPES
        ("checkInProtectedReports", 8, ".standins.pt.CheckInProtectedReport", "repeated"),
    ]),
], deps=["standins/export.proto", "standins/pt.proto"])

SUBMISSION_TYPES = {
    0: "PCR_TEST", 1: "RAPID_TEST", 2: "HOST_WARNING", 3: "SRS_SELF_TEST",
    4: "SRS_REGISTERED_RAT", 5: "SRS_UNREGISTERED_RAT", 6: "SRS_REGISTERED_PCR",
    7: "SRS_UNREGISTERED_PCR", 8: "SRS_RAPID_PCR", 9: "SRS_OTHER",
}

# --- CWA application configuration v2 (proto3) ------------------------------
_RANGE = "Range"
_file(_POOL, "standins/appconfig.proto", "standins.appconfig", "proto3", [
    ("ApplicationConfiguration", [("minRiskScore", 1, "int32")]),  # v1, field 1 only
    ("ApplicationConfigurationAndroid", [
        ("minVersionCode", 1, "int64"), ("latestVersionCode", 2, "int64"),
        ("appFeatures", 3, "AppFeatures"),
        ("supportedCountries", 4, "string", "repeated"),
        ("keyDownloadParameters", 5, "KeyDownloadParametersAndroid"),
        ("exposureDetectionParameters", 6, "ExposureDetectionParametersAndroid"),
        ("riskCalculationParameters", 7, "RiskCalculationParameters"),
        ("diagnosisKeysDataMapping", 8, "DiagnosisKeysDataMapping"),
        ("dailySummariesConfig", 9, "DailySummariesConfig"),
        # 10..12 analytics/survey/error-log parameters: not modelled.
        ("presenceTracingParameters", 13, "PresenceTracingParameters"),
        # 14 coronaTestParameters, 15 dgcParameters: not modelled.
    ]),
    ("ApplicationConfigurationIOS", [
        ("minVersion", 1, "SemanticVersion"), ("latestVersion", 2, "SemanticVersion"),
        ("appFeatures", 3, "AppFeatures"),
        ("supportedCountries", 4, "string", "repeated"),
        ("keyDownloadParameters", 5, "KeyDownloadParametersIOS"),
        ("exposureDetectionParameters", 6, "ExposureDetectionParametersIOS"),
        ("riskCalculationParameters", 7, "RiskCalculationParameters"),
        ("exposureConfiguration", 8, "ExposureConfiguration"),
        ("presenceTracingParameters", 12, "PresenceTracingParameters"),
    ]),
    ("SemanticVersion", [("major", 1, "uint32"), ("minor", 2, "uint32"), ("patch", 3, "uint32")]),
    ("AppFeatures", [("appFeatures", 1, "AppFeature", "repeated")]),
    ("AppFeature", [("label", 1, "string"), ("value", 2, "int32")]),
    ("KeyDownloadParametersAndroid", [
        ("revokedDayPackages", 1, "DayPackageMetadata", "repeated"),
        ("revokedHourPackages", 2, "HourPackageMetadata", "repeated"),
        ("downloadTimeoutInSeconds", 3, "int32"),
        ("overallTimeoutInSeconds", 4, "int32"),
    ]),
    ("KeyDownloadParametersIOS", [
        ("revokedDayPackages", 1, "DayPackageMetadata", "repeated"),
        ("revokedHourPackages", 2, "HourPackageMetadata", "repeated"),
    ]),
    ("DayPackageMetadata", [("region", 1, "string"), ("date", 2, "string"), ("etag", 3, "string")]),
    ("HourPackageMetadata", [
        ("region", 1, "string"), ("date", 2, "string"), ("hour", 3, "int32"), ("etag", 4, "string"),
    ]),
    ("ExposureDetectionParametersAndroid", [
        ("maxExposureDetectionsPerInterval", 1, "int32"), ("overallTimeoutInSeconds", 2, "int32"),
    ]),
    ("ExposureDetectionParametersIOS", [("maxExposureDetectionsPerInterval", 1, "int32")]),
    ("RiskCalculationParameters", [
        ("minutesAtAttenuationFilters", 1, "MinutesAtAttenuationFilter", "repeated"),
        ("trlFilters", 2, "TrlFilter", "repeated"),
        ("minutesAtAttenuationWeights", 3, "MinutesAtAttenuationWeight", "repeated"),
        ("normalizedTimePerEWToRiskLevelMapping", 4, "NormalizedTimeToRiskLevelMapping", "repeated"),
        ("normalizedTimePerDayToRiskLevelMapping", 5, "NormalizedTimeToRiskLevelMapping", "repeated"),
        ("trlEncoding", 6, "TransmissionRiskLevelEncoding"),
        ("transmissionRiskLevelMultiplier", 7, "double"),  # deprecated upstream
        ("transmissionRiskValueMapping", 8, "TransmissionRiskValueMapping", "repeated"),
        ("maxEncounterAgeInDays", 9, "uint32"),
    ]),
    (_RANGE, [
        ("min", 1, "double"), ("minExclusive", 2, "bool"),
        ("max", 3, "double"), ("maxExclusive", 4, "bool"),
    ]),
    ("MinutesAtAttenuationFilter", [("attenuationRange", 1, _RANGE), ("dropIfMinutesInRange", 2, _RANGE)]),
    ("TrlFilter", [("dropIfTrlInRange", 1, _RANGE)]),
    ("MinutesAtAttenuationWeight", [("attenuationRange", 1, _RANGE), ("weight", 2, "double")]),
    ("NormalizedTimeToRiskLevelMapping", [
        ("normalizedTimeRange", 1, _RANGE),
        ("riskLevel", 2, "NormalizedTimeToRiskLevelMapping.RiskLevel"),
    ], (), [("RiskLevel", [("UNSPECIFIED", 0), ("LOW", 1), ("HIGH", 2)])]),
    ("TransmissionRiskLevelEncoding", [
        ("infectiousnessOffsetStandard", 1, "int32"), ("infectiousnessOffsetHigh", 2, "int32"),
        ("reportTypeOffsetRecursive", 3, "int32"), ("reportTypeOffsetSelfReport", 4, "int32"),
        ("reportTypeOffsetConfirmedClinicalDiagnosis", 5, "int32"),
        ("reportTypeOffsetConfirmedTest", 6, "int32"),
    ]),
    ("TransmissionRiskValueMapping", [
        ("transmissionRiskLevel", 1, "int32"), ("transmissionRiskValue", 2, "double"),
    ]),
    ("DiagnosisKeysDataMapping", [
        ("daysSinceOnsetToInfectiousness", 1, ("map", "int32", "int32")),
        ("infectiousnessWhenDaysSinceOnsetMissing", 2, "int32"),
        ("reportTypeWhenMissing", 3, "int32"),
    ]),
    ("DailySummariesConfig", [
        ("attenuationBucketThresholdDb", 1, "int32", "repeated"),
        ("attenuationBucketWeights", 2, "double", "repeated"),
        ("daysSinceExposureThreshold", 3, "int32"),
        ("infectiousnessWeights", 4, ("map", "int32", "double")),
        ("minimumWindowScore", 5, "double"),
        ("reportTypeWeights", 6, ("map", "int32", "double")),
    ]),
    ("ExposureConfiguration", [
        ("infectiousnessForDaysSinceOnsetOfSymptoms", 1, ("map", "int32", "int32")),
        ("reportTypeNoneMap", 2, "int32"),
        ("attenuationDurationThresholds", 3, "int32", "repeated"),
        ("immediateDurationWeight", 4, "double"), ("mediumDurationWeight", 5, "double"),
        ("nearDurationWeight", 6, "double"), ("otherDurationWeight", 7, "double"),
        ("daysSinceLastExposureThreshold", 8, "int32"),
        ("infectiousnessStandardWeight", 9, "double"), ("infectiousnessHighWeight", 10, "double"),
        ("reportTypeConfirmedTestWeight", 11, "double"),
        ("reportTypeConfirmedClinicalDiagnosisWeight", 12, "double"),
        ("reportTypeSelfReportedWeight", 13, "double"), ("reportTypeRecursiveWeight", 14, "double"),
    ]),
    ("PresenceTracingParameters", [
        ("riskCalculationParameters", 1, "PresenceTracingRiskCalculationParameters"),
        ("submissionParameters", 2, "PresenceTracingSubmissionParameters"),
        ("qrCodeErrorCorrectionLevel", 3, "PresenceTracingParameters.QRCodeErrorCorrectionLevel"),
        ("revokedTraceLocationVersions", 4, "uint32", "repeated"),
        ("plausibleDeniabilityParameters", 5, "PresenceTracingPlausibleDeniabilityParameters"),
        ("qrCodeDescriptors", 6, "PresenceTracingQRCodeDescriptor", "repeated"),
    ], (), [("QRCodeErrorCorrectionLevel", [("MEDIUM", 0), ("LOW", 1), ("QUANTILE", 2), ("HIGH", 3)])]),
    ("PresenceTracingRiskCalculationParameters", [
        ("transmissionRiskValueMapping", 1, "TransmissionRiskValueMapping", "repeated"),
        ("normalizedTimePerCheckInToRiskLevelMapping", 2, "NormalizedTimeToRiskLevelMapping", "repeated"),
        ("normalizedTimePerDayToRiskLevelMapping", 3, "NormalizedTimeToRiskLevelMapping", "repeated"),
        ("maxCheckInAgeInDays", 4, "uint32"),
    ]),
    ("PresenceTracingSubmissionParameters", [
        ("durationFilters", 1, "PresenceTracingSubmissionParameters.DurationFilter", "repeated"),
        ("aerosoleDecayLinearFunctions", 2,
         "PresenceTracingSubmissionParameters.AerosoleDecayFunctionLinear", "repeated"),
    ], [
        ("DurationFilter", [("dropIfMinutesInRange", 1, _RANGE)]),
        ("AerosoleDecayFunctionLinear", [
            ("minutesRange", 1, _RANGE), ("slope", 2, "double"), ("intercept", 3, "double"),
        ]),
    ]),
    ("PresenceTracingPlausibleDeniabilityParameters", [
        ("checkInSizesInBytes", 1, "uint32", "repeated"),
        ("probabilityToFakeCheckInsIfNoCheckIns", 2, "double"),
        ("probabilityToFakeCheckInsIfSomeCheckIns", 3, "double"),
        ("numberOfFakeCheckInsFunctionParameters", 4,
         "PresenceTracingPlausibleDeniabilityParameters.NumberOfFakeCheckInsFunctionParameters",
         "repeated"),
    ], [
        ("NumberOfFakeCheckInsFunctionParameters", [("randomNumberRange", 1, _RANGE)] + [
            (n, i, "double") for i, n in enumerate("pqrstuabc", start=2)
        ]),
    ]),
    ("PresenceTracingQRCodeDescriptor", [
        ("regexPattern", 1, "string"), ("versionGroupIndex", 2, "uint32"),
        ("encodedPayloadGroupIndex", 3, "uint32"),
        ("payloadEncoding", 4, "PresenceTracingQRCodeDescriptor.PayloadEncoding"),
    ], (), [("PayloadEncoding", [("BASE32", 0), ("BASE64", 1)])]),
])

# --- CrowdNotifier trace keys and push registration (proto3) ----------------
_file(_POOL, "standins/crowdnotifier.proto", "standins.cn", "proto3", [
    ("ProblematicEventWrapper", [
        ("version", 1, "int32"), ("events", 2, "ProblematicEvent", "repeated"),
    ]),
    ("ProblematicEvent", [  # SwissCovid layout
        ("version", 1, "int32"), ("identity", 2, "bytes"), ("secretKeyForIdentity", 3, "bytes"),
        ("day", 4, "int64"), ("encryptedAssociatedData", 5, "bytes"), ("cipherTextNonce", 6, "bytes"),
    ]),
    ("ProblematicEventWrapperNotifyMe", [
        ("version", 1, "int32"), ("events", 2, "ProblematicEventNotifyMe", "repeated"),
    ]),
    ("ProblematicEventNotifyMe", [  # NotifyMe backend / SDK 3.0 layout
        ("version", 1, "int32"), ("identity", 2, "bytes"), ("secretKeyForIdentity", 3, "bytes"),
        ("startTime", 4, "int64"), ("endTime", 5, "int64"),
        ("encryptedAssociatedData", 6, "bytes"), ("cipherTextNonce", 7, "bytes"),
    ]),
    ("PushRegistration", [
        ("version", 1, "int32"), ("pushToken", 2, "string"),
        ("pushType", 3, "PushType"), ("deviceId", 4, "string"),
    ]),
], enums=[("PushType", [("IOS", 0), ("AND", 1), ("IOD", 2)])])


def _cls(full_name):
    return message_factory.GetMessageClass(_POOL.FindMessageTypeByName(full_name))


TemporaryExposureKeyExport = _cls("standins.export.TemporaryExposureKeyExport")
SignatureInfo = _cls("standins.export.SignatureInfo")
TemporaryExposureKey = _cls("standins.export.TemporaryExposureKey")
TEKSignatureList = _cls("standins.export.TEKSignatureList")
TEKSignature = _cls("standins.export.TEKSignature")

CheckIn = _cls("standins.pt.CheckIn")
CheckInRecord = _cls("standins.pt.CheckInRecord")
CheckInProtectedReport = _cls("standins.pt.CheckInProtectedReport")
TraceWarningPackage = _cls("standins.pt.TraceWarningPackage")
TraceTimeIntervalWarning = _cls("standins.pt.TraceTimeIntervalWarning")
QRCodePayload = _cls("standins.pt.QRCodePayload")
TraceLocation = _cls("standins.pt.TraceLocation")
CrowdNotifierData = _cls("standins.pt.CrowdNotifierData")
CWALocationData = _cls("standins.pt.CWALocationData")

SubmissionPayload = _cls("standins.submission.SubmissionPayload")

ApplicationConfiguration = _cls("standins.appconfig.ApplicationConfiguration")
ApplicationConfigurationAndroid = _cls("standins.appconfig.ApplicationConfigurationAndroid")
ApplicationConfigurationIOS = _cls("standins.appconfig.ApplicationConfigurationIOS")
SemanticVersion = _cls("standins.appconfig.SemanticVersion")
AppFeatures = _cls("standins.appconfig.AppFeatures")
AppFeature = _cls("standins.appconfig.AppFeature")
KeyDownloadParametersAndroid = _cls("standins.appconfig.KeyDownloadParametersAndroid")
KeyDownloadParametersIOS = _cls("standins.appconfig.KeyDownloadParametersIOS")
DayPackageMetadata = _cls("standins.appconfig.DayPackageMetadata")
HourPackageMetadata = _cls("standins.appconfig.HourPackageMetadata")
ExposureDetectionParametersAndroid = _cls("standins.appconfig.ExposureDetectionParametersAndroid")
ExposureDetectionParametersIOS = _cls("standins.appconfig.ExposureDetectionParametersIOS")
RiskCalculationParameters = _cls("standins.appconfig.RiskCalculationParameters")
Range = _cls("standins.appconfig.Range")
MinutesAtAttenuationFilter = _cls("standins.appconfig.MinutesAtAttenuationFilter")
TrlFilter = _cls("standins.appconfig.TrlFilter")
MinutesAtAttenuationWeight = _cls("standins.appconfig.MinutesAtAttenuationWeight")
NormalizedTimeToRiskLevelMapping = _cls("standins.appconfig.NormalizedTimeToRiskLevelMapping")
TransmissionRiskLevelEncoding = _cls("standins.appconfig.TransmissionRiskLevelEncoding")
TransmissionRiskValueMapping = _cls("standins.appconfig.TransmissionRiskValueMapping")
DiagnosisKeysDataMapping = _cls("standins.appconfig.DiagnosisKeysDataMapping")
DailySummariesConfig = _cls("standins.appconfig.DailySummariesConfig")
ExposureConfiguration = _cls("standins.appconfig.ExposureConfiguration")
PresenceTracingParameters = _cls("standins.appconfig.PresenceTracingParameters")
PresenceTracingRiskCalculationParameters = _cls(
    "standins.appconfig.PresenceTracingRiskCalculationParameters")
PresenceTracingSubmissionParameters = _cls("standins.appconfig.PresenceTracingSubmissionParameters")
PresenceTracingPlausibleDeniabilityParameters = _cls(
    "standins.appconfig.PresenceTracingPlausibleDeniabilityParameters")
PresenceTracingQRCodeDescriptor = _cls("standins.appconfig.PresenceTracingQRCodeDescriptor")

ProblematicEventWrapper = _cls("standins.cn.ProblematicEventWrapper")
ProblematicEvent = _cls("standins.cn.ProblematicEvent")
ProblematicEventWrapperNotifyMe = _cls("standins.cn.ProblematicEventWrapperNotifyMe")
ProblematicEventNotifyMe = _cls("standins.cn.ProblematicEventNotifyMe")
PushRegistration = _cls("standins.cn.PushRegistration")
PUSH_TYPE_IOS, PUSH_TYPE_AND, PUSH_TYPE_IOD = 0, 1, 2

RISK_LEVEL_LOW, RISK_LEVEL_HIGH = 1, 2


def production_like_presence_tracing():
    """PresenceTracingParameters with the production values quoted in
    checkins.md (TRL → transmission risk value, both mappings [0,10) low,
    [10,∞) high, check-ins kept 10 days)."""
    p = PresenceTracingParameters()
    rc = p.riskCalculationParameters
    for trl, value in [(1, 0.0), (2, 0.0), (3, 0.6), (4, 0.8), (5, 1.0), (6, 1.2), (7, 1.4), (8, 1.6)]:
        rc.transmissionRiskValueMapping.add(transmissionRiskLevel=trl, transmissionRiskValue=value)
    for mapping in (rc.normalizedTimePerCheckInToRiskLevelMapping,
                    rc.normalizedTimePerDayToRiskLevelMapping):
        mapping.add(normalizedTimeRange=Range(min=0, max=10, maxExclusive=True), riskLevel=RISK_LEVEL_LOW)
        mapping.add(normalizedTimeRange=Range(min=10, max=9999), riskLevel=RISK_LEVEL_HIGH)
    rc.maxCheckInAgeInDays = 10
    return p


def wrap_events(events, version=3):
    """ProblematicEventWrapper bytes around events of either layout (or a mix:
    the wrapper only holds them as length-delimited field 2)."""
    out = bytearray(b"\x08") + varint(version)
    for event in events:
        data = event if isinstance(event, bytes) else event.SerializeToString()
        out += b"\x12" + varint(len(data)) + data
    return bytes(out)

