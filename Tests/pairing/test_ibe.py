"""CrowdNotifier v3 identity-based encryption, composed from our primitives
and pymcl's, round-tripped across the two implementations both ways.

  r  = HashToFr(x || id || m)            c1 = g2^r
  c2 = x XOR SHA-256(serialize_GT(e(H1(id), mpk)^r))
  c3 = secretbox(m, nonce, SHA-256(x))
  sk = H1(id)^msk
  x' = c2 XOR SHA-256(serialize_GT(e(sk, c1))), m' = open(c3), check c1 == g2^HashToFr(x'||id||m')
"""
import hashlib
import os

import nacl.exceptions
import nacl.secret
import pymcl
import pytest

from conftest import R
from refmath import hash_to_fr


def sha(b):
    return hashlib.sha256(b).digest()


def xor(a, b):
    return bytes(x ^ y for x, y in zip(a, b))


class Ours:
    def __init__(self, lib):
        self.lib = lib

    def keygen(self):
        msk = int.from_bytes(os.urandom(64), "little") % R
        return msk, self.lib.g2_gen_mul(msk.to_bytes(32, "little"))

    def extract(self, msk, ident):
        return self.lib.g1_mul(self.lib.g1_hash(ident), msk.to_bytes(32, "little"))

    def encrypt(self, mpk, ident, m):
        lib = self.lib
        x = os.urandom(32)
        r = lib.fr_hash(x + ident + m)
        c1 = lib.g2_gen_mul(r)
        mask = lib.pairing_pow(lib.g1_hash(ident), mpk, r)  # e(H1(id), mpk)^r
        assert mask == lib.gt_pow(lib.pairing(lib.g1_hash(ident), mpk), r)
        nonce = os.urandom(24)
        c3 = nacl.secret.SecretBox(sha(x)).encrypt(m, nonce).ciphertext
        return c1, xor(x, sha(mask)), c3, nonce

    def decrypt(self, sk, ident, c1, c2, c3, nonce):
        lib = self.lib
        assert lib.g1_parse(sk) == 0 and sk != bytes(48)
        x = xor(c2, sha(lib.pairing(sk, c1)))
        m = nacl.secret.SecretBox(sha(x)).decrypt(c3, nonce)
        if lib.g2_gen_mul(lib.fr_hash(x + ident + m)) != c1:
            raise ValueError("c1 check failed")
        return m


class Mcl:
    def keygen(self):
        msk = pymcl.Fr.random()
        return int(str(msk)), (pymcl.g2 * msk).serialize()

    def extract(self, msk, ident):
        return (pymcl.G1.hash(ident) * pymcl.Fr(str(msk))).serialize()

    def encrypt(self, mpk, ident, m):
        x = os.urandom(32)
        r = pymcl.Fr(str(hash_to_fr(x + ident + m)))
        c1 = (pymcl.g2 * r).serialize()
        mask = (pymcl.pairing(pymcl.G1.hash(ident), pymcl.G2.deserialize(mpk)) ** r).serialize()
        nonce = os.urandom(24)
        c3 = nacl.secret.SecretBox(sha(x)).encrypt(m, nonce).ciphertext
        return c1, xor(x, sha(mask)), c3, nonce

    def decrypt(self, sk, ident, c1, c2, c3, nonce):
        gt = pymcl.pairing(pymcl.G1.deserialize(sk), pymcl.G2.deserialize(c1))
        x = xor(c2, sha(gt.serialize()))
        m = nacl.secret.SecretBox(sha(x)).decrypt(c3, nonce)
        if (pymcl.g2 * pymcl.Fr(str(hash_to_fr(x + ident + m)))).serialize() != c1:
            raise ValueError("c1 check failed")
        return m


@pytest.mark.parametrize("authority,encryptor,decryptor", [
    ("mcl", "ours", "ours"), ("mcl", "ours", "mcl"), ("mcl", "mcl", "ours"),
    ("ours", "mcl", "ours"), ("ours", "ours", "mcl"), ("ours", "mcl", "mcl"),
])
def test_round_trip(lib, authority, encryptor, decryptor):
    impl = {"ours": Ours(lib), "mcl": Mcl()}
    for _ in range(4):
        msk, mpk = impl[authority].keygen()
        ident = os.urandom(32)
        m = os.urandom(8) + b"arrival|departure|" + os.urandom(32)
        c1, c2, c3, nonce = impl[encryptor].encrypt(mpk, ident, m)
        sk = impl[authority].extract(msk, ident)
        assert sk == impl["ours" if authority == "mcl" else "mcl"].extract(msk, ident)
        assert impl[decryptor].decrypt(sk, ident, c1, c2, c3, nonce) == m


def test_wrong_identity_does_not_open(lib):
    ours, mcl = Ours(lib), Mcl()
    msk, mpk = mcl.keygen()
    ident, other = os.urandom(32), os.urandom(32)
    m = b"visit record"
    c1, c2, c3, nonce = ours.encrypt(mpk, ident, m)
    sk_other = mcl.extract(msk, other)
    for impl in (ours, mcl):
        with pytest.raises(nacl.exceptions.CryptoError):
            impl.decrypt(sk_other, ident, c1, c2, c3, nonce)
    # the right key, but a c1 that does not match the re-derived r
    sk = mcl.extract(msk, ident)
    c1_bad = lib.g2_gen_mul((5).to_bytes(32, "little"))
    with pytest.raises((ValueError, nacl.exceptions.CryptoError)):
        ours.decrypt(sk, ident, c1_bad, c2, c3, nonce)
