"""The protobuf module: field numbers and wire types checked against bytes
written by hand, and round trips."""

import pytest

from standins import protos


def varint(n):
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        b, n = n & 0x7F, n >> 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def vfield(num, value):
    return varint(num << 3) + varint(value)


def lfield(num, data):
    return varint(num << 3 | 2) + varint(len(data)) + data


def zigzag(n):
    return (n << 1) ^ (n >> 31)


def test_temporary_exposure_key_wire_layout():
    k = protos.TemporaryExposureKey(key_data=b"k" * 16, transmission_risk_level=6,
                                    rolling_start_interval_number=2650000, rolling_period=144,
                                    report_type=1, days_since_onset_of_symptoms=-3)
    want = (lfield(1, b"k" * 16) + vfield(2, 6) + vfield(3, 2650000) + vfield(4, 144)
            + vfield(5, 1) + vfield(6, zigzag(-3)))
    assert k.SerializeToString() == want
    assert protos.TemporaryExposureKey.FromString(want) == k


def test_rolling_period_defaults_to_144_and_presence_is_kept():
    k = protos.TemporaryExposureKey(key_data=b"\0" * 16)
    assert k.rolling_period == 144
    assert not k.HasField("rolling_period")
    assert not k.HasField("days_since_onset_of_symptoms")


def test_out_of_range_report_type_survives():
    k = protos.TemporaryExposureKey.FromString(vfield(5, 9))
    assert k.report_type == 9


def test_export_header_fields():
    e = protos.TemporaryExposureKeyExport(start_timestamp=1, end_timestamp=2, region="DE",
                                          batch_num=1, batch_size=1)
    fixed64 = lambda num, v: varint(num << 3 | 1) + v.to_bytes(8, "little")
    want = fixed64(1, 1) + fixed64(2, 2) + lfield(3, b"DE") + vfield(4, 1) + vfield(5, 1)
    assert e.SerializeToString() == want


def test_signature_list_layout():
    info = protos.SignatureInfo(verification_key_version="v1", verification_key_id="262",
                                signature_algorithm="1.2.840.10045.4.3.2")
    s = protos.TEKSignatureList(signatures=[protos.TEKSignature(
        signature_info=info, batch_num=1, batch_size=1, signature=b"sig")])
    inner = (lfield(1, lfield(3, b"v1") + lfield(4, b"262") + lfield(5, b"1.2.840.10045.4.3.2"))
             + vfield(2, 1) + vfield(3, 1) + lfield(4, b"sig"))
    assert s.SerializeToString() == lfield(1, inner)


def test_submission_payload_fields_1_to_8():
    p = protos.SubmissionPayload(
        keys=[protos.TemporaryExposureKey(key_data=b"a" * 16)], requestPadding=b"pp",
        visitedCountries=["DE"], origin="DE", consentToFederation=True,
        checkIns=[protos.CheckIn(locationId=b"L", startIntervalNumber=1, endIntervalNumber=2,
                                 transmissionRiskLevel=3)],
        submissionType=1,
        checkInProtectedReports=[protos.CheckInProtectedReport(locationIdHash=b"h", iv=b"i",
                                                               encryptedCheckInRecord=b"e",
                                                               mac=b"m")])
    want = (lfield(1, lfield(1, b"a" * 16)) + lfield(2, b"pp") + lfield(3, b"DE") + lfield(4, b"DE")
            + vfield(5, 1) + lfield(6, lfield(1, b"L") + vfield(2, 1) + vfield(3, 2) + vfield(4, 3))
            + vfield(7, 1)
            + lfield(8, lfield(1, b"h") + lfield(2, b"i") + lfield(3, b"e") + lfield(4, b"m")))
    assert p.SerializeToString() == want
    assert protos.SubmissionPayload.FromString(want) == p


def test_trace_warning_package_and_check_in_record():
    pkg = protos.TraceWarningPackage(intervalNumber=448000, region="DE")
    pkg.timeIntervalWarnings.add(locationIdHash=b"x" * 32, startIntervalNumber=5, period=6,
                                 transmissionRiskLevel=7)
    pkg.checkInProtectedReports.add(locationIdHash=b"y" * 32, iv=b"i" * 16,
                                    encryptedCheckInRecord=b"e" * 16, mac=b"m" * 32)
    want = (vfield(1, 448000) + lfield(2, b"DE")
            + lfield(3, lfield(1, b"x" * 32) + vfield(2, 5) + vfield(3, 6) + vfield(4, 7))
            + lfield(4, lfield(1, b"y" * 32) + lfield(2, b"i" * 16) + lfield(3, b"e" * 16)
                     + lfield(4, b"m" * 32)))
    assert pkg.SerializeToString() == want
    rec = protos.CheckInRecord(startIntervalNumber=10, period=3, transmissionRiskLevel=8)
    assert rec.SerializeToString() == vfield(1, 10) + vfield(2, 3) + vfield(3, 8)


def test_problematic_event_layouts_differ_in_field_5_wire_type():
    sc = protos.ProblematicEvent(version=4, identity=b"i" * 32, secretKeyForIdentity=b"s" * 48,
                                 day=1_600_000_000, encryptedAssociatedData=b"ead",
                                 cipherTextNonce=b"n" * 24)
    assert sc.SerializeToString() == (vfield(1, 4) + lfield(2, b"i" * 32) + lfield(3, b"s" * 48)
                                      + vfield(4, 1_600_000_000) + lfield(5, b"ead")
                                      + lfield(6, b"n" * 24))
    nm = protos.ProblematicEventNotifyMe(version=4, identity=b"i" * 32, startTime=1000,
                                         endTime=2000, encryptedAssociatedData=b"ead",
                                         cipherTextNonce=b"n" * 24)
    assert nm.SerializeToString() == (vfield(1, 4) + lfield(2, b"i" * 32) + vfield(4, 1000)
                                      + vfield(5, 2000) + lfield(6, b"ead") + lfield(7, b"n" * 24))
    wrapped = protos.wrap_events([sc], version=3)
    assert protos.ProblematicEventWrapper.FromString(wrapped).events[0] == sc
    wrapped = protos.wrap_events([nm])
    assert protos.ProblematicEventWrapperNotifyMe.FromString(wrapped).events[0] == nm


def test_push_registration():
    r = protos.PushRegistration(version=1, pushToken="ab" * 32, pushType=protos.PUSH_TYPE_IOD,
                                deviceId="dev")
    assert r.SerializeToString() == (vfield(1, 1) + lfield(2, b"ab" * 32) + vfield(3, 2)
                                     + lfield(4, b"dev"))


def test_app_config_key_download_parameters():
    c = protos.ApplicationConfigurationAndroid(minVersionCode=1, latestVersionCode=2)
    c.keyDownloadParameters.revokedDayPackages.add(region="EUR", date="2020-10-10", etag='"e1"')
    c.keyDownloadParameters.revokedHourPackages.add(region="EUR", date="2020-10-10", hour=3,
                                                    etag='"e2"')
    c.keyDownloadParameters.downloadTimeoutInSeconds = 60
    c.keyDownloadParameters.overallTimeoutInSeconds = 480
    kdp = (lfield(1, lfield(1, b"EUR") + lfield(2, b"2020-10-10") + lfield(3, b'"e1"'))
           + lfield(2, lfield(1, b"EUR") + lfield(2, b"2020-10-10") + vfield(3, 3)
                    + lfield(4, b'"e2"'))
           + vfield(3, 60) + vfield(4, 480))
    assert c.SerializeToString() == vfield(1, 1) + vfield(2, 2) + lfield(5, kdp)


def test_app_config_risk_and_presence_tracing_round_trip():
    c = protos.ApplicationConfigurationAndroid(supportedCountries=["DE", "FR"])
    rc = c.riskCalculationParameters
    rc.minutesAtAttenuationFilters.add(attenuationRange=protos.Range(min=0, max=73, maxExclusive=True),
                                       dropIfMinutesInRange=protos.Range(min=0, max=10))
    rc.trlFilters.add(dropIfTrlInRange=protos.Range(min=1, max=2))
    rc.minutesAtAttenuationWeights.add(attenuationRange=protos.Range(min=0, max=55), weight=1.0)
    rc.normalizedTimePerEWToRiskLevelMapping.add(normalizedTimeRange=protos.Range(min=0, max=9),
                                                 riskLevel=protos.RISK_LEVEL_LOW)
    rc.normalizedTimePerDayToRiskLevelMapping.add(normalizedTimeRange=protos.Range(min=15, max=99),
                                                  riskLevel=protos.RISK_LEVEL_HIGH)
    rc.trlEncoding.infectiousnessOffsetHigh = 4
    rc.transmissionRiskValueMapping.add(transmissionRiskLevel=3, transmissionRiskValue=0.6)
    rc.maxEncounterAgeInDays = 14
    c.diagnosisKeysDataMapping.daysSinceOnsetToInfectiousness[-2] = 1
    c.dailySummariesConfig.attenuationBucketThresholdDb.extend([55, 63, 73])
    c.dailySummariesConfig.infectiousnessWeights[1] = 1.0
    c.presenceTracingParameters.CopyFrom(protos.production_like_presence_tracing())
    c.presenceTracingParameters.qrCodeDescriptors.add(regexPattern="x", payloadEncoding=1)
    again = protos.ApplicationConfigurationAndroid.FromString(c.SerializeToString())
    assert again == c
    data = c.SerializeToString()
    assert data.startswith(lfield(4, b"DE"))
    # field 7 (riskCalculationParameters) and 13 (presenceTracingParameters) present
    assert varint(7 << 3 | 2) in data and varint(13 << 3 | 2) in data
    pt = again.presenceTracingParameters.riskCalculationParameters
    assert pt.maxCheckInAgeInDays == 10
    assert [m.transmissionRiskValue for m in pt.transmissionRiskValueMapping][2] == pytest.approx(0.6)


def test_ios_config_and_v1_min_risk_score():
    c = protos.ApplicationConfigurationIOS(minVersion=protos.SemanticVersion(major=2, minor=1))
    c.presenceTracingParameters.revokedTraceLocationVersions.append(1)
    assert protos.ApplicationConfigurationIOS.FromString(c.SerializeToString()) == c
    assert varint(12 << 3 | 2) in c.SerializeToString()
    assert protos.ApplicationConfiguration(minRiskScore=11).SerializeToString() == vfield(1, 11)
