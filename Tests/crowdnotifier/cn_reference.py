"""CrowdNotifier v3 as the real servers and SDKs compute it, written for
the tests from ../shared/spec/checkins.md part 2 on top of pymcl (mcl in
BLS12-381 mode, the library the SwissCovid backend and the SDKs use) and
PyNaCl (libsodium's crypto_secretbox). Plays the venue/health-authority
server (keys, QR codes, trace keys) and a client (check-in ciphertexts,
decryption), independently of encore's code.
"""
import base64
import hashlib
import hmac
import os
import struct

import nacl.secret
import pymcl

R = 0x73EDA753299D7D483339D80809A1D80553BDA402FFFE5BFEFFFFFFFF00000001
HOUR = 3600


def sha256(*parts):
    return hashlib.sha256(b"".join(parts)).digest()


def xor(a, b):
    return bytes(x ^ y for x, y in zip(a, b))


def hash_to_fr(data):
    """mcl's Fr::setHashOf: SHA-256 little-endian, 255 bits, 254 if still >= r."""
    v = int.from_bytes(hashlib.sha256(data).digest(), "little") & ((1 << 255) - 1)
    if v >= R:
        v &= (1 << 254) - 1
    return pymcl.Fr(str(v))


def hkdf(ikm, info, length):
    prk = hmac.new(bytes(32), ikm, hashlib.sha256).digest()
    out, t, i = b"", b"", 1
    while len(out) < length:
        t = hmac.new(prk, t + info + bytes([i]), hashlib.sha256).digest()
        out += t
        i += 1
    return out[:length]


def nonces(payload):
    okm = hkdf(payload, b"CrowdNotifier_v3", 96)
    return okm[:32], okm[32:64], okm[64:]


def identity(payload, interval_start):
    pre, tk, _ = nonces(payload)
    preid = sha256(b"CN-PREID", payload, pre)
    timekey = sha256(b"CN-TIMEKEY", struct.pack(">I", HOUR), struct.pack(">Q", interval_start), tk)
    return sha256(b"CN-ID", preid, struct.pack(">I", HOUR), struct.pack(">Q", interval_start), timekey)


def hours(start, end):
    return list(range(start // HOUR * HOUR, end // HOUR * HOUR + 1, HOUR))


# ---------------------------------------------------------------- protobuf

def varint(v):
    v &= (1 << 64) - 1
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def field_varint(n, v):
    return varint(n << 3) + varint(v)


def field_bytes(n, b):
    return varint(n << 3 | 2) + varint(len(b)) + b


def fields(data):
    """(number, wire type, value) of a message's fields (varint and bytes only)."""
    i, out = 0, []
    def read_varint():
        nonlocal i
        shift, v = 0, 0
        while True:
            b = data[i]
            i += 1
            v |= (b & 0x7F) << shift
            if b < 0x80:
                return v
            shift += 7
    while i < len(data):
        tag = read_varint()
        n, wt = tag >> 3, tag & 7
        if wt == 0:
            out.append((n, 0, read_varint()))
        elif wt == 2:
            length = read_varint()
            out.append((n, 2, data[i:i + length]))
            i += length
        else:
            raise ValueError("wire type %d" % wt)
    return out


# ---------------------------------------------------------------- the server

class Venue:
    """A venue as the server keeps it: master secret, public key, QR payload."""

    def __init__(self, name="Bäckerei Test", address="Marktgasse 1, Bern", kind="swisscovid", msk=None):
        self.msk = msk if msk is not None else pymcl.Fr.random()
        self.mpk = (pymcl.g2 * self.msk).serialize()
        location = field_varint(1, 4) + field_bytes(2, name.encode()) + field_bytes(3, address.encode())
        cn = field_varint(1, 4) + field_bytes(2, self.mpk) + field_bytes(3, os.urandom(32)) + field_varint(4, 1)
        country = field_varint(1, 4) + field_varint(2, 2)
        self.payload = field_varint(1, 4) + field_bytes(2, location) + field_bytes(3, cn) + field_bytes(4, country)
        host = "https://qr.swisscovid.ch" if kind == "swisscovid" else "https://qr.notify-me.ch"
        self.qr = host + "?v=4#" + base64.urlsafe_b64encode(self.payload).rstrip(b"=").decode()

    def secret_key(self, ident):
        return (pymcl.G1.hash(ident) * self.msk).serialize()

    def trace_keys(self, start, end, message, layout="swisscovid", criticality=1):
        """A ProblematicEventWrapper with one event per hour of [start, end]."""
        _, _, notification_key = nonces(self.payload)
        country = field_varint(1, 1) + field_varint(2, criticality)
        ad = field_varint(1, 1) + field_bytes(2, message.encode()) + field_varint(3, start) + field_varint(4, end) + field_bytes(5, country)
        events = b""
        for h in hours(start, end):
            ident = identity(self.payload, h)
            nonce = os.urandom(24)
            ead = nacl.secret.SecretBox(notification_key).encrypt(ad, nonce).ciphertext
            e = field_varint(1, 4) + field_bytes(2, ident) + field_bytes(3, self.secret_key(ident))
            if layout == "swisscovid":
                e += field_varint(4, h // 86400 * 86400) + field_bytes(5, ead) + field_bytes(6, nonce)
            else:
                e += field_varint(4, max(start, h) * 1000) + field_varint(5, min(end, h + HOUR) * 1000) + field_bytes(6, ead) + field_bytes(7, nonce)
            events += field_bytes(2, e)
        return field_varint(1, 3) + events


# ---------------------------------------------------------------- a client

def parse_qr(qr):
    encoded = qr.split("#", 1)[1]
    payload = base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4))
    cn = next(v for n, _, v in fields(payload) if n == 3)
    mpk = next(v for n, _, v in fields(cn) if n == 2)
    return payload, mpk


def encrypt(mpk, ident, message):
    x = os.urandom(32)
    r = hash_to_fr(x + ident + message)
    c1 = (pymcl.g2 * r).serialize()
    mask = (pymcl.pairing(pymcl.G1.hash(ident), pymcl.G2.deserialize(mpk)) ** r).serialize()
    nonce = os.urandom(24)
    c3 = nacl.secret.SecretBox(sha256(x)).encrypt(message, nonce).ciphertext
    return c1, xor(x, sha256(mask)), c3, nonce


def decrypt(sk, ident, c1, c2, c3, nonce):
    """The message, or None when the key does not open the ciphertext."""
    x = xor(c2, sha256(pymcl.pairing(pymcl.G1.deserialize(sk), pymcl.G2.deserialize(c1)).serialize()))
    try:
        m = nacl.secret.SecretBox(sha256(x)).decrypt(c3, nonce)
    except nacl.exceptions.CryptoError:
        return None
    return m if (pymcl.g2 * hash_to_fr(x + ident + m)).serialize() == c1 else None


def events(body):
    """The ProblematicEvents of a wrapper, as dicts by field number."""
    out = []
    for n, wt, v in fields(body):
        if n == 2:
            out.append({k: val for k, _, val in fields(v)})
    return out
