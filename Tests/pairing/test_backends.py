"""The two Montgomery products (portable C, x86-64 mulx/adcx/adox assembly)
against Python integers and each other, on edge values and random ones.
(Every other test in this directory runs once on each path through the
parametrised `lib` fixture.)"""
import random

import pytest

from conftest import P, fp_bytes

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
