"""The CWA distribution stand-in: indexes, packages, ETag/304, revocation
through the configuration, trace warning packages, faults."""

import hashlib
import http.client
import json
import time
from email.utils import parsedate_to_datetime

import pytest

from standins import CwaDistributionServer, day_path, hour_path, keyfiles, protos, twp_path

from .helpers import call

KEYS = "/version/v1/diagnosis-keys/country"


@pytest.fixture(scope="module")
def signer():
    return keyfiles.SigningKey()


@pytest.fixture
def dist(signer):
    with CwaDistributionServer(signer) as d:
        yield d


def get_json(d, path):
    status, headers, body = call(d.url + path)
    assert status == 200, (path, status)
    assert headers["content-type"] == "application/json"
    return json.loads(body)


def test_country_day_and_hour_indexes(dist):
    dist.add_day("EUR", "2020-10-09", [keyfiles.make_key(day="2020-10-08", trl=5)])
    dist.add_day("EUR", "2020-10-08", [keyfiles.make_key(day="2020-10-07", trl=5)])
    dist.add_day("DE", "2020-10-09")
    dist.add_hour("EUR", "2020-10-10", 3)
    dist.add_hour("EUR", "2020-10-10", 1)
    assert get_json(dist, KEYS) == ["DE", "EUR"]
    assert get_json(dist, f"{KEYS}/EUR/date") == ["2020-10-08", "2020-10-09"]
    assert get_json(dist, f"{KEYS}/EUR/date/2020-10-10/hour") == [1, 3]
    assert call(dist.url + f"{KEYS}/EUR/date/2020-10-11/hour")[0] == 404
    assert call(dist.url + f"{KEYS}/XX/date")[0] == 404
    dist.set_countries(["EUR", "DE", "FR"])
    assert get_json(dist, KEYS) == ["EUR", "DE", "FR"]
    assert get_json(dist, f"{KEYS}/FR/date") == []


def test_day_and_hour_packages_are_signed_key_files(dist, signer):
    k = keyfiles.make_key(day="2020-10-08", trl=6, dsos=2)
    dist.add_day("EUR", "2020-10-09", [k])
    dist.add_hour("EUR", "2020-10-10", 5, [k])
    for path, start in [(day_path("EUR", "2020-10-09"), 1_602_201_600),
                        (hour_path("EUR", "2020-10-10", 5), 1_602_288_000 + 5 * 3600)]:
        status, headers, body = call(dist.url + path)
        assert status == 200 and headers["content-type"] == "application/zip"
        assert keyfiles.verify_package(body, signer)
        export = keyfiles.parse_export(keyfiles.read_package(body)[0])
        assert list(export.keys) == [k] and export.region == "EUR"
        assert export.start_timestamp == start
    assert call(dist.url + day_path("EUR", "2020-10-01"))[0] == 404
    assert call(dist.url + hour_path("EUR", "2020-10-10", 6))[0] == 404


def test_every_answer_has_strong_etag_cache_control_and_date(dist):
    dist.add_day("EUR", "2020-10-09")
    for path in [KEYS, f"{KEYS}/EUR/date", day_path("EUR", "2020-10-09"),
                 "/version/v2/app_config_android", "/version/v2/app_config_ios"]:
        status, headers, body = call(dist.url + path)
        assert status == 200
        assert headers["etag"] == '"' + hashlib.sha256(body).hexdigest() + '"'
        assert headers["cache-control"] == "max-age=300"
        assert abs(parsedate_to_datetime(headers["date"]).timestamp() - time.time()) < 5


def test_if_none_match_gives_304_until_the_package_changes(dist):
    etag = dist.add_day("EUR", "2020-10-09", [keyfiles.make_key()])
    path = day_path("EUR", "2020-10-09")
    assert dist.etag(path) == etag
    status, headers, body = call(dist.url + path, headers={"If-None-Match": etag})
    assert (status, body, headers["etag"]) == (304, b"", etag)
    assert call(dist.url + path, headers={"If-None-Match": 'W/' + etag})[0] == 304
    assert call(dist.url + path, headers={"If-None-Match": '"other", ' + etag})[0] == 304
    new = dist.add_day("EUR", "2020-10-09", [keyfiles.make_key()])  # re-published
    assert new != etag
    status, headers, _ = call(dist.url + path, headers={"If-None-Match": etag})
    assert status == 200 and headers["etag"] == new


def test_config_is_stable_until_changed_and_answers_304(dist):
    path = "/version/v2/app_config_android"
    etag = call(dist.url + path)[1]["etag"]
    assert call(dist.url + path)[1]["etag"] == etag
    assert call(dist.url + path, headers={"If-None-Match": etag})[0] == 304
    cfg = protos.ApplicationConfigurationAndroid(minVersionCode=2)
    dist.set_app_config(cfg)
    assert call(dist.url + path, headers={"If-None-Match": etag})[0] == 200


def test_config_packages_have_no_header_and_verify(dist, signer):
    cfg = protos.ApplicationConfigurationAndroid(supportedCountries=["DE"])
    cfg.presenceTracingParameters.CopyFrom(protos.production_like_presence_tracing())
    dist.set_app_config(cfg)
    dist.set_app_config(protos.ApplicationConfigurationIOS(supportedCountries=["FR"]), "ios")
    body = call(dist.url + "/version/v2/app_config_android")[2]
    assert keyfiles.verify_package(body, signer)
    assert protos.ApplicationConfigurationAndroid.FromString(keyfiles.read_package(body)[0]) == cfg
    body = call(dist.url + "/version/v2/app_config_ios")[2]
    assert protos.ApplicationConfigurationIOS.FromString(
        keyfiles.read_package(body)[0]).supportedCountries == ["FR"]
    dist.set_app_config(b"\xff\xff", "android")
    assert keyfiles.read_package(call(dist.url + "/version/v2/app_config_android")[2])[0] == b"\xff\xff"


def test_revocation_lists_the_etag_in_the_configuration(dist):
    old = dist.add_day("EUR", "2020-10-09", [keyfiles.make_key()])
    dist.add_hour("EUR", "2020-10-10", 2)
    dist.revoke_day("EUR", "2020-10-09")
    hour_etag = dist.revoke_hour("EUR", "2020-10-10", 2)
    new = dist.add_day("EUR", "2020-10-09", [keyfiles.make_key()])
    body = call(dist.url + "/version/v2/app_config_android")[2]
    kdp = protos.ApplicationConfigurationAndroid.FromString(keyfiles.read_package(body)[0]).keyDownloadParameters
    assert [(p.region, p.date, p.etag) for p in kdp.revokedDayPackages] == [("EUR", "2020-10-09", old)]
    assert [(p.region, p.date, p.hour, p.etag) for p in kdp.revokedHourPackages] == [
        ("EUR", "2020-10-10", 2, hour_etag)]
    assert call(dist.url + day_path("EUR", "2020-10-09"))[1]["etag"] == new
    body = call(dist.url + "/version/v2/app_config_ios")[2]
    ios = protos.ApplicationConfigurationIOS.FromString(keyfiles.read_package(body)[0])
    assert ios.keyDownloadParameters.revokedDayPackages[0].etag == old


def test_remove_day_and_hour(dist):
    dist.add_day("EUR", "2020-10-08")
    dist.add_day("EUR", "2020-10-09")
    dist.add_hour("EUR", "2020-10-10", 1)
    dist.remove_day("EUR", "2020-10-08")
    dist.remove_hour("EUR", "2020-10-10", 1)
    assert get_json(dist, f"{KEYS}/EUR/date") == ["2020-10-09"]
    assert call(dist.url + day_path("EUR", "2020-10-08"))[0] == 404
    assert call(dist.url + hour_path("EUR", "2020-10-10", 1))[0] == 404


def test_etag_override(dist):
    dist.add_day("EUR", "2020-10-09")
    path = day_path("EUR", "2020-10-09")
    dist.set_etag(path, '"fixed"')
    assert call(dist.url + path)[1]["etag"] == '"fixed"'
    assert call(dist.url + path, headers={"If-None-Match": '"fixed"'})[0] == 304


def test_date_header_skew(dist):
    dist.date_offset = -7200
    date = parsedate_to_datetime(call(dist.url + KEYS)[1]["date"]).timestamp()
    assert abs(date - (time.time() - 7200)) < 5


# --- trace warning packages ------------------------------------------------

def test_twp_index_packages_and_empty_package(dist, signer):
    report = protos.CheckInProtectedReport(locationIdHash=b"h" * 32, iv=b"i" * 16,
                                           encryptedCheckInRecord=b"e" * 16, mac=b"m" * 32)
    dist.add_twp("DE", 448_000, reports=[report])
    dist.add_twp("DE", 448_003, package=b"")
    assert get_json(dist, "/version/v2/twp/country/DE/hour") == {"oldest": 448_000, "latest": 448_003}
    status, headers, body = call(dist.url + twp_path("DE", 448_000))
    assert status == 200 and keyfiles.verify_package(body, signer)
    data = keyfiles.read_package(body)[0]
    pkg = protos.TraceWarningPackage.FromString(data)  # no header
    assert (pkg.intervalNumber, pkg.region, list(pkg.checkInProtectedReports)) == (448_000, "DE", [report])
    for h in (448_001, 448_003):  # in range without a package, and explicitly empty
        status, headers, body = call(dist.url + twp_path("DE", h))
        assert (status, headers["content-length"], body) == (200, "0", b"")
        assert "etag" in headers
    assert call(dist.url + twp_path("DE", 448_004))[0] == 404
    assert call(dist.url + "/version/v2/twp/country/FR/hour")[0] == 404
    dist.set_twp_index("DE", 447_990, 448_010)
    assert get_json(dist, "/version/v2/twp/country/DE/hour") == {"oldest": 447_990, "latest": 448_010}
    dist.remove_twp("DE", 448_000)
    assert call(dist.url + twp_path("DE", 448_000))[2] == b""


def test_twp_from_a_message(dist, signer):
    pkg = protos.TraceWarningPackage(intervalNumber=5, region="DE")
    pkg.timeIntervalWarnings.add(locationIdHash=b"x" * 32, startIntervalNumber=1, period=2,
                                 transmissionRiskLevel=3)
    etag = dist.add_twp("DE", 5, pkg)
    status, headers, body = call(dist.url + twp_path("DE", 5))
    assert headers["etag"] == etag
    assert protos.TraceWarningPackage.FromString(keyfiles.read_package(body)[0]) == pkg


# --- faults --------------------------------------------------------------------

def test_missing_etag_fault(dist):
    dist.add_day("EUR", "2020-10-09")
    dist.inject(day_path("EUR", "2020-10-09"), omit_headers="ETag")
    status, headers, _ = call(dist.url + day_path("EUR", "2020-10-09"))
    assert status == 200 and "etag" not in headers


def test_truncated_package_fault(dist):
    dist.add_day("EUR", "2020-10-09", [keyfiles.make_key()])
    dist.inject(f"{KEYS}/EUR/date/", truncate=True, prefix=True)
    with pytest.raises(http.client.IncompleteRead):
        call(dist.url + day_path("EUR", "2020-10-09"))


def test_tampered_package_keeps_its_etag_but_fails_verification(dist, signer):
    good = keyfiles.key_file([keyfiles.make_key()], signer)
    etag = dist.add_day("EUR", "2020-10-09", package=good)
    dist.inject(day_path("EUR", "2020-10-09"), tamper=keyfiles.tamper_package)
    status, headers, body = call(dist.url + day_path("EUR", "2020-10-09"))
    assert headers["etag"] == etag and not keyfiles.verify_package(body, signer)
    # or publish a bad package outright
    dist.add_day("EUR", "2020-10-08", package=keyfiles.tamper_package(good))
    assert not keyfiles.verify_package(call(dist.url + day_path("EUR", "2020-10-08"))[2], signer)


def test_slow_and_failing_index(dist):
    dist.inject(KEYS, delay=0.2)
    dist.inject(KEYS, status=503)
    t = time.monotonic()
    assert call(dist.url + KEYS)[0] == 200 and time.monotonic() - t >= 0.2
    assert call(dist.url + KEYS)[0] == 503
    assert call(dist.url + KEYS)[0] == 200


def test_post_is_405(dist):
    assert call(dist.url + KEYS, "POST", b"")[0] == 405
