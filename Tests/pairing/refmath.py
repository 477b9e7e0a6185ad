"""Independent integer arithmetic for the tests: square tests in Fp and Fp2,
scalar conversions, and the spec's HashToFr rule.  Nothing here is shared
with the C code."""
import hashlib

from conftest import P, R


def is_square_fp(a):
    a %= P
    return a == 0 or pow(a, (P - 1) // 2, P) == 1


def sqrt_fp(a):
    y = pow(a % P, (P + 1) // 4, P)
    return y if y * y % P == a % P else None


def f2mul(x, y):
    return ((x[0] * y[0] - x[1] * y[1]) % P, (x[0] * y[1] + x[1] * y[0]) % P)


def is_square_fp2(a):
    # a is a square in Fp2 iff its norm a0^2 + a1^2 is a square in Fp
    return is_square_fp(a[0] * a[0] + a[1] * a[1])


def g1_rhs(x):
    return (x ** 3 + 4) % P


def g2_rhs(x):
    x3 = f2mul(f2mul(x, x), x)
    return ((x3[0] + 4) % P, (x3[1] + 4) % P)


def hash_to_fr(b):
    """The spec's HashToFr (mcl's Fr::setHashOf)."""
    v = int.from_bytes(hashlib.sha256(b).digest(), "little") & ((1 << 255) - 1)
    if v >= R:
        v &= (1 << 254) - 1
    return v


def h1_field_element(msg):
    """The integer t fed to calcBN, to see which masking branch a message takes."""
    t = int.from_bytes(hashlib.sha512(msg).digest()[:48], "little") & ((1 << 381) - 1)
    return t, t >= P


def sqrt_fp2(a):
    """A square root in Fp2 by the norm method (None if a is not a square)."""
    a0, a1 = a[0] % P, a[1] % P
    if a1 == 0:
        s = sqrt_fp(a0)
        if s is not None:
            return (s, 0)
        s = sqrt_fp(-a0 % P)
        return (0, s)
    s = sqrt_fp(a0 * a0 + a1 * a1)
    if s is None:
        return None
    inv2 = pow(2, -1, P)
    for cand in ((a0 + s) * inv2 % P, (a0 - s) * inv2 % P):
        x0 = sqrt_fp(cand)
        if x0:
            x1 = a1 * pow(2 * x0, -1, P) % P
            assert f2mul((x0, x1), (x0, x1)) == (a0, a1)
            return (x0, x1)
    return None
