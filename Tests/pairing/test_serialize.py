"""G1/G2 encodings: round trips both ways against pymcl, and hostile input."""
import random

import pymcl
import pytest

from conftest import ERR_ENCODING, ERR_NOT_IN_SUBGROUP, ERR_NOT_ON_CURVE, G1, G2, OK, P, fp_bytes, fr_bytes
from refmath import g1_rhs, g2_rhs, is_square_fp, is_square_fp2


def mcl_accepts(cls, b):
    try:
        cls.deserialize(b)
        return True
    except Exception:
        return False


def rand_fr(r):
    return pymcl.Fr(str(r.randrange(1, pymcl.r)))


@pytest.mark.parametrize("group, seed, count", [(G1, 11, 300), (G2, 12, 80)])
def test_round_trips(lib, rng, group, seed, count):
    r = random.Random(seed)
    for gen in (r, rng):
        for _ in range(count):
            k = rand_fr(gen)
            pt = group.gen * k
            b = pt.serialize()
            assert group.fn(lib, "roundtrip")(b) == (OK, b)
            ours = group.fn(lib, "mul")(group.fn(lib, "gen")(), k.serialize())
            assert ours == b
            assert group.cls.deserialize(ours) == pt


def test_flag_is_parity_of_y(lib):
    r = random.Random(13)
    for _ in range(100):
        k = rand_fr(r)
        _, x, y = str(pymcl.g1 * k).split()
        assert (pymcl.g1 * k).serialize()[47] >> 7 == int(y) & 1
        _, xa, xb, ya, yb = str(pymcl.g2 * k).split()
        assert (pymcl.g2 * k).serialize()[95] >> 7 == int(ya) & 1


def test_identity(lib):
    assert pymcl.G1().serialize() == bytes(48)
    assert pymcl.G2().serialize() == bytes(96)
    assert lib.g1_roundtrip(bytes(48)) == (OK, bytes(48))
    assert lib.g2_roundtrip(bytes(96)) == (OK, bytes(96))
    assert lib.g1_mul(lib.g1_gen(), fr_bytes(0)) == bytes(48)
    assert lib.g2_mul(lib.g2_gen(), fr_bytes(0)) == bytes(96)


def g1_case(x, odd=False, extra=0):
    b = bytearray(fp_bytes(x))
    b[47] |= (0x80 if odd else 0) | extra
    return bytes(b)


def find_x(r, want_on_curve, rhs, is_sq, fp2=False):
    while True:
        x = (r.randrange(P), r.randrange(P)) if fp2 else r.randrange(P)
        if is_sq(rhs(x)) == want_on_curve:
            return x


def test_g1_hostile(lib):
    r = random.Random(14)
    gen = pymcl.g1.serialize()
    cases = [
        (b"\xff" * 48, ERR_ENCODING),
        (g1_case(P), ERR_ENCODING),
        (g1_case(P, odd=True), ERR_ENCODING),
        (g1_case(P + 1), ERR_ENCODING),
        (g1_case((1 << 381) - 1), ERR_ENCODING),
        (bytes(gen[:47]) + bytes([gen[47] | 0x40]), ERR_ENCODING),
        (bytes(gen[:47]) + bytes([gen[47] | 0x20]), ERR_ENCODING),
        (g1_case(0, odd=True), ERR_NOT_IN_SUBGROUP),  # (0, -2) has order 3
    ]
    for _ in range(20):
        cases.append((g1_case(find_x(r, False, g1_rhs, is_square_fp), odd=r.random() < 0.5), ERR_NOT_ON_CURVE))
        cases.append((g1_case(find_x(r, True, g1_rhs, is_square_fp), odd=r.random() < 0.5), ERR_NOT_IN_SUBGROUP))
    for b, want in cases:
        assert lib.g1_parse(b) == want, (b.hex(), want)
        assert not mcl_accepts(pymcl.G1, b)
    # flipping the flag of a valid point gives the negated point, still valid
    neg = bytes(gen[:47]) + bytes([gen[47] ^ 0x80])
    assert lib.g1_roundtrip(neg) == (OK, (-pymcl.g1).serialize())


def test_g1_random_bytes_classified(lib, rng):
    """Random 48-byte strings: the error class follows from an independent
    Legendre computation, and acceptance agrees with pymcl."""
    for _ in range(1500):
        b = bytearray(rng.randbytes(48))
        b[47] &= rng.choice([0xFF, 0x9F, 0x1F, 0x0F])
        b = bytes(b)
        x = int.from_bytes(b, "little") & ~(1 << 383)
        if x >= P:
            want = ERR_ENCODING
        elif is_square_fp(g1_rhs(x)):
            want = ERR_NOT_IN_SUBGROUP
        else:
            want = ERR_NOT_ON_CURVE
        if b == bytes(48):
            want = OK
        assert lib.g1_parse(b) == want, b.hex()
        assert mcl_accepts(pymcl.G1, b) == (want == OK)


def g2_case(xa, xb, odd=False, extra_a=0, extra_b=0):
    b = bytearray(fp_bytes(xa) + fp_bytes(xb))
    b[47] |= extra_a
    b[95] |= (0x80 if odd else 0) | extra_b
    return bytes(b)


def test_g2_hostile(lib):
    r = random.Random(15)
    gen = pymcl.g2.serialize()
    cases = [
        (b"\xff" * 96, ERR_ENCODING),
        (g2_case(P, 0), ERR_ENCODING),
        (g2_case(0, P), ERR_ENCODING),
        (g2_case(1, P + 5, odd=True), ERR_ENCODING),
        (gen[:47] + bytes([gen[47] | 0x80]) + gen[48:], ERR_ENCODING),  # stray bit on x.a
        (gen[:47] + bytes([gen[47] | 0x40]) + gen[48:], ERR_ENCODING),
        (gen[:95] + bytes([gen[95] | 0x40]), ERR_ENCODING),
        (gen[:95] + bytes([gen[95] | 0x20]), ERR_ENCODING),
    ]
    for _ in range(8):
        xa, xb = find_x(r, False, g2_rhs, is_square_fp2, fp2=True)
        cases.append((g2_case(xa, xb, odd=r.random() < 0.5), ERR_NOT_ON_CURVE))
        xa, xb = find_x(r, True, g2_rhs, is_square_fp2, fp2=True)
        cases.append((g2_case(xa, xb, odd=r.random() < 0.5), ERR_NOT_IN_SUBGROUP))
    # x = 0 gives a point of order 3 on the twist (if 4(1+i) is a square)
    cases.append((g2_case(0, 1, odd=True), ERR_NOT_IN_SUBGROUP if is_square_fp2(g2_rhs((0, 1))) else ERR_NOT_ON_CURVE))
    for b, want in cases:
        assert lib.g2_parse(b) == want, (b.hex(), want)
        assert not mcl_accepts(pymcl.G2, b)
    neg = gen[:95] + bytes([gen[95] ^ 0x80])
    assert lib.g2_roundtrip(neg) == (OK, (-pymcl.g2).serialize())


def test_g2_random_bytes_classified(lib, rng):
    for _ in range(300):
        b = bytearray(rng.randbytes(96))
        b[47] &= rng.choice([0xFF, 0x1F])
        b[95] &= rng.choice([0xFF, 0x9F, 0x1F])
        b = bytes(b)
        xa = int.from_bytes(b[:48], "little")
        xb = int.from_bytes(b[48:], "little") & ~(1 << 383)
        if xa >= P or xb >= P:
            want = ERR_ENCODING
        elif is_square_fp2(g2_rhs((xa, xb))):
            want = ERR_NOT_IN_SUBGROUP
        else:
            want = ERR_NOT_ON_CURVE
        assert lib.g2_parse(b) == want, b.hex()
        assert mcl_accepts(pymcl.G2, b) == (want == OK)


def test_nonzero_parsers(lib):
    lib.c.h_g1_parse_nonzero.argtypes = lib.c.h_g2_parse_nonzero.argtypes = [__import__("ctypes").c_char_p]
    ERR_IDENTITY = -4
    assert lib.c.h_g1_parse_nonzero(bytes(48)) == ERR_IDENTITY
    assert lib.c.h_g2_parse_nonzero(bytes(96)) == ERR_IDENTITY
    assert lib.c.h_g1_parse_nonzero(pymcl.g1.serialize()) == OK
    assert lib.c.h_g2_parse_nonzero(pymcl.g2.serialize()) == OK
    assert lib.c.h_g1_parse_nonzero(b"\xff" * 48) == ERR_ENCODING
    assert lib.c.h_g2_parse_nonzero(b"\xff" * 96) == ERR_ENCODING
