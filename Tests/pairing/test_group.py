"""Group law, scalar multiplication (constant-time vs variable-time vs
pymcl) and Fr arithmetic."""
import random

import pymcl

from conftest import ERR_ENCODING, OK, R, fr_bytes


def edge_scalars():
    return [0, 1, 2, 3, 15, 16, 17, R - 1, R - 2, (R - 1) // 2, 1 << 64, (1 << 254) - 1, 1 << 128]


def test_g1_scalar_mul(lib, rng):
    g = lib.g1_gen()
    r = random.Random(21)
    scalars = edge_scalars() + [r.randrange(R) for _ in range(200)] + [rng.randrange(R) for _ in range(100)]
    for k in scalars:
        kb = fr_bytes(k)
        want = (pymcl.g1 * pymcl.Fr(str(k))).serialize()
        assert lib.g1_mul(g, kb) == want, k
        assert lib.g1_mul_vt(g, kb) == want, k


def test_g1_scalar_mul_other_base(lib, rng):
    for _ in range(50):
        base = pymcl.G1.hash(rng.randbytes(32))
        k = pymcl.Fr(str(rng.randrange(R)))
        want = (base * k).serialize()
        assert lib.g1_mul(base.serialize(), k.serialize()) == want
        assert lib.g1_mul_vt(base.serialize(), k.serialize()) == want


def test_g2_scalar_mul(lib, rng):
    g = lib.g2_gen()
    r = random.Random(22)
    scalars = edge_scalars() + [r.randrange(R) for _ in range(60)] + [rng.randrange(R) for _ in range(30)]
    for k in scalars:
        kb = fr_bytes(k)
        want = (pymcl.g2 * pymcl.Fr(str(k))).serialize()
        assert lib.g2_mul(g, kb) == want, k
        assert lib.g2_mul_vt(g, kb) == want, k
        assert lib.g2_gen_mul(kb) == want, k  # the IBE's c1 = g2^r


def test_group_law_g1(lib, rng):
    for _ in range(100):
        a = pymcl.g1 * pymcl.Fr(str(rng.randrange(R)))
        b = pymcl.g1 * pymcl.Fr(str(rng.randrange(R)))
        A, B = a.serialize(), b.serialize()
        assert lib.g1_add(A, B) == (a + b).serialize()
        assert lib.g1_dbl(A) == (a + a).serialize()
        assert lib.g1_add(A, A) == (a + a).serialize()  # complete formulas: P + P
        assert lib.g1_neg(A) == (-a).serialize()
        assert lib.g1_add(A, lib.g1_neg(A)) == bytes(48)  # P + (-P) = O
        assert lib.g1_add(A, bytes(48)) == A
        assert lib.g1_add(bytes(48), A) == A
        assert lib.g1_eq(A, A) and not lib.g1_eq(A, B) and not lib.g1_eq(A, bytes(48))
    assert lib.g1_dbl(bytes(48)) == bytes(48)
    assert lib.g1_eq(bytes(48), bytes(48))


def test_group_law_g2(lib, rng):
    for _ in range(40):
        a = pymcl.g2 * pymcl.Fr(str(rng.randrange(R)))
        b = pymcl.g2 * pymcl.Fr(str(rng.randrange(R)))
        A, B = a.serialize(), b.serialize()
        assert lib.g2_add(A, B) == (a + b).serialize()
        assert lib.g2_dbl(A) == (a + a).serialize()
        assert lib.g2_add(A, A) == (a + a).serialize()
        assert lib.g2_neg(A) == (-a).serialize()
        assert lib.g2_add(A, lib.g2_neg(A)) == bytes(96)
        assert lib.g2_add(bytes(96), A) == A
        assert lib.g2_eq(A, A) and not lib.g2_eq(A, B) and not lib.g2_eq(bytes(96), A)
    assert lib.g2_dbl(bytes(96)) == bytes(96)


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
