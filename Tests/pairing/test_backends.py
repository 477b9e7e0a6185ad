"""The two Montgomery products (portable C, x86-64 mulx/adcx/adox assembly)
against Python integers and each other, on edge values and random ones.
(Every other test in this directory runs once on each path through the
parametrised `lib` fixture.)"""
import random

import pytest

import shutil

from conftest import Lib, P, build, fp_bytes

EDGES = [0, 1, 2, P - 1, P - 2, (P - 1) // 2, (P + 1) // 2, 2 ** 64 - 1, 2 ** 64, 2 ** 380, P - 2 ** 64,
         2 ** 381 - 2 ** 320 if 2 ** 381 - 2 ** 320 < P else P - 3] + [(2 ** (64 * k) - 1) % P for k in range(1, 7)]


def mul_with(lib, a, b, fast):
    out = lib._out(48)
    rc = lib.c.h_fp_mul_with(out, fp_bytes(a), fp_bytes(b), 1 if fast else 0)
    if rc == -1:
        pytest.skip("no BMI2/ADX on this CPU")
    assert rc == 0
    return int.from_bytes(out.raw, "little")


@pytest.mark.parametrize("fast", [True, False], ids=["mulx", "portable"])
def test_fp_mul_edges(lib, fast):
    for a in EDGES:
        for b in EDGES:
            assert mul_with(lib, a, b, fast) == a * b % P, (hex(a), hex(b))


@pytest.mark.parametrize("fast", [True, False], ids=["mulx", "portable"])
def test_fp_mul_random(lib, fast, rng):
    r = random.Random(5)
    for gen in (r, rng):
        for _ in range(3000):
            a, b = gen.randrange(P), gen.randrange(P)
            assert mul_with(lib, a, b, fast) == a * b % P, (hex(a), hex(b))


# ---- lazy reduction: the double-width product and the separate reduction ----
RW = 2 ** 384
WIDE_EDGES = EDGES + [2 ** 384 - 1, 2 ** 383, 2 * P - 1, 2 * P - 2, 2 ** 382 - 1, 2 ** 320 - 1]


def wide_with(lib, a, b, fast):
    out = lib._out(96)
    rc = lib.c.h_fp_mul_wide_with(out, a.to_bytes(48, "little"), b.to_bytes(48, "little"), 1 if fast else 0)
    if rc == -1:
        pytest.skip("no BMI2/ADX on this CPU")
    assert rc == 0
    return int.from_bytes(out.raw, "little")


def redc_with(lib, t, fast):
    out = lib._out(48)
    rc = lib.c.h_fp_redc_with(out, t.to_bytes(96, "little"), 1 if fast else 0)
    if rc == -1:
        pytest.skip("no BMI2/ADX on this CPU")
    assert rc == 0
    return int.from_bytes(out.raw, "little")


@pytest.mark.parametrize("fast", [True, False], ids=["mulx", "portable"])
def test_fp_mul_wide(lib, fast, rng):
    """Any inputs below 2^384 (lazy reduction feeds it unreduced sums)."""
    for a in WIDE_EDGES:
        for b in WIDE_EDGES:
            assert wide_with(lib, a, b, fast) == a * b, (hex(a), hex(b))
    for gen in (random.Random(6), rng):
        for _ in range(2000):
            a, b = gen.randrange(RW), gen.randrange(RW)
            assert wide_with(lib, a, b, fast) == a * b, (hex(a), hex(b))


@pytest.mark.parametrize("fast", [True, False], ids=["mulx", "portable"])
def test_fp_redc(lib, fast, rng):
    """t / 2^384 mod p, fully reduced, on the whole range [0, p 2^384)."""
    rinv = pow(RW, -1, P)
    top = P * RW
    edges = [0, 1, 2, top - 1, top - 2, P * P, 4 * P * P - 1, P * (RW - 1), P - 1, RW - 1, RW, RW * (P - 1),
             RW * (P - 1) + RW - 1, top - RW, (P - 1) * (P - 1)]
    for t in edges:
        assert redc_with(lib, t, fast) == t * rinv % P, hex(t)
    for gen in (random.Random(7), rng):
        for _ in range(2000):
            t = gen.randrange(top)
            assert redc_with(lib, t, fast) == t * rinv % P, hex(t)
        for _ in range(500):  # near the top of the range, where the final subtraction matters
            t = top - 1 - gen.randrange(RW * 2 ** 64)
            assert redc_with(lib, t, fast) == t * rinv % P, hex(t)


@pytest.mark.parametrize("cc", ["gcc", "clang"])
def test_products_with_each_compiler(cc):
    """The assembly products built by each compiler (the suite itself uses
    one): gcc silently dropped a non-volatile asm statement whose results
    leave through memory only, which only a run of its build shows."""
    if not shutil.which(cc):
        pytest.skip(cc + " not installed")
    other = Lib(build(cc, "libencpairing-products-%s.so" % cc))
    r = random.Random(8)
    rinv = pow(RW, -1, P)
    for fast in (True, False):
        for a in WIDE_EDGES + [r.randrange(RW) for _ in range(20)]:
            b = r.randrange(RW)
            assert wide_with(other, a, b, fast) == a * b
            t = a * b % (P * RW)
            assert redc_with(other, t, fast) == t * rinv % P
            if a < P:
                assert mul_with(other, a, b % P, fast) == a * (b % P) % P


# ---- the field addition: x86-64 assembly (cmov) and the portable C ----

def add_raw(lib, a, b, alias=0):
    out = lib._out(48)
    assert lib.c.h_fp_add_raw(out, a.to_bytes(48, "little"), b.to_bytes(48, "little"), alias) == 0
    return int.from_bytes(out.raw, "little")


def sub_p_if_ge_raw(lib, a):
    out = lib._out(48)
    assert lib.c.h_fp_sub_p_if_ge_raw(out, a.to_bytes(48, "little")) == 0
    return int.from_bytes(out.raw, "little")


def check_addition(lib, r):
    for a in EDGES + [r.randrange(P) for _ in range(40)]:
        for b in EDGES[:8] + [r.randrange(P) for _ in range(5)]:
            for alias in (0, 1, 2):
                assert add_raw(lib, a, b, alias) == (a + b) % P, (hex(a), hex(b), alias)
    for a in [0, 1, P - 1, P, P + 1, 2 * P - 1, 2 * P - 2] + [r.randrange(2 * P) for _ in range(200)]:
        assert sub_p_if_ge_raw(lib, a) == a % P, hex(a)
    top = P * RW  # double width: a + b mod p 2^384, the low half's carry into the high half
    wide = [0, 1, RW - 1, RW, top - 1, top - RW, top // 2, (P - 1) * RW + RW - 1] + [r.randrange(top) for _ in range(100)]
    for a in wide:
        for b in wide[:6] + [r.randrange(top) for _ in range(3)]:
            out = lib._out(96)
            assert lib.c.h_fpw_add_raw(out, a.to_bytes(96, "little"), b.to_bytes(96, "little")) == 0
            assert int.from_bytes(out.raw, "little") == (a + b) % top, (hex(a), hex(b))


def test_addition(lib):
    check_addition(lib, random.Random(11))


@pytest.mark.parametrize("cc", ["gcc", "clang"])
@pytest.mark.parametrize("asm", [True, False], ids=["add-asm", "add-portable"])
def test_additions_and_pairings_per_build(cc, asm):
    """Each compiler's build with the assembly additions and with the
    portable C ones (-DENC_NO_ADD_ASM, what other CPUs compile): the
    additions on edge values and pairings against pymcl, on both products."""
    import pymcl
    if not shutil.which(cc):
        pytest.skip(cc + " not installed")
    name = "libencpairing-add-%s-%s.so" % (cc, "asm" if asm else "portable")
    other = Lib(build(cc, name, () if asm else ("-DENC_NO_ADD_ASM",)))
    r = random.Random(12)
    check_addition(other, r)
    for fast in (True, False):
        if other.c.h_select_fast_path(1 if fast else 0) != (1 if fast else 0):
            continue  # no BMI2/ADX here
        for _ in range(2):
            p = pymcl.G1.hash(r.randbytes(32))
            q = pymcl.g2 * pymcl.Fr(str(r.randrange(1, 2 ** 250)))
            want = pymcl.pairing(p, q).serialize()
            assert other.pairing(p.serialize(), q.serialize()) == want
            assert other.pairing_prepared_many(p.serialize(), [q.serialize()] * 3) == [want] * 3
    other.c.h_select_fast_path(1)
