"""Group law, scalar multiplication (constant-time vs variable-time vs
pymcl) and Fr arithmetic."""
import random

import pymcl
import pytest

from conftest import ERR_ENCODING, G1, G2, OK, R, fr_bytes


def edge_scalars():
    return [0, 1, 2, 3, 15, 16, 17, R - 1, R - 2, (R - 1) // 2, 1 << 64, (1 << 254) - 1, 1 << 128]


@pytest.mark.parametrize("group, seed, fixed, fresh", [(G1, 21, 200, 100), (G2, 22, 60, 30)])
def test_scalar_mul(lib, rng, group, seed, fixed, fresh):
    g = group.fn(lib, "gen")()
    r = random.Random(seed)
    scalars = edge_scalars() + [r.randrange(R) for _ in range(fixed)] + [rng.randrange(R) for _ in range(fresh)]
    for k in scalars:
        kb = fr_bytes(k)
        want = (group.gen * pymcl.Fr(str(k))).serialize()
        assert group.fn(lib, "mul")(g, kb) == want, k
        assert group.fn(lib, "mul_vt")(g, kb) == want, k
        if group is G2:
            assert lib.g2_gen_mul(kb) == want, k  # the IBE's c1 = g2^r


def test_g1_scalar_mul_other_base(lib, rng):
    for _ in range(50):
        base = pymcl.G1.hash(rng.randbytes(32))
        k = pymcl.Fr(str(rng.randrange(R)))
        want = (base * k).serialize()
        assert lib.g1_mul(base.serialize(), k.serialize()) == want
        assert lib.g1_mul_vt(base.serialize(), k.serialize()) == want


@pytest.mark.parametrize("group, count", [(G1, 100), (G2, 40)])
def test_group_law(lib, rng, group, count):
    add, dbl, neg, eq = (group.fn(lib, op) for op in ("add", "dbl", "neg", "eq"))
    zero = bytes(group.size)
    for _ in range(count):
        a = group.gen * pymcl.Fr(str(rng.randrange(R)))
        b = group.gen * pymcl.Fr(str(rng.randrange(R)))
        A, B = a.serialize(), b.serialize()
        assert add(A, B) == (a + b).serialize()
        assert dbl(A) == (a + a).serialize()
        assert add(A, A) == (a + a).serialize()  # complete formulas: P + P
        assert neg(A) == (-a).serialize()
        assert add(A, neg(A)) == zero  # P + (-P) = O
        assert add(A, zero) == A
        assert add(zero, A) == A
        assert eq(A, A) and not eq(A, B) and not eq(A, zero) and not eq(zero, A)
    assert dbl(zero) == zero
    assert eq(zero, zero)


def test_g2_order(lib):
    # g2^r = O and g2^(r+1) = g2, via the vartime path (the CT one takes k < r)
    rb = R.to_bytes(32, "little")
    assert lib.c.h_fr_parse(rb) == ERR_ENCODING
    assert (pymcl.g2 * pymcl.Fr(str(R - 1)) + pymcl.g2).is_zero()
    assert lib.g2_add(lib.g2_mul(lib.g2_gen(), fr_bytes(R - 1)), lib.g2_gen()) == bytes(96)


def test_fr_arithmetic(lib, rng):
    r = random.Random(23)
    for gen in (r, rng):
        for _ in range(500):
            a, b = gen.randrange(R), gen.randrange(R)
            assert lib.fr_mul(fr_bytes(a), fr_bytes(b)) == fr_bytes(a * b)
            assert lib.fr_add(fr_bytes(a), fr_bytes(b)) == fr_bytes(a + b)
            assert lib.fr_sub(fr_bytes(a), fr_bytes(b)) == fr_bytes(a - b)
            w = gen.randbytes(64)
            assert lib.fr_from_wide(w) == fr_bytes(int.from_bytes(w, "little"))
    for k in [R - 1, 0, 1]:
        assert lib.c.h_fr_parse(fr_bytes(k)) == OK
    for v in [R, R + 1, (1 << 256) - 1, 1 << 255]:
        assert lib.c.h_fr_parse(v.to_bytes(32, "little")) == ERR_ENCODING
        try:
            pymcl.Fr.deserialize(v.to_bytes(32, "little"))
            accepted = True
        except Exception:
            accepted = False
        assert not accepted


def test_mixed_addition(lib, rng):
    import ctypes
    from conftest import P, fp_bytes
    cp = ctypes.c_char_p
    lib.c.h_g1_add_affine.argtypes = lib.c.h_g2_add_affine.argtypes = [cp, cp, cp, cp]
    for _ in range(40):
        a = pymcl.g1 * pymcl.Fr(str(rng.randrange(R)))
        b = pymcl.g1 * pymcl.Fr(str(rng.randrange(1, R)))
        z = fp_bytes(rng.randrange(1, P))
        for x, want in ((a, a + b), (b, b + b), (-b, pymcl.G1()), (pymcl.G1(), b)):
            assert lib._ok("h_g1_add_affine", 48, x.serialize(), b.serialize(), z) == want.serialize()
    for _ in range(15):
        a = pymcl.g2 * pymcl.Fr(str(rng.randrange(R)))
        b = pymcl.g2 * pymcl.Fr(str(rng.randrange(1, R)))
        z = fp_bytes(rng.randrange(1, P)) + fp_bytes(rng.randrange(P))
        for x, want in ((a, a + b), (b, b + b), (-b, pymcl.G2()), (pymcl.G2(), b)):
            assert lib._ok("h_g2_add_affine", 96, x.serialize(), b.serialize(), z) == want.serialize()
