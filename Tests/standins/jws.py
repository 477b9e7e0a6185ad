"""ES256 JSON Web Tokens, as the DP-3T backends sign their answers with
(header `Signature`, RFC 7515 compact form, signature = raw r‖s)."""

import base64
import json

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import (
    decode_dss_signature, encode_dss_signature)


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def b64url_decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def sign(claims, private_key, header=None):
    head = {"alg": "ES256", **(header or {})}
    signing_input = (b64url(json.dumps(head, separators=(",", ":")).encode()) + "."
                     + b64url(json.dumps(claims, separators=(",", ":")).encode()))
    r, s = decode_dss_signature(private_key.sign(signing_input.encode(), ec.ECDSA(hashes.SHA256())))
    return signing_input + "." + b64url(r.to_bytes(32, "big") + s.to_bytes(32, "big"))


def verify(token, public_key):
    """The claims of `token` if its ES256 signature verifies, else raises
    ValueError."""
    try:
        head_b64, claims_b64, sig_b64 = token.split(".")
        head = json.loads(b64url_decode(head_b64))
        sig = b64url_decode(sig_b64)
    except (ValueError, TypeError) as e:
        raise ValueError(f"not a compact JWS: {e}") from None
    if head.get("alg") != "ES256" or len(sig) != 64:
        raise ValueError("not an ES256 token")
    der = encode_dss_signature(int.from_bytes(sig[:32], "big"), int.from_bytes(sig[32:], "big"))
    try:
        public_key.verify(der, f"{head_b64}.{claims_b64}".encode(), ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        raise ValueError("signature does not verify") from None
    return json.loads(b64url_decode(claims_b64))
