"""The constant-time inversion mod p (fp_inv.c, Bernstein-Yang divsteps)
against Python's pow(x, -1, p), on both Montgomery products (the `lib`
fixture).  0 has no inverse: it maps to 0, as a^(p-2) did."""
import random

from conftest import P, fp_bytes

EDGES = ([0, 1, 2, 3, P - 1, P - 2, (P - 1) // 2, (P + 1) // 2, P - 2 ** 64]
         + [2 ** k for k in range(381)]
         + [(2 ** k - 1) % P for k in range(1, 385, 7)]
         + [2 ** 384 % P, 2 ** 768 % P, pow(2, 384 * 3, P)]   # R, R^2, R^3 mod p
         + [P - 2 ** k for k in range(0, 381, 5)])


def inv(lib, x):
    out = lib._out(48)
    assert lib.c.h_fp_inv(out, fp_bytes(x)) == 0
    return int.from_bytes(out.raw, "little")


def expected(x):
    return pow(x, -1, P) if x else 0


def test_inv_edges(lib):
    for x in EDGES:
        assert inv(lib, x) == expected(x), hex(x)


def test_inv_random(lib, rng):
    r = random.Random(27)
    for gen in (r, rng):
        for _ in range(2000):
            x = gen.randrange(P)
            assert inv(lib, x) == expected(x), hex(x)
        for _ in range(300):  # sparse and short values
            x = gen.getrandbits(gen.randrange(1, 382)) % P
            assert inv(lib, x) == expected(x), hex(x)


def test_inv_rejects_non_canonical(lib):
    assert lib.c.h_fp_inv(lib._out(48), fp_bytes(P)) == -2


def test_inv_many(lib, rng):
    """enc_fp_inv_many (Montgomery's trick, for the batched final
    exponentiations): every value's own inverse, zeros among them mapping
    to 0 without spoiling the rest."""
    r = random.Random(29)
    for gen in (r, rng):
        for n in range(1, 9):
            for _ in range(20):
                xs = [gen.choice([0, 1, P - 1, gen.randrange(P)]) if gen.random() < 0.3 else gen.randrange(P) for _ in range(n)]
                out = lib._out(48 * n)
                assert lib.c.h_fp_inv_many(out, b"".join(fp_bytes(x) for x in xs), n) == 0
                got = [int.from_bytes(out.raw[48 * i:48 * (i + 1)], "little") for i in range(n)]
                assert got == [expected(x) for x in xs], [hex(x) for x in xs]
