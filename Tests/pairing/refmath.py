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


# ---- the Fp12 tower on integer lists, for the lazily reduced products ----
# Fp2 = Fp[i]/(i^2 + 1), Fp6 = Fp2[v]/(v^3 - (1 + i)), Fp12 = Fp6[w]/(w^2 - v);
# an Fp12 element is its 12 Fp coefficients in the C structs' memory order.

def _f2add(x, y):
    return ((x[0] + y[0]) % P, (x[1] + y[1]) % P)


def _f2xi(x):
    return ((x[0] - x[1]) % P, (x[0] + x[1]) % P)


def _f6mul(x, y):
    c = [(0, 0)] * 5
    for i in range(3):
        for j in range(3):
            c[i + j] = _f2add(c[i + j], f2mul(x[i], y[j]))
    return [_f2add(c[0], _f2xi(c[3])), _f2add(c[1], _f2xi(c[4])), c[2]]


def _f6add(x, y):
    return [_f2add(a, b) for a, b in zip(x, y)]


def _split12(v):
    f2 = [(v[2 * k] % P, v[2 * k + 1] % P) for k in range(6)]
    return f2[:3], f2[3:]


def f12mul(x, y):
    """x * y on lists of 12 integers (schoolbook, no tricks)."""
    a0, a1 = _split12(x)
    b0, b1 = _split12(y)
    t = _f6mul(a1, b1)
    c0 = _f6add(_f6mul(a0, b0), [_f2xi(t[2]), t[0], t[1]])
    c1 = _f6add(_f6mul(a0, b1), _f6mul(a1, b0))
    return [c for f2 in c0 + c1 for c in f2]
