"""The pairing and GT against pymcl: byte-equal values, bilinearity, the
final-exponent convention, GT arithmetic and GT parsing."""
import random

import pymcl

from conftest import ERR_ENCODING, ERR_NOT_IN_SUBGROUP, OK, P, R, fp_bytes, fr_bytes


def rand_pair(r):
    a, b = pymcl.Fr(str(r.randrange(1, R))), pymcl.Fr(str(r.randrange(1, R)))
    return pymcl.g1 * a, pymcl.g2 * b


def test_pairing_matches_pymcl(lib, rng):
    r = random.Random(31)
    for gen, n in ((r, 25), (rng, 15)):
        for _ in range(n):
            p, q = rand_pair(gen)
            assert lib.pairing(p.serialize(), q.serialize()) == pymcl.pairing(p, q).serialize()
    # hashed identities on the G1 side, as in CrowdNotifier
    for _ in range(10):
        p = pymcl.G1.hash(rng.randbytes(32))
        q = pymcl.g2 * pymcl.Fr(str(rng.randrange(R)))
        assert lib.pairing(p.serialize(), q.serialize()) == pymcl.pairing(p, q).serialize()
    assert lib.pairing(lib.g1_gen(), lib.g2_gen()) == pymcl.pairing(pymcl.g1, pymcl.g2).serialize()


def test_prepared_pairing_matches_pymcl(lib, rng):
    """Q's lines computed once (enc_bls_g2_prepare), then evaluated at P."""
    r = random.Random(37)
    for gen, n in ((r, 12), (rng, 8)):
        for _ in range(n):
            p, q = rand_pair(gen)
            want = pymcl.pairing(p, q).serialize()
            assert lib.pairing_prepared(p.serialize(), q.serialize()) == want
            assert lib.pairing_prepared(p.serialize(), q.serialize(), scale=False) == want
            assert lib.pairing(p.serialize(), q.serialize()) == want
    for _ in range(4):
        p = pymcl.G1.hash(rng.randbytes(32))
        q = pymcl.g2 * pymcl.Fr(str(rng.randrange(R)))
        assert lib.pairing_prepared(p.serialize(), q.serialize()) == pymcl.pairing(p, q).serialize()
    one = lib.gt_one()
    assert lib.pairing_prepared(bytes(48), lib.g2_gen()) == one
    assert lib.pairing_prepared(lib.g1_gen(), bytes(96)) == one
    assert lib.pairing_prepared(bytes(48), bytes(96)) == one
    assert lib.pairing_prepared(lib.g1_gen(), bytes(96), scale=False) == one


def test_prepared_pairings_of_one_p_match_pymcl(lib, rng):
    """One P against many prepared Q at once (final exponentiations side by
    side, sharing their inversions): each value is the single pairing's,
    in groups of 8 and across the group boundary, with identities mixed
    in (they pair to 1 without spoiling the others' shared inversions)."""
    one = lib.gt_one()
    for n in (1, 2, 7, 8, 9, 17):
        p = pymcl.G1.hash(rng.randbytes(32))
        qs = [pymcl.g2 * pymcl.Fr(str(rng.randrange(1, R))) for _ in range(n)]
        got = lib.pairing_prepared_many(p.serialize(), [q.serialize() for q in qs])
        assert got == [pymcl.pairing(p, q).serialize() for q in qs], n
    p, q = rand_pair(rng)
    qb = [q.serialize(), bytes(96), q.serialize(), bytes(96)]
    want = pymcl.pairing(p, q).serialize()
    assert lib.pairing_prepared_many(p.serialize(), qb) == [want, one, want, one]
    assert lib.pairing_prepared_many(bytes(48), qb) == [one] * 4


def test_pairing_with_identity(lib):
    one = lib.gt_one()
    assert one == pymcl.GT().serialize()
    assert lib.pairing(bytes(48), lib.g2_gen()) == one == pymcl.pairing(pymcl.G1(), pymcl.g2).serialize()
    assert lib.pairing(lib.g1_gen(), bytes(96)) == one == pymcl.pairing(pymcl.g1, pymcl.G2()).serialize()


def test_bilinearity(lib, rng):
    e = lib.pairing(lib.g1_gen(), lib.g2_gen())
    for _ in range(6):
        a, b = rng.randrange(1, R), rng.randrange(1, R)
        lhs = lib.pairing(lib.g1_mul(lib.g1_gen(), fr_bytes(a)), lib.g2_mul(lib.g2_gen(), fr_bytes(b)))
        assert lhs == lib.gt_pow(e, fr_bytes(a * b))
        p1, p2 = lib.g1_mul(lib.g1_gen(), fr_bytes(a)), lib.g1_mul(lib.g1_gen(), fr_bytes(b))
        q = lib.g2_mul(lib.g2_gen(), fr_bytes(rng.randrange(R)))
        assert lib.pairing(lib.g1_add(p1, p2), q) == lib.gt_mul(lib.pairing(p1, q), lib.pairing(p2, q))
        assert lib.pairing(lib.g1_neg(p1), q) == lib.gt_inv(lib.pairing(p1, q))
    # non-degenerate
    assert not lib.gt_is_one(e)


def test_multi_pairing_and_pairing_pow(lib, rng):
    for n in (0, 1, 2, 3):
        pairs = [rand_pair(rng) for _ in range(n)]
        want = pymcl.GT()
        for p, q in pairs:
            want = want * pymcl.pairing(p, q)
        got = lib.multi_pairing([p.serialize() for p, _ in pairs], [q.serialize() for _, q in pairs])
        assert got == want.serialize()
    for _ in range(10):
        p, q = rand_pair(rng)
        k = pymcl.Fr(str(rng.randrange(R)))
        assert lib.pairing_pow(p.serialize(), q.serialize(), k.serialize()) == (pymcl.pairing(p, q) ** k).serialize()


def test_final_exponent_is_the_cube(lib, rng):
    """mcl returns f^(3 (p^12 - 1)/r), the cube of the textbook reduced
    pairing; the fast final exponentiation must agree with a generic power."""
    full = (P ** 12 - 1) // R
    for _ in range(2):
        p, q = rand_pair(rng)
        ours = lib.pairing(p.serialize(), q.serialize())
        assert lib.miller_then_pow(p.serialize(), q.serialize(), 3 * full) == ours
        textbook = lib.miller_then_pow(p.serialize(), q.serialize(), full)
        assert textbook != ours
        assert lib.gt_pow(textbook, fr_bytes(3)) == ours


def test_gt_pow_ct_vs_vartime_vs_pymcl(lib, rng):
    r = random.Random(32)
    for gen, n in ((r, 15), (rng, 10)):
        p, q = rand_pair(gen)
        e = pymcl.pairing(p, q)
        for k in [gen.randrange(R) for _ in range(n)] + [0, 1, 2, R - 1, 16]:
            kb = fr_bytes(k)
            want = (e ** pymcl.Fr(str(k))).serialize()
            assert lib.gt_pow(e.serialize(), kb) == want, k
            assert lib.gt_pow_vt(e.serialize(), kb) == want, k


def test_gt_mul_inv_eq(lib, rng):
    for _ in range(10):
        (p1, q1), (p2, q2) = rand_pair(rng), rand_pair(rng)
        a, b = pymcl.pairing(p1, q1), pymcl.pairing(p2, q2)
        assert lib.gt_mul(a.serialize(), b.serialize()) == (a * b).serialize()
        assert lib.gt_inv(a.serialize()) == (~a).serialize()
        assert lib.gt_eq(a.serialize(), a.serialize()) and not lib.gt_eq(a.serialize(), b.serialize())
        assert lib.gt_is_one(lib.gt_mul(a.serialize(), lib.gt_inv(a.serialize())))


def fp12_from_ints(vals):
    return b"".join(fp_bytes(v % P) for v in vals)


def test_gt_parse(lib, rng):
    p, q = rand_pair(rng)
    e = pymcl.pairing(p, q).serialize()
    assert lib.gt_parse(e) == OK
    assert lib.gt_parse(lib.gt_one()) == OK
    assert lib.gt_parse(bytes(576)) == ERR_NOT_IN_SUBGROUP
    assert lib.gt_parse(b"\xff" * 576) == ERR_ENCODING
    for i in range(12):
        bad = bytearray(e)
        bad[48 * i:48 * (i + 1)] = fp_bytes(P)
        assert lib.gt_parse(bytes(bad)) == ERR_ENCODING
    # w (not even unitary), a random element, and a unitary element of the
    # cyclotomic subgroup that is not of order r
    w = fp12_from_ints([0] * 6 + [1] + [0] * 5)
    assert lib.gt_parse(w) == ERR_NOT_IN_SUBGROUP
    m = fp12_from_ints([rng.randrange(P) for _ in range(12)])
    assert lib.gt_parse(m) == ERR_NOT_IN_SUBGROUP
    # m^((p^6 - 1)(p^2 + 1)) via the raw Fp12 ops: conj, inv, mul, frob2
    conj = lib.fp12(m, m, 6)
    u = lib.fp12(conj, lib.fp12(m, m, 3), 0)
    u = lib.fp12(lib.fp12(u, u, 5), u, 0)
    assert lib.fp12(u, u, 2) == lib.fp12(u, u, 1)  # it is cyclotomic
    assert lib.gt_parse(u) == ERR_NOT_IN_SUBGROUP


def test_fp12_special_ops_agree_with_generic(lib, rng):
    for _ in range(20):
        p, q = rand_pair(rng)
        e = pymcl.pairing(p, q).serialize()
        # Granger-Scott squaring equals the generic squaring on GT
        assert lib.fp12(e, e, 2) == lib.fp12(e, e, 1) == (pymcl.pairing(p, q) ** pymcl.Fr(2)).serialize()
        # sparse line multiplication equals a full multiplication
        vals = [rng.randrange(P) for _ in range(12)]
        sparse = [vals[0], vals[1], vals[2], vals[3], 0, 0, 0, 0, vals[8], vals[9], 0, 0]
        x, y = fp12_from_ints(vals), fp12_from_ints(sparse)
        assert lib.fp12(x, y, 7) == lib.fp12(x, y, 0)
        # inverse, frobenius consistency: frob2 = frob o frob, x * x^-1 = 1
        assert lib.fp12(x, x, 5) == lib.fp12(lib.fp12(x, x, 4), x, 4)
        assert lib.fp12(x, lib.fp12(x, x, 3), 0) == lib.gt_one()


EXTREMES = [0, 1, 2, P - 1, P - 2, (P - 1) // 2]


def fp12_ints(b):
    return [int.from_bytes(b[48 * k:48 * (k + 1)], "little") for k in range(12)]


def test_fp12_products_against_integers(lib, rng):
    """The lazily reduced products (double-width sums, one reduction per
    coefficient) against schoolbook integer arithmetic, on random elements
    and on elements made of extreme coefficients (where the range
    corrections of the double-width sums matter)."""
    from refmath import f12mul
    cases = [[rng.randrange(P) for _ in range(12)] for _ in range(30)]
    cases += [[rng.choice(EXTREMES) for _ in range(12)] for _ in range(30)]
    cases += [[P - 1] * 12, [1] * 12, [0] * 11 + [P - 1]]
    for vals in cases:
        other = [rng.choice(EXTREMES) if rng.random() < 0.5 else rng.randrange(P) for _ in range(12)]
        x, y = fp12_from_ints(vals), fp12_from_ints(other)
        assert fp12_ints(lib.fp12(x, y, 0)) == f12mul(vals, other)
        assert fp12_ints(lib.fp12(x, x, 1)) == f12mul(vals, vals)
        sparse = [other[0], other[1], other[2], other[3], 0, 0, 0, 0, other[8], other[9], 0, 0]
        assert fp12_ints(lib.fp12(x, fp12_from_ints(sparse), 7)) == f12mul(vals, sparse)
        scaled = [1, 0] + sparse[2:]
        assert fp12_ints(lib.fp12(x, fp12_from_ints(scaled), 8)) == f12mul(vals, scaled)


def test_cyclotomic_squaring_on_cyclotomic_elements(lib, rng):
    """Granger-Scott squaring (double-width Fp4 squares) equals the generic
    squaring on elements of the cyclotomic subgroup that are not in GT,
    repeatedly (as in the final exponentiation's chains)."""
    from refmath import f12mul
    for k in range(12):
        vals = [rng.randrange(P) for _ in range(12)] if k else [P - 1] * 12
        m = fp12_from_ints(vals)
        u = lib.fp12(lib.fp12(m, m, 6), lib.fp12(m, m, 3), 0)
        u = lib.fp12(lib.fp12(u, u, 5), u, 0)  # m^((p^6 - 1)(p^2 + 1))
        for _ in range(5):
            sq = lib.fp12(u, u, 2)
            assert sq == lib.fp12(u, u, 1)
            assert fp12_ints(sq) == f12mul(fp12_ints(u), fp12_ints(u))
            u = sq


def cyclotomic(lib, vals):
    m = fp12_from_ints(vals)
    u = lib.fp12(lib.fp12(m, m, 6), lib.fp12(m, m, 3), 0)
    return lib.fp12(lib.fp12(u, u, 5), u, 0)  # m^((p^6 - 1)(p^2 + 1))


def test_karabina_compressed_squarings(lib, rng):
    """Karabina's compressed squarings with the batched decompression equal
    Granger-Scott's squarings: one and twenty squarings, and the whole
    a^|z| chain of the final exponentiation, on cyclotomic elements outside
    GT, on GT elements and on 1 (whose compressed form is all zero)."""
    elements = [cyclotomic(lib, [rng.randrange(P) for _ in range(12)]) for _ in range(6)]
    elements += [cyclotomic(lib, [P - 1] * 12), cyclotomic(lib, [1] + [0] * 11), lib.gt_one()]
    elements += [pymcl.pairing(*rand_pair(rng)).serialize() for _ in range(3)]
    for u in elements:
        gs = u
        for i in range(20):
            gs = lib.fp12(gs, gs, 2)
            if i == 0:
                assert lib.fp12(u, u, 11) == gs
        assert lib.fp12(u, u, 12) == gs
        assert lib.fp12(u, u, 9) == lib.fp12(u, u, 10)
    assert lib.fp12(lib.gt_one(), lib.gt_one(), 9) == lib.gt_one()
