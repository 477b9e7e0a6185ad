"""CrowdNotifier v3 across implementations: encore (its CLI and C library)
against a pymcl-based server and client (cn_reference.py) that compute
what the real SwissCovid/NotifyMe servers and SDKs compute.

  - a venue QR made by the reference server is checked into by encore, and
    the server's trace keys (both ProblematicEvent layouts) match it;
  - encore's venue QR is checked into by the reference client, and encore's
    trace keys open the client's ciphertexts; the secret keys equal
    H1(id)^msk computed by pymcl from encore's master secret;
  - hostile secret keys and bodies give statuses through the C API.

Runs $ENCORE_CLI (default build/bin/encore) and $ENCORE_LIBRARY (default
build/lib/libencore.so).
"""
import ctypes
import json
import os
import struct
import subprocess
import sys
from pathlib import Path

import nacl.secret
import pymcl
import pytest

import cn_reference as ref

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "Tests"))
from standins import keyfiles  # noqa: E402

from signed_trace_keys import sign_trace_keys  # noqa: E402

BACKEND = keyfiles.SigningKey(key_id="crowdnotifier", key_version="v1")


def backend_pem(directory):
    """The backend's public key in a PEM file."""
    path = Path(directory) / "backend.pem"
    path.write_bytes(BACKEND.public_pem)
    return path
CLI = Path(os.environ.get("ENCORE_CLI", REPO / "build" / "bin" / "encore"))
LIBRARY = Path(os.environ.get("ENCORE_LIBRARY", REPO / "build" / "lib" / "libencore.so"))
EVENING = 1795629600  # 2026-11-25T18:00:00Z
NOW = str(EVENING + 86400)


def encore(*args, check=True):
    env = dict(os.environ, ENCORE_DB_KEY="crowdnotifier tests")
    p = subprocess.run([str(CLI), *map(str, args)], capture_output=True, text=True, env=env)
    if check and p.returncode != 0:
        pytest.fail("encore %s: exit %d\n%s" % (" ".join(map(str, args)), p.returncode, p.stderr))
    return p


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "client.db"
    encore("store", "init", "--db", path)
    return path


def match(db, keys_file, check=True):
    """`encore checkin match --trace-keys` on the file, signed as the backend signs its answers."""
    signature, key = sign_trace_keys(keys_file, BACKEND)
    p = encore("checkin", "match", "--db", db, "--trace-keys", keys_file, "--signature", signature, "--crowdnotifier-key", key,
               "--now", NOW, "--json", check=check)
    return json.loads(p.stdout) if check else p


@pytest.mark.parametrize("layout", ["swisscovid", "notifyme"])
def test_reference_venue_and_trace_keys_match_in_encore(db, tmp_path, layout):
    venue = ref.Venue(kind=layout)
    out = json.loads(encore("checkin", "add", "--db", db, "--qr", venue.qr, "--start", EVENING + 900, "--end", EVENING + 6000,
                            "--now", NOW, "--json").stdout)
    assert out["checkin"]["kind"] == layout and out["location"]["publicKey"] == venue.mpk.hex()
    keys = tmp_path / "keys.pb"
    # The second hour of the visit, the message and criticality encrypted for its visitors.
    keys.write_bytes(venue.trace_keys(EVENING + 3600, EVENING + 4500, "Bitte lassen Sie sich testen", layout=layout))
    doc = match(db, keys)
    assert doc["totalRiskLevel"] == "HIGH"
    (m,) = doc["crowdNotifierMatches"]
    assert m["message"] == "Bitte lassen Sie sich testen" and m["criticality"] == "HIGH"
    assert (m["arrival"], m["departure"]) == (EVENING + 900, EVENING + 6000)
    assert m["identity"] == ref.identity(venue.payload, EVENING + 3600).hex()
    assert doc["traceKeys"]["pairings"] == 2 and len(doc["traceKeys"]["new"]) == 1
    # Once per (visit, trace key).
    assert match(db, keys)["traceKeys"]["new"] == []
    # Another venue's keys for the same hour: no match, and no pairing (their
    # identities are none of the visited venue's that day).
    other = tmp_path / "other.pb"
    other.write_bytes(ref.Venue().trace_keys(EVENING + 3600, EVENING + 4500, "x", layout=layout))
    doc = match(db, other)
    assert doc["traceKeys"]["matches"] == 0 and doc["traceKeys"]["pairings"] == 0


def test_encore_venue_and_trace_keys_work_in_the_reference(tmp_path):
    msk_file = tmp_path / "venue.msk"
    qr = encore("crowdnotifier", "venue", "--name", "Zunfthaus", "--address", "Limmatquai 1", "--out-secret", msk_file).stdout.strip()
    assert qr.startswith("https://qr.swisscovid.ch?v=4#")
    assert oct(msk_file.stat().st_mode & 0o777) == "0o600"
    payload, mpk = ref.parse_qr(qr)
    msk = pymcl.Fr(str(int.from_bytes(bytes.fromhex(msk_file.read_text().strip()), "little")))
    assert (pymcl.g2 * msk).serialize() == mpk
    # The reference client checks in for two hours.
    _, _, notification_key = ref.nonces(payload)
    record = struct.pack(">qq", EVENING + 600, EVENING + 5000) + notification_key
    stored = {h: ref.encrypt(mpk, ref.identity(payload, h), record) for h in ref.hours(EVENING + 600, EVENING + 5000)}
    keys = tmp_path / "keys.pb"
    encore("crowdnotifier", "trace", "--secret", msk_file, "--qr", qr, "--start", EVENING + 3600, "--end", EVENING + 4000,
           "--message", "Quarantäne", "--out", keys)
    (event,) = ref.events(keys.read_bytes())
    ident, sk = event[2], event[3]
    assert ident == ref.identity(payload, EVENING + 3600) and event[4] == EVENING // 86400 * 86400
    assert sk == (pymcl.G1.hash(ident) * msk).serialize()
    assert ref.decrypt(sk, ident, *stored[EVENING + 3600]) == record
    assert ref.decrypt(sk, ident, *stored[EVENING]) is None
    ad = dict((n, v) for n, _, v in ref.fields(nacl.secret.SecretBox(notification_key).decrypt(event[5], event[6])))
    assert ad[2].decode() == "Quarantäne" and (ad[3], ad[4]) == (EVENING + 3600, EVENING + 4000)


class Lib:
    def __init__(self):
        if not LIBRARY.exists():
            pytest.skip("%s is missing: make lib or set ENCORE_LIBRARY" % LIBRARY)
        self.c = ctypes.CDLL(str(LIBRARY))

        class Bytes(ctypes.Structure):
            _fields_ = [("data", ctypes.POINTER(ctypes.c_uint8)), ("length", ctypes.c_size_t)]
        self.Bytes = Bytes
        cp, sz = ctypes.c_char_p, ctypes.c_size_t
        self.c.encore_crowdnotifier_decrypt.argtypes = [cp, sz, cp, sz, cp, sz, ctypes.POINTER(Bytes)]
        self.c.encore_crowdnotifier_encrypt.argtypes = [cp, sz, cp, sz, cp, sz, ctypes.POINTER(Bytes)]
        self.c.encore_crowdnotifier_derive_identity.argtypes = [cp, sz, ctypes.c_int64, ctypes.c_char_p, sz]
        self.c.encore_bytes_free.argtypes = [ctypes.POINTER(Bytes)]
        self.c.encore_status_name.restype = cp

    def call(self, name, *args):
        out = self.Bytes()
        rc = getattr(self.c, name)(*args, ctypes.byref(out))
        if rc != 0:
            return self.c.encore_status_name(rc).decode(), None
        data = ctypes.string_at(out.data, out.length)
        self.c.encore_bytes_free(ctypes.byref(out))
        return "ENCORE_OK", data


@pytest.fixture(scope="module")
def lib():
    return Lib()


def test_c_api_encrypts_for_the_reference_and_decrypts_its_ciphertexts(lib):
    venue = ref.Venue()
    ident = ref.identity(venue.payload, EVENING)
    out = ctypes.create_string_buffer(32)
    assert lib.c.encore_crowdnotifier_derive_identity(venue.payload, len(venue.payload), EVENING, out, 32) == 0 and out.raw == ident
    status, ct = lib.call("encore_crowdnotifier_encrypt", venue.mpk, 96, ident, 32, b"hello", 5)
    assert status == "ENCORE_OK"
    assert ref.decrypt(venue.secret_key(ident), ident, ct[:96], ct[96:128], ct[152:], ct[128:152]) == b"hello"
    c1, c2, c3, nonce = ref.encrypt(venue.mpk, ident, b"from mcl")
    ct = c1 + c2 + nonce + c3
    assert lib.call("encore_crowdnotifier_decrypt", venue.secret_key(ident), 48, ident, 32, ct, len(ct)) == ("ENCORE_OK", b"from mcl")
    other = ref.identity(venue.payload, EVENING + 3600)
    assert lib.call("encore_crowdnotifier_decrypt", venue.secret_key(other), 48, ident, 32, ct, len(ct))[0] == "ENCORE_ERR_CN_NO_MATCH"


def g1_not_in_subgroup():
    """A point of E(Fp) outside G1: found with pymcl's own parser? mcl refuses
    those, so search x until mcl says no while y^2 = x^3 + 4 has a root."""
    p = 0x1A0111EA397FE69A4B1BA7B6434BACD764774B84F38512BF6730D2A0F6B0F6241EABFFFEB153FFFFB9FEFFFFFFFFAAAB
    x = 1
    while True:
        rhs = (x ** 3 + 4) % p
        if pow(rhs, (p - 1) // 2, p) == 1:
            return x.to_bytes(48, "little")
        x += 1


def g1_off_curve():
    p = 0x1A0111EA397FE69A4B1BA7B6434BACD764774B84F38512BF6730D2A0F6B0F6241EABFFFEB153FFFFB9FEFFFFFFFFAAAB
    x = 1
    while pow((x ** 3 + 4) % p, (p - 1) // 2, p) == 1:
        x += 1
    return x.to_bytes(48, "little")


@pytest.mark.parametrize("name,sk", [
    ("identity", bytes(48)), ("off the curve", g1_off_curve()), ("outside G1", g1_not_in_subgroup()),
    ("x >= p", b"\xff" * 47 + b"\x1f"), ("47 bytes", b"\x01" * 47), ("49 bytes", b"\x01" * 49),
])
def test_hostile_secret_keys_give_a_status(lib, name, sk):
    venue = ref.Venue()
    ident = ref.identity(venue.payload, EVENING)
    if len(sk) == 48 and name == "outside G1":
        with pytest.raises(Exception):
            pymcl.G1.deserialize(sk)  # mcl agrees it is not a point of G1
    c1, c2, c3, nonce = ref.encrypt(venue.mpk, ident, b"m")
    ct = c1 + c2 + nonce + c3
    status, _ = lib.call("encore_crowdnotifier_decrypt", sk, len(sk), ident, 32, ct, len(ct))
    assert status == "ENCORE_ERR_TRACE_KEY_INVALID", name


def test_hostile_trace_key_bodies_in_the_cli(db, tmp_path):
    venue = ref.Venue()
    encore("checkin", "add", "--db", db, "--qr", venue.qr, "--start", EVENING, "--end", EVENING + 600, "--now", NOW)
    day = EVENING // 86400 * 86400
    bad = b"".join(ref.field_bytes(2, ref.field_varint(1, 4) + ref.field_bytes(2, bytes(32)) + ref.field_bytes(3, sk)
                                   + ref.field_varint(4, day) + ref.field_bytes(5, b"x" * 20) + ref.field_bytes(6, bytes(24)))
                   for sk in (bytes(48), g1_off_curve(), g1_not_in_subgroup(), b"\x01" * 47))
    f = tmp_path / "bad.pb"
    f.write_bytes(ref.field_varint(1, 3) + bad)
    doc = match(db, f)
    assert doc["traceKeys"] == {"events": 4, "skipped": 1, "invalidKeys": 3, "pairings": 0, "matches": 0, "new": []}
    for body, message in [(b"\x12\x05\x00", "not a ProblematicEventWrapper"), (b"\x12\x00" * 1_000_000, "more than")]:
        f.write_bytes(body)
        p = match(db, f, check=False)
        assert p.returncode == 1 and message in p.stderr, p.stderr
    # Only what the backend's key signed is matched; the signature and the key go with the keys.
    f.write_bytes(ref.field_varint(1, 3) + bad)
    signature, _ = sign_trace_keys(f, keyfiles.SigningKey(key_id="stranger", key_version="v1"))
    p = encore("checkin", "match", "--db", db, "--trace-keys", f, "--signature", signature, "--crowdnotifier-key",
               backend_pem(tmp_path), "--now", NOW, check=False)
    assert p.returncode == 1 and "JWT" in p.stderr, p.stderr
    p = encore("checkin", "match", "--db", db, "--trace-keys", f, "--now", NOW, check=False)
    assert p.returncode == 2 and "go together" in p.stderr, p.stderr
