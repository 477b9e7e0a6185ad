#!/usr/bin/env python3
"""Writes the seed corpus of the check-in fuzzer (fuzz/CheckInFuzzer.swift)
into DIR: the real CWA QR code (mode 0, with and without padding), its
payload (mode 1), and a TraceWarningPackage as export.bin (mode 2) and as a
zip (mode 3) with reports for the harness's locations whose MACs are right,
a forged one, one of wrong lengths and a plain warning. AES needs the
`cryptography` package (build/venv has it); without it the reports are
left out.   usage: checkin_seeds.py DIR"""
import base64
import hashlib
import hmac
import io
import os
import sys
import zipfile

# The stand-ins' protobuf writer, as a module of its own: the stand-ins'
# package needs the protobuf library, which a bare python3 may not have.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "standins"))
from wire import field  # noqa: E402

PAYLOAD = ("CAESJQgBEgpBZ3dheSBJbmMuGhExNTk0IERlZmZlIEF2ZW51ZSgAMAAadggBEmA4xNrp5hKJoO_yVbXfF1gS8Yc5nURh"
           "OIVLG3nUcSg8IPsI2e8JSIhg-FrHUymQ3RR80KUKb1lZjLQkfTUINUP16r6-jFDURwUlCQQi6NXCgI0rQw0a4MrVrKMbF4NzhQMaEPXDJZ2XSeO0SY43-KCQlQciBggBEAQYHA")


def report(location_id, start, period, trl, iv=bytes(range(16))):
    from cryptography.hazmat.primitives import padding
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
    record = field(1, start) + field(2, period) + field(3, trl)
    padder = padding.PKCS7(128).padder()
    enc = Cipher(algorithms.AES(hashlib.sha256(b"CWA-ENCRYPTION-KEY" + location_id).digest()), modes.CBC(iv)).encryptor()
    sealed = enc.update(padder.update(record) + padder.finalize()) + enc.finalize()
    mac = hmac.new(hashlib.sha256(b"CWA-MAC-KEY" + location_id).digest(), iv + sealed, hashlib.sha256).digest()
    return hashlib.sha256(location_id).digest(), iv, sealed, mac


def report_field(h, iv, sealed, mac):
    return field(4, field(1, h) + field(2, iv) + field(3, sealed) + field(4, mac))


def main(out):
    os.makedirs(out, exist_ok=True)
    payload = base64.urlsafe_b64decode(PAYLOAD + "=" * (-len(PAYLOAD) % 4))
    real = hashlib.sha256(b"CWA-GUID" + payload).digest()
    seeds = {
        "qr": b"\0https://e.coronawarn.app?v=1#" + PAYLOAD.encode(),
        "qr-padded": b"\0HTTPS://E.CORONAWARN.APP/?v=1#" + PAYLOAD.encode() + b"=" * (-len(PAYLOAD) % 4),
        "payload": b"\1" + payload,
    }
    package = field(1, 490_000) + field(2, b"DE")
    package += field(3, field(1, hashlib.sha256(real).digest()) + field(2, 2_937_672) + field(3, 6) + field(4, 8))
    try:
        good = report(real, 2_937_672, 12, 7)
        package += report_field(*good)
        package += report_field(*report(bytes(32), 2_937_600, 3, 3))
        forged = list(report(real, 2_937_680, 1, 5))
        forged[3] = bytes(32)
        package += report_field(*forged)
        package += report_field(good[0], good[1][:8], good[2], good[3])
    except ImportError:
        print("checkin_seeds: no `cryptography` here: the seed package has no encrypted reports", file=sys.stderr)
    seeds["package"] = b"\2" + package
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("export.bin", package)
    seeds["zip"] = b"\3" + buf.getvalue()
    for name, data in seeds.items():
        with open(os.path.join(out, "seed_" + name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main(sys.argv[1])
