"""Tests of the `encore` command-line tool (`encore export inspect`).

They run the built binary: $ENCORE_CLI, or else <repo>/build/bin/encore
(`make cli` builds it). Run with `python3 -m pytest -q Tests/cli`.

Facts about the sample files are checked against an independent reading of
export.bin written here in Python (a small protobuf decoder), and against
en-server's keys.json.
"""

import base64
import json
import os
import shutil
import struct
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "Tests"))
from standins.wire import field, fixed64  # noqa: E402
EXPORTS = REPO / "Tests" / "data" / "exports"
CLI = Path(os.environ.get("ENCORE_CLI", REPO / "build" / "bin" / "encore"))

GOOGLE = EXPORTS / "google-sample" / "sample_diagnosis_key_file.zip"
GOOGLE_PEM = EXPORTS / "google-sample" / "public_310-v1.pem"
GOOGLE_TRUST = f"310:v1:{GOOGLE_PEM}"
EN_SERVER = EXPORTS / "en-server" / "testExport-2-records-1-of-1.zip"
EN_SERVER_PEM = EXPORTS / "en-server" / "public.pem"
EN_SERVER_TRUST = f"some_id:1:{EN_SERVER_PEM}"
CONTRAC = EXPORTS / "contrac" / "sample_diagnosis_key_file.zip"
COMPANION = EXPORTS / "companion" / "demo_dks.zip"
IMMUNI = EXPORTS / "immuni" / "export.bin"
GOOGLE_CPP = EXPORTS / "google-cpp" / "export.bin"

TOP_FIELDS = [
    "region", "batch_num", "batch_size", "start_timestamp", "end_timestamp",
    "key_count", "revised_key_count", "invalid_key_count", "signature",
]
SIGNATURE_FIELDS = ["status", "key_id", "key_version"]
KEY_FIELDS = [
    "key_data", "transmission_risk_level", "rolling_start_interval_number",
    "rolling_period", "report_type", "days_since_onset_of_symptoms",
]
REPORT_TYPES = ["unknown", "confirmed_test", "confirmed_clinical_diagnosis", "self_report", "recursive", "revoked"]
HEADER = b"EK Export v1    "


@pytest.fixture(scope="session", autouse=True)
def cli_binary():
    if not (CLI.is_file() and os.access(CLI, os.X_OK)):
        pytest.fail(f"{CLI} is missing: build it with `make cli` or set ENCORE_CLI", pytrace=False)


def run(*args):
    return subprocess.run([str(CLI), *map(str, args)], capture_output=True, text=True, timeout=120)


def inspect_json(path, *args):
    r = run("export", "inspect", path, "--json", *args)
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""
    return json.loads(r.stdout)


def assert_failure(result, code, described=False):
    """Exit `code`; for exit 1 exactly one stderr line. Nothing on stdout,
    unless `described`: a readable file whose signature is not trusted is
    still described (its signature status says why) before the failure."""
    assert result.returncode == code, (result.stdout, result.stderr)
    assert (result.stdout != "") == described, result.stdout
    assert result.stderr.strip() != ""
    if code == 1:
        lines = result.stderr.splitlines()
        assert len(lines) == 1, result.stderr
        assert lines[0].startswith("encore: ")
        assert result.stderr.endswith("\n")


# --- an independent reader of export.bin -------------------------------------

def varint(buf, i):
    shift = value = 0
    while True:
        b = buf[i]
        i += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return value, i


def fields(buf):
    """(field number, wire type, value) of one protobuf message."""
    i = 0
    while i < len(buf):
        tag, i = varint(buf, i)
        num, wire = tag >> 3, tag & 7
        if wire == 0:
            value, i = varint(buf, i)
        elif wire == 2:
            n, i = varint(buf, i)
            value, i = buf[i:i + n], i + n
        elif wire == 1:
            value, i = buf[i:i + 8], i + 8
        elif wire == 5:
            value, i = buf[i:i + 4], i + 4
        else:
            raise ValueError(f"wire type {wire}")
        yield num, wire, value


def int32(v):
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v >= 1 << 31 else v


def decode_key(buf):
    key = {"key_data": None, "transmission_risk_level": 0, "rolling_start_interval_number": 0,
           "rolling_period": 144, "report_type": "unknown", "days_since_onset_of_symptoms": None}
    for num, _, v in fields(buf):
        if num == 1:
            key["key_data"] = bytes(v).hex()
        elif num == 2:
            key["transmission_risk_level"] = int32(v)
        elif num == 3:
            key["rolling_start_interval_number"] = int32(v)
        elif num == 4:
            key["rolling_period"] = int32(v)
        elif num == 5:
            key["report_type"] = REPORT_TYPES[v]
        elif num == 6:
            key["days_since_onset_of_symptoms"] = (v >> 1) ^ -(v & 1)  # sint32
    return key


def read_export(path):
    """Metadata and keys of a zip's export.bin or a bare export.bin."""
    data = Path(path).read_bytes()
    if not data.startswith(HEADER):
        with zipfile.ZipFile(path) as z:
            data = z.read("export.bin")
    assert data.startswith(HEADER)
    out = {"region": None, "batch_num": None, "batch_size": None,
           "start_timestamp": None, "end_timestamp": None, "keys": [], "revised_keys": []}
    for num, _, v in fields(data[len(HEADER):]):
        if num == 1:
            out["start_timestamp"] = struct.unpack("<Q", v)[0]  # fixed64
        elif num == 2:
            out["end_timestamp"] = struct.unpack("<Q", v)[0]
        elif num == 3:
            out["region"] = bytes(v).decode()
        elif num == 4:
            out["batch_num"] = int32(v)
        elif num == 5:
            out["batch_size"] = int32(v)
        elif num == 7:
            out["keys"].append(decode_key(v))
        elif num == 8:
            out["revised_keys"].append(decode_key(v))
    return out


# --- writing export.bin files for the tests ----------------------------------

def make_export_bin(region, keys, start=1_600_000_000, end=1_600_086_400):
    body = fixed64(1, start) + fixed64(2, end) + field(3, region) + field(4, 1) + field(5, 1)
    for k in keys:
        body += field(7, k)
    return HEADER + body


def make_key(data, risk, start, period=None, report=None, onset=None):
    k = field(1, data) + field(2, risk) + field(3, start)
    if period is not None:
        k += field(4, period)
    if report is not None:
        k += field(5, report)
    if onset is not None:
        k += field(6, (onset << 1) ^ (onset >> 31))  # sint32
    return k


# --- JSON facts of the sample files ------------------------------------------

SAMPLES = [
    # path, extra arguments, region, batch, key count, signature
    (GOOGLE, ["--trust", GOOGLE_TRUST], "US", 1, 140, {"status": "verified", "key_id": "310", "key_version": "v1"}),
    (EN_SERVER, ["--trust", EN_SERVER_TRUST], "US", 1, 2, {"status": "verified", "key_id": "some_id", "key_version": "1"}),
    (CONTRAC, ["--no-verify"], "US", 1, 110, {"status": "skipped", "key_id": None, "key_version": "v1"}),
    (COMPANION, ["--no-verify"], None, None, 2392, {"status": "skipped", "key_id": None, "key_version": None}),
    (IMMUNI, ["--no-verify"], "222", 1, 3, {"status": "skipped", "key_id": None, "key_version": None}),
    (GOOGLE_CPP, ["--no-verify"], "US", 1, 200, {"status": "skipped", "key_id": None, "key_version": None}),
]


@pytest.mark.parametrize("path,args,region,batch,count,signature", SAMPLES, ids=lambda v: getattr(v, "parent", None) and v.parent.name)
def test_json_facts(path, args, region, batch, count, signature):
    obj = inspect_json(path, *args)
    assert list(obj) == TOP_FIELDS
    assert list(obj["signature"]) == SIGNATURE_FIELDS
    assert obj["region"] == region
    assert obj["batch_num"] == batch and obj["batch_size"] == batch
    assert obj["key_count"] == count
    assert obj["revised_key_count"] == 0
    assert obj["invalid_key_count"] == 0
    assert obj["signature"] == signature
    expected = read_export(path)
    for name in ("region", "batch_num", "batch_size", "start_timestamp", "end_timestamp"):
        assert obj[name] == expected[name], name
    assert obj["key_count"] == len(expected["keys"])


@pytest.mark.parametrize("path,args,region,batch,count,signature", SAMPLES, ids=lambda v: getattr(v, "parent", None) and v.parent.name)
def test_json_keys_match_export_bin(path, args, region, batch, count, signature):
    obj = inspect_json(path, *args, "--keys")
    assert list(obj) == TOP_FIELDS + ["keys", "revised_keys"]
    assert len(obj["keys"]) == obj["key_count"] == count
    assert len(obj["revised_keys"]) == obj["revised_key_count"]
    for key in obj["keys"]:
        assert list(key) == KEY_FIELDS
        assert len(key["key_data"]) == 32 and key["key_data"] == key["key_data"].lower()
    expected = read_export(path)
    assert obj["keys"] == expected["keys"]
    assert obj["revised_keys"] == expected["revised_keys"]


def test_google_sample_time_window():
    obj = inspect_json(GOOGLE, "--trust", GOOGLE_TRUST)
    assert obj["start_timestamp"] == 1593633600  # 2020-07-01T20:00:00Z
    assert obj["end_timestamp"] == 1593633900


def test_en_server_keys_equal_keys_json():
    obj = inspect_json(EN_SERVER, "--trust", EN_SERVER_TRUST, "--keys")
    listed = json.loads((EXPORTS / "en-server" / "keys.json").read_text())["temporaryExposureKeys"]
    expected = sorted(
        (base64.b64decode(k["key"]).hex(), k["rollingStartNumber"], k["rollingPeriod"], k["transmissionRisk"])
        for k in listed)
    got = sorted(
        (k["key_data"], k["rolling_start_interval_number"], k["rolling_period"], k["transmission_risk_level"])
        for k in obj["keys"])
    assert got == expected
    assert obj["revised_keys"] == []


def test_without_keys_flag_there_are_no_key_arrays():
    obj = inspect_json(EN_SERVER, "--trust", EN_SERVER_TRUST)
    assert "keys" not in obj and "revised_keys" not in obj


def test_one_of_several_trusted_keys_verifies():
    obj = inspect_json(GOOGLE, "--trust", EN_SERVER_TRUST, "--trust", GOOGLE_TRUST)
    assert obj["signature"]["status"] == "verified"


def test_trust_path_may_contain_colons(tmp_path):
    pem = tmp_path / "key:with:colons.pem"
    shutil.copy(GOOGLE_PEM, pem)
    obj = inspect_json(GOOGLE, "--trust", f"310:v1:{pem}")
    assert obj["signature"] == {"status": "verified", "key_id": "310", "key_version": "v1"}


def test_no_verify_ignores_the_signature():
    obj = inspect_json(GOOGLE, "--no-verify")
    assert obj["signature"] == {"status": "skipped", "key_id": "310", "key_version": "v1"}


def test_json_string_escaping_and_optional_key_fields(tmp_path):
    region = 'a"b\\c\nd\te\x01f\u2028g é 日本'
    keys = [make_key(bytes(range(16)), 5, 2_650_000, period=72, report=3, onset=-3),
            make_key(bytes(range(16, 32)), 0, 2_650_144)]
    path = tmp_path / "export.bin"
    path.write_bytes(make_export_bin(region, keys))
    r = run("export", "inspect", path, "--no-verify", "--json", "--keys")
    assert r.returncode == 0, r.stderr
    raw = r.stdout
    assert "\n" not in raw.split('"region": ')[1].split(",")[0]  # no raw control characters in the string
    obj = json.loads(raw)
    assert obj["region"] == region
    assert obj["keys"][0] == {
        "key_data": bytes(range(16)).hex(), "transmission_risk_level": 5, "rolling_start_interval_number": 2_650_000,
        "rolling_period": 72, "report_type": "self_report", "days_since_onset_of_symptoms": -3}
    assert obj["keys"][1]["rolling_period"] == 144
    assert obj["keys"][1]["report_type"] == "unknown"
    assert obj["keys"][1]["days_since_onset_of_symptoms"] is None


def test_invalid_keys_are_counted(tmp_path):
    keys = [make_key(bytes(16), 1, 2_650_000), make_key(bytes(15), 1, 2_650_000)]
    path = tmp_path / "export.bin"
    path.write_bytes(make_export_bin("DE", keys))
    obj = inspect_json(path, "--no-verify", "--keys")
    assert obj["key_count"] == 1 and obj["invalid_key_count"] == 1
    assert len(obj["keys"]) == 1


# --- human output ------------------------------------------------------------

def test_human_summary():
    r = run("export", "inspect", GOOGLE, "--trust", GOOGLE_TRUST)
    assert r.returncode == 0 and r.stderr == ""
    text = r.stdout
    for expected in ("US", "1 of 1", "2020-07-01T20:00:00Z", "2020-07-01T20:05:00Z", "140", "verified", "310", "v1"):
        assert expected in text, expected
    assert "{" not in text


def test_human_keys_one_line_each():
    r = run("export", "inspect", EN_SERVER, "--trust", EN_SERVER_TRUST, "--keys")
    assert r.returncode == 0 and r.stderr == ""
    for key in read_export(EN_SERVER)["keys"]:
        lines = [l for l in r.stdout.splitlines() if key["key_data"] in l]
        assert len(lines) == 1
        assert str(key["rolling_start_interval_number"]) in lines[0]


def test_human_output_escapes_control_characters(tmp_path):
    path = tmp_path / "export.bin"
    path.write_bytes(make_export_bin("X\nY\x1b[31m", [make_key(bytes(16), 1, 2_650_000)]))
    r = run("export", "inspect", path, "--no-verify")
    assert r.returncode == 0, r.stderr
    assert "\x1b" not in r.stdout
    region_lines = [l for l in r.stdout.splitlines() if l.startswith("region:")]
    assert len(region_lines) == 1 and "X\\nY" in region_lines[0]


def test_human_key_start_times_in_utc(tmp_path):
    import datetime
    import random
    rng = random.Random(7)
    intervals = [0, 1, 143, 144, 2_649_980, 2**31 - 1, -1, -144, -(2**31)] + [rng.randrange(-2**31, 2**31) for _ in range(40)]
    keys = [make_key(i.to_bytes(16, "big", signed=True), 0, i) for i in intervals]
    path = tmp_path / "export.bin"
    path.write_bytes(make_export_bin("US", keys))
    r = run("export", "inspect", path, "--no-verify", "--keys")
    assert r.returncode == 0, r.stderr
    rows = {l.split()[0]: l.split() for l in r.stdout.splitlines() if l.startswith("  ") and len(l.split()) == 7}
    epoch = datetime.datetime(1970, 1, 1)
    for i in intervals:
        row = rows[i.to_bytes(16, "big", signed=True).hex()]
        assert row[2] == str(i)
        try:
            expected = (epoch + datetime.timedelta(seconds=600 * i)).strftime("%Y-%m-%dT%H:%M:%SZ")
        except OverflowError:  # before year 1: Python has no date for it
            continue
        assert row[3] == expected, i


def test_help_exits_0():
    r = run("export", "inspect", "--help")
    assert r.returncode == 0
    assert "--trust" in r.stdout and "--no-verify" in r.stdout


# --- exit 1: invalid or untrusted files --------------------------------------

def test_untrusted_without_key():
    r = run("export", "inspect", CONTRAC)
    assert_failure(r, 1, described=True)
    assert str(CONTRAC) in r.stderr and "trusted" in r.stderr
    assert "untrusted" in r.stdout


def test_untrusted_with_an_unrelated_key():
    r = run("export", "inspect", CONTRAC, "--trust", GOOGLE_TRUST, "--json")
    assert_failure(r, 1, described=True)
    assert json.loads(r.stdout)["signature"] == {"status": "untrusted", "key_id": None, "key_version": "v1"}


def test_signed_file_without_trust_is_untrusted():
    r = run("export", "inspect", GOOGLE, "--json")
    assert_failure(r, 1, described=True)
    assert "trusted" in r.stderr
    report = json.loads(r.stdout)
    assert report["signature"] == {"status": "untrusted", "key_id": "310", "key_version": "v1"}
    assert report["key_count"] == 140


def test_wrong_key_under_the_right_name_is_invalid():
    r = run("export", "inspect", GOOGLE, "--trust", f"310:v1:{EN_SERVER_PEM}", "--json")
    assert_failure(r, 1, described=True)
    assert "invalid" in r.stderr
    assert json.loads(r.stdout)["signature"]["status"] == "invalid"


@pytest.mark.parametrize("path", [COMPANION, IMMUNI], ids=["companion", "immuni"])
def test_unsigned_needs_no_verify(path):
    r = run("export", "inspect", path, "--json")
    assert_failure(r, 1, described=True)
    assert "not signed" in r.stderr
    assert json.loads(r.stdout)["signature"]["status"] == "unsigned"


def test_corrupted_file(tmp_path):
    data = bytearray(GOOGLE.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path = tmp_path / "corrupted.zip"
    path.write_bytes(bytes(data))
    assert_failure(run("export", "inspect", path, "--trust", GOOGLE_TRUST), 1)
    assert_failure(run("export", "inspect", path, "--no-verify", "--json"), 1)


def test_not_a_zip(tmp_path):
    path = tmp_path / "random.zip"
    path.write_bytes(os.urandom(4096))
    r = run("export", "inspect", path, "--no-verify")
    assert_failure(r, 1)
    assert str(path) in r.stderr


def test_missing_file(tmp_path):
    assert_failure(run("export", "inspect", tmp_path / "nope.zip", "--no-verify"), 1)


def test_failure_line_escapes_newlines_in_the_path(tmp_path):
    path = tmp_path / "two\nlines.zip"
    path.write_bytes(b"PK\x03\x04 not really")
    assert_failure(run("export", "inspect", path, "--no-verify"), 1)


# --- exit 2: usage errors ----------------------------------------------------

@pytest.mark.parametrize("trust", [
    "310", "310:v1", f"310:v1:", f"{GOOGLE_PEM}",
    "310:v1:/nonexistent/key.pem",
    f"310:v1:{EXPORTS / 'en-server' / 'keys.json'}",  # not a key
    f"310:v1:{EXPORTS}",  # a directory
])
def test_bad_trust_is_a_usage_error(trust):
    r = run("export", "inspect", GOOGLE, "--trust", trust)
    assert_failure(r, 2)
    assert "--trust" in r.stderr


def test_missing_file_argument():
    r = run("export", "inspect", "--no-verify")
    assert_failure(r, 2)
    assert "<file>" in r.stderr


def test_unknown_option():
    r = run("export", "inspect", GOOGLE, "--frobnicate")
    assert_failure(r, 2)
    assert "--frobnicate" in r.stderr


def test_missing_trust_value():
    assert_failure(run("export", "inspect", GOOGLE, "--trust"), 2)


@pytest.mark.parametrize("args", [[], ["export"], ["frobnicate"], ["export", "frobnicate"]])
def test_missing_or_unknown_subcommand(args):
    assert_failure(run(*args), 2)
