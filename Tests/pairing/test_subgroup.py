"""The endomorphism subgroup tests (phi on G1, psi on G2) against the
definition r*P == O, on points inside and outside the subgroups."""
import ctypes
import random

import pymcl

from conftest import P, fp_bytes
from curve import ec_add
from refmath import g1_rhs, g2_rhs, sqrt_fp, sqrt_fp2


def setup(lib):
    for name in ("h_g1_subgroup_tests", "h_g2_subgroup_tests", "h_g2_subgroup_tests_point"):
        fn = getattr(lib.c, name)
        fn.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
        fn.restype = ctypes.c_int


def test_g1_fast_check_matches_definition(lib):
    setup(lib)
    r = random.Random(41)
    seen = set()
    for i in range(60):
        if i % 3 == 0:  # in G1
            x, y = map(int, str(pymcl.g1 * pymcl.Fr(str(r.randrange(1, pymcl.r)))).split()[1:])
            want = 3
        elif i % 3 == 1:  # G1 point plus the order-3 point (0, 2)
            x, y = map(int, str(pymcl.G1.hash(r.randbytes(8))).split()[1:])
            x, y = ec_add((x, y), (0, 2))
            want = 0
        else:  # a random point of E(Fp): almost surely outside G1
            while True:
                x = r.randrange(P)
                y = sqrt_fp(g1_rhs(x))
                if y is not None:
                    break
            want = 0
        got = lib.c.h_g1_subgroup_tests(fp_bytes(x), fp_bytes(y))
        assert got == want, (i, got)
        seen.add(got)
    assert seen == {0, 3}


def test_g2_fast_check_matches_definition(lib):
    setup(lib)
    r = random.Random(42)
    for i in range(40):
        if i % 2 == 0:
            xa, xb, ya, yb = map(int, str(pymcl.g2 * pymcl.Fr(str(r.randrange(1, pymcl.r)))).split()[1:])
            want = 3
        else:
            while True:
                xa, xb = r.randrange(P), r.randrange(P)
                y = sqrt_fp2(g2_rhs((xa, xb)))
                if y is not None:
                    ya, yb = y
                    break
            want = 0
        got = lib.c.h_g2_subgroup_tests(fp_bytes(xa) + fp_bytes(xb), fp_bytes(ya) + fp_bytes(yb))
        assert got == want, (i, got)
    # projective representatives with Z != 1 (psi conjugates Z as well)
    for _ in range(10):
        q = (pymcl.g2 * pymcl.Fr(str(r.randrange(1, pymcl.r)))).serialize()
        z = fp_bytes(r.randrange(1, P)) + fp_bytes(r.randrange(1, P))
        assert lib.c.h_g2_subgroup_tests_point(q, z) == 3
