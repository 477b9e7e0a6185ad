"""Stand-in for CWA's point-of-care portal (cwa-quick-test-frontend and
-backend; test-result-and-submission.md, "Rapid tests"): the QR code of a
rapid antigen or rapid PCR test, and the upload of its result to the test
result server, which files it under SHA-256 of the code's `hash` text.

The portal emits padded standard base64 of the JSON with only the eight
known members; `rapid_code` can also make what a good portal never does
(base64url, an upper-case hash, a wrong hash, unknown members) for tests.
"""
import base64
import hashlib
import json
import secrets
import uuid

from .cwa_state import guid_hash

RAT_PREFIX = "https://s.coronawarn.app?v=1#"
RAPID_PCR_PREFIX = "https://p.coronawarn.app?v=1#"


def rapid_hash(timestamp, salt, testid=None, fn=None, ln=None, dob=None):
    """The code's hash: SHA-256 hex of dob#fn#ln#timestamp#testid#salt with
    personal data, of timestamp#salt without."""
    if dob is not None:
        text = f"{dob}#{fn}#{ln}#{timestamp}#{testid}#{salt}"
    else:
        text = f"{timestamp}#{salt}"
    return hashlib.sha256(text.encode()).hexdigest()


def rapid_code(kind="rat", timestamp=1_700_000_000, *, salt=None, testid=None, fn=None, ln=None, dob=None,
               dgc=None, hash=None, url_safe=False, extra=None):
    """(QR URL, hash text) of a rapid test code; kind "rat" or "pcr"."""
    salt = salt or secrets.token_hex(16)
    testid = testid or str(uuid.uuid4())
    payload = {"timestamp": timestamp, "salt": salt, "testid": testid}
    payload["hash"] = hash or rapid_hash(timestamp, salt, testid, fn, ln, dob)
    if dob is not None:
        payload.update(fn=fn, ln=ln, dob=dob)
    if dgc is not None:
        payload["dgc"] = dgc
    payload.update(extra or {})
    raw = json.dumps(payload, separators=(",", ":")).encode()
    text = base64.urlsafe_b64encode(raw).decode().rstrip("=") if url_safe else base64.b64encode(raw).decode()
    return (RAT_PREFIX if kind == "rat" else RAPID_PCR_PREFIX) + text, payload["hash"]


def registration_key(code_hash):
    """What the app registers and the test result server files the result
    under: SHA-256 hex of the hash's 64 characters as they stand."""
    return guid_hash(code_hash)


def upload_result(state, code_hash, result, sc=None, lab_id=None):
    """The portal's upload: a rapid antigen result 5-9 (quicktest/results)
    or a rapid PCR result 10-14 (pocnat/results); the test result server
    reduces 10-14 by 10 on the app's path, so a rapid PCR looks like a lab
    PCR."""
    if not (5 <= result <= 9 or 10 <= result <= 14):
        raise ValueError("a point of care uploads 5-9 (rapid antigen) or 10-14 (rapid PCR)")
    state.set_result(registration_key(code_hash), result - 10 if result >= 10 else result, sc, lab_id)
