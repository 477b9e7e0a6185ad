"""`encore detect`: a simulated contact's broadcasts become the store's
sightings (imported as CSV); its key is published in a key file written
here by hand (not by encore's writer); detect must find exactly the
encounter and nothing else."""
import json
import os
import subprocess
import sys
import time
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CLI = Path(os.environ.get("ENCORE_CLI", REPO / "build" / "bin" / "encore"))
sys.path.insert(0, str(REPO / "bindings/python"))
sys.path.insert(0, str(REPO / "Tests"))
import encore  # noqa: E402
import pytest  # noqa: E402
from encore import crypto  # noqa: E402
from standins.wire import field, fixed64  # noqa: E402

DAY = 19_000                      # UTC day number
MIDNIGHT = DAY * 86_400
NOW = MIDNIGHT + 2 * 86_400
RAW_KEY = "ab" * 32


def run(*args, env_key=True):
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENCORE_DB_KEY")}
    if env_key:
        env["ENCORE_DB_KEY_HEX"] = RAW_KEY
    return subprocess.run([str(CLI), *map(str, args)], capture_output=True, text=True, env=env, timeout=120)


def key_message(tek, start, dsos_zigzag=2, report_type=1, period=144, trl=6):
    return (field(1, tek) + field(2, trl) + field(3, start) + field(4, period)
            + field(5, report_type) + field(6, dsos_zigzag))


def key_file(path, keys, end=None):
    # end_timestamp (field 2, fixed64) when given: how fresh the keys are.
    stamp = fixed64(2, end) if end is not None else b""
    body = stamp + field(3, b"DE") + field(4, 1) + field(5, 1) + b"".join(field(7, k) for k in keys)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("export.bin", b"EK Export v1    " + body)


def sightings(tek, start_time, scans, rssi, tx_power=-10, gap=240):
    """What the user's device heard: one sighting per scan, `gap` seconds apart."""
    rpik, aemk = crypto.rpik(tek), crypto.aemk(tek)
    metadata = bytes([0x40 | (2 << 2), tx_power & 0xFF, 0, 0])   # calibration confidence 2
    rows = []
    for i in range(scans):
        t = start_time + i * gap
        rpi = crypto.rpis(rpik, t // 600, 1)[0]
        rows.append(f"{t},{rpi.hex()},{crypto.aem(aemk, rpi, metadata).hex()},{rssi},{t - gap}")
    return rows


def test_detect_finds_the_encounter(tmp_path):
    db = tmp_path / "store.db"
    contact = bytes(range(16))
    stranger = bytes(range(16, 32))   # published, never heard
    csv = tmp_path / "heard.csv"
    noise = [f"{MIDNIGHT + 100 + i},{(b'%016d' % i).hex()},00000000,-80," for i in range(50)]
    csv.write_text("time,rpi,aem,rssi,prev_scan\n" + "\n".join(sightings(contact, MIDNIGHT + 9 * 3600, 5, rssi=-65) + noise) + "\n")
    assert run("store", "init", "--db", db).returncode == 0
    r = run("sightings", "import", "--db", db, csv)
    assert r.returncode == 0, r.stderr

    keys = tmp_path / "keys.zip"
    key_file(keys, [key_message(contact, DAY * 144), key_message(stranger, DAY * 144)])
    r = run("detect", "--db", db, "--no-verify", "--now", NOW, "--json", keys)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["statistics"]["keys"] == 2 and out["statistics"]["matchedKeys"] == 1
    assert out["exposureWindows"] == [{
        # Days are "YYYY-MM-DD" in every JSON form of encore.
        "date": time.strftime("%Y-%m-%d", time.gmtime(MIDNIGHT)), "reportType": 1, "infectiousness": 1, "calibrationConfidence": 2,
        # TX power -10 dBm, RSSI -65 dBm: 55 dB; one scan every 4 minutes.
        "scanInstances": [{"minAttenuation": 55, "typicalAttenuation": 55, "secondsSinceLastScan": 240}] * 5,
    }]
    summary = out["summaryV1"]
    assert summary["matchedKeyCount"] == 1 and summary["daysSinceLastExposure"] == 2
    assert summary["attenuationDurations"] == [1200, 0, 0]

    text = run("detect", "--db", db, "--no-verify", "--now", NOW, keys)
    assert text.returncode == 0 and "1 matched" in text.stdout

    # The windows go on to `encore risk` as they are, and so does the check
    # with the built-in CWA configuration (no --config needed).
    windows = tmp_path / "windows.json"
    windows.write_text(r.stdout)
    risk = run("risk", "--windows", windows, "--now", NOW, "--json")
    assert risk.returncode == 0, risk.stderr
    assessment = json.loads(risk.stdout)
    assert assessment["totalRiskLevel"] in ("LOW", "HIGH") and len(assessment["days"]) == 1
    assert assessment["days"][0]["date"] == time.strftime("%Y-%m-%d", time.gmtime(MIDNIGHT))
    check = run("check", "--db", db, "--no-verify", "--now", NOW, "--json", keys)
    assert check.returncode == 0, check.stderr
    document = json.loads(check.stdout)
    assert document["assessment"] == assessment and document["windowCount"] == 1
    assert document["status"] == assessment["totalRiskLevel"] == "HIGH" and document["reason"] is None


@pytest.mark.parametrize("end, tracing_hours, status, why", [
    (None, 48, "OUTDATED", "no keys"),                              # no key file names its end
    (NOW - 3 * 86_400, 48, "OUTDATED", "the newest keys are from"),  # keys 72 h old
    (NOW - 3600, 5, "UNKNOWN", "only 5 h of active tracing in the last 14 days (24 h needed)"),
])
def test_check_says_why_it_is_unknown_or_outdated(tmp_path, end, tracing_hours, status, why):
    db = tmp_path / "store.db"
    assert run("store", "init", "--db", db).returncode == 0
    csv = tmp_path / "heard.csv"
    csv.write_text("time,rpi,aem,rssi,prev_scan\n" + f"{NOW - tracing_hours * 3600},{'00' * 16},00000000,-80,\n")
    assert run("sightings", "import", "--db", db, csv).returncode == 0
    keys = tmp_path / "keys.zip"
    key_file(keys, [key_message(bytes(16), DAY * 144)], end=end)
    env_now = ["--now", NOW]
    # Tracing switched on tracing_hours before now (the tool has no tracing
    # command: the Python bindings add it).
    with encore.Client.open(str(db), raw_key=bytes.fromhex(RAW_KEY), clock=NOW) as client:
        client.tracing_history.add(NOW - tracing_hours * 3600, True)
    r = run("check", "--db", db, "--no-verify", *env_now, "--json", keys)
    assert r.returncode == 0, r.stderr
    document = json.loads(r.stdout)
    assert document["status"] == status and why in document["reason"]
    text = run("check", "--db", db, "--no-verify", *env_now, keys)
    assert text.returncode == 0 and f"why: {why}" in text.stdout


def test_detect_refuses_unsigned_files_and_needs_a_key(tmp_path):
    db = tmp_path / "store.db"
    assert run("store", "init", "--db", db).returncode == 0
    keys = tmp_path / "keys.zip"
    key_file(keys, [key_message(bytes(16), DAY * 144)])
    r = run("detect", "--db", db, keys)
    assert r.returncode == 1 and "not signed" in r.stderr and len(r.stderr.splitlines()) == 1
    assert run("detect", "--db", db, keys, env_key=False).returncode == 2
    assert run("detect", "--db", db).returncode == 2
    # Times before 1970 are refused as arguments, not carried into the matching.
    for now in ["-1", str(-2 ** 63)]:
        r = run("detect", "--db", db, "--no-verify", f"--now={now}", keys)
        assert r.returncode == 2 and "--now must not be negative" in r.stderr
