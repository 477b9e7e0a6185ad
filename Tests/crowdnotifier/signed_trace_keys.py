"""Trace keys as a CrowdNotifier backend serves them: the body with the
Signature header of its answer (an ES256 JWT whose content-hash claim is
the body's SHA-256), written next to the body with the backend's public
key, for `encore checkin match --trace-keys FILE --signature FILE
--crowdnotifier-key PEM`."""
import base64
import hashlib
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from standins import jws  # noqa: E402


def sign_trace_keys(keys_file, signer):
    """Writes `<keys_file>.jwt` and `<keys_file>.pem`; returns their paths."""
    keys_file = Path(keys_file)
    body = keys_file.read_bytes()
    now = int(time.time())
    claims = {"content-hash": base64.b64encode(hashlib.sha256(body).digest()).decode(), "hash-alg": "sha-256",
              "iss": "crowdnotifier", "iat": now, "exp": now + 14 * 86400}
    signature = keys_file.with_name(keys_file.name + ".jwt")
    signature.write_text(jws.sign(claims, signer.private_key))
    key = keys_file.with_name(keys_file.name + ".pem")
    key.write_bytes(signer.public_pem)
    return signature, key
