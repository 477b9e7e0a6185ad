"""Builds Sources/CEncorePairing/*.c + harness.c into build/pairing/ and
exposes it to the tests through ctypes (fixture `lib`).

The compiler is $CC if set, else clang (what SwiftPM compiles the C target
with), else cc; $PAIRING_CFLAGS adds flags (e.g. sanitizers).  The library is
rebuilt whenever a source is newer than it or the compiler/flags changed.

Sanitizer run (gcc; Python itself is not instrumented, hence the preload):
  CC=gcc PAIRING_CFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=undefined" \
  LD_PRELOAD="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so)" \
  ASAN_OPTIONS=detect_leaks=0 build/venv/bin/python -m pytest -q Tests/pairing \
      --deselect Tests/pairing/test_ct.py --deselect Tests/pairing/test_build.py
"""
import ctypes
import os
import random
import shutil
import subprocess

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SRC = os.path.join(ROOT, "Sources", "CEncorePairing")
HARNESS = os.path.join(ROOT, "Tests", "pairing", "harness.c")
OUT_DIR = os.path.join(ROOT, "build", "pairing")

from curve import P, R  # noqa: F401  (the tests import them from here)

OK, ERR_ENCODING, ERR_NOT_ON_CURVE, ERR_NOT_IN_SUBGROUP = 0, -1, -2, -3


def compiler():
    return os.environ.get("CC") or shutil.which("clang") or "cc"


def build(cc=None, out_name="libencpairing.so", flags=()):
    cc = cc or compiler()
    os.makedirs(OUT_DIR, exist_ok=True)
    out = os.path.join(OUT_DIR, out_name)
    sources = sorted(os.path.join(SRC, f) for f in os.listdir(SRC) if f.endswith(".c"))
    deps = sources + [HARNESS] + [os.path.join(SRC, f) for f in os.listdir(SRC) if f.endswith(".h")]
    deps.append(os.path.join(SRC, "include", "encore_pairing.h"))
    extra = os.environ.get("PAIRING_CFLAGS", "").split() + list(flags)
    stamp = out + ".cc"
    key = " ".join([cc] + extra)
    fresh = (
        os.path.exists(out)
        and os.path.exists(stamp)
        and open(stamp).read() == key
        and all(os.path.getmtime(d) <= os.path.getmtime(out) for d in deps)
    )
    if not fresh:
        # pytest-xdist's workers may all find the library stale: each builds
        # its own copy and renames it into place, so none loads a file
        # another is still writing.
        tmp, stamp_tmp = ("%s.%d.tmp" % (path, os.getpid()) for path in (out, stamp))
        cmd = [cc, "-std=c99", "-O2", "-fPIC", "-shared", "-Wall", "-Wextra", "-Wpedantic", "-Werror",
               "-I", os.path.join(SRC, "include"), "-I", SRC] + extra + sources + [HARNESS, "-lcrypto", "-o", tmp]
        subprocess.run(cmd, check=True)
        with open(stamp_tmp, "w") as f:
            f.write(key)
        os.replace(tmp, out)
        os.replace(stamp_tmp, stamp)
    return out


class Lib:
    """Thin Python face of harness.c: bytes in, (rc, bytes) or bytes out."""

    def __init__(self, path):
        self.c = c = ctypes.CDLL(path)
        cp, sz, i = ctypes.c_char_p, ctypes.c_size_t, ctypes.c_int
        for name, args in {
            "h_g1_parse": [cp], "h_g2_parse": [cp], "h_gt_parse": [cp], "h_fr_parse": [cp],
            "h_g1_roundtrip": [cp, cp], "h_g2_roundtrip": [cp, cp],
            "h_fr_mul": [cp, cp, cp], "h_fr_add": [cp, cp, cp], "h_fr_sub": [cp, cp, cp],
            "h_g1_add": [cp, cp, cp], "h_g2_add": [cp, cp, cp],
            "h_g1_dbl": [cp, cp], "h_g2_dbl": [cp, cp], "h_g1_neg": [cp, cp], "h_g2_neg": [cp, cp],
            "h_g1_eq": [cp, cp], "h_g2_eq": [cp, cp],
            "h_g1_mul": [cp, cp, cp], "h_g2_mul": [cp, cp, cp],
            "h_g1_mul_vt": [cp, cp, cp], "h_g2_mul_vt": [cp, cp, cp], "h_g2_gen_mul": [cp, cp],
            "h_pairing": [cp, cp, cp], "h_pairing_pow": [cp, cp, cp, cp], "h_multi_pairing": [cp, cp, cp, sz],
            "h_miller_then_pow": [cp, cp, cp, ctypes.POINTER(ctypes.c_uint64), sz],
            "h_gt_pow": [cp, cp, cp], "h_gt_pow_vt": [cp, cp, cp], "h_gt_mul": [cp, cp, cp], "h_gt_inv": [cp, cp],
            "h_gt_is_one": [cp], "h_gt_eq": [cp, cp], "h_fp12_op": [cp, cp, cp, i],
            "h_bench_pairing": [cp, cp, i], "h_bench_miller": [cp, cp, i], "h_bench_final_exp": [cp, cp, i],
            "h_bench_g2_mul": [cp, i], "h_bench_g1_mul": [cp, i], "h_bench_gt_pow": [cp, cp, i],
            "h_bench_g1_hash": [i], "h_bench_g1_parse": [cp, i], "h_bench_g2_parse": [cp, i],
            "h_select_fast_path": [i], "h_fast_path_available": [], "h_fp_mul_with": [cp, cp, cp, i],
            "h_fp_mul_wide_with": [cp, cp, cp, i], "h_fp_redc_with": [cp, cp, i],
            "h_pairing_prepared": [cp, cp, cp, i], "h_bench_pairing_prepared": [cp, cp, i], "h_bench_g2_prepare": [cp, i],
            "h_fp_inv": [cp, cp], "h_bench_fp_inv": [cp, i], "h_fp_inv_many": [cp, cp, sz],
            "h_pairing_prepared_many": [cp, cp, cp, sz], "h_fp_add_raw": [cp, cp, cp, i], "h_fp_sub_p_if_ge_raw": [cp, cp], "h_fpw_add_raw": [cp, cp, cp], "h_bench_pairing_prepared_many": [cp, cp, i],
        }.items():
            fn = getattr(c, name)
            fn.argtypes = args
            fn.restype = i
        for name, args in {"h_g1_generator": [cp], "h_g2_generator": [cp], "h_gt_one": [cp],
                           "h_g1_hash": [cp, cp, sz], "h_fr_hash": [cp, cp, sz], "h_fr_from_wide": [cp, cp]}.items():
            fn = getattr(c, name)
            fn.argtypes = args
            fn.restype = None

    @staticmethod
    def _out(n):
        return ctypes.create_string_buffer(n)

    def _call(self, name, n, *args):
        o = self._out(n)
        rc = getattr(self.c, name)(o, *args)
        return rc, o.raw

    def _ok(self, name, n, *args):
        rc, out = self._call(name, n, *args)
        assert rc == OK, "%s returned %d" % (name, rc)
        return out

    # hashing
    def g1_hash(self, msg):
        o = self._out(48)
        self.c.h_g1_hash(o, msg, len(msg))
        return o.raw

    def fr_hash(self, msg):
        o = self._out(32)
        self.c.h_fr_hash(o, msg, len(msg))
        return o.raw

    def fr_from_wide(self, b64):
        o = self._out(32)
        self.c.h_fr_from_wide(o, b64)
        return o.raw

    # generators
    def g1_gen(self):
        o = self._out(48)
        self.c.h_g1_generator(o)
        return o.raw

    def g2_gen(self):
        o = self._out(96)
        self.c.h_g2_generator(o)
        return o.raw

    def gt_one(self):
        o = self._out(576)
        self.c.h_gt_one(o)
        return o.raw

    # parsing
    def g1_parse(self, b):
        assert len(b) == 48
        return self.c.h_g1_parse(b)

    def g2_parse(self, b):
        assert len(b) == 96
        return self.c.h_g2_parse(b)

    def gt_parse(self, b):
        assert len(b) == 576
        return self.c.h_gt_parse(b)

    def g1_roundtrip(self, b):
        return self._call("h_g1_roundtrip", 48, b)

    def g2_roundtrip(self, b):
        return self._call("h_g2_roundtrip", 96, b)

    # group ops (all raise on a parse failure)
    def g1_add(self, a, b): return self._ok("h_g1_add", 48, a, b)
    def g2_add(self, a, b): return self._ok("h_g2_add", 96, a, b)
    def g1_dbl(self, a): return self._ok("h_g1_dbl", 48, a)
    def g2_dbl(self, a): return self._ok("h_g2_dbl", 96, a)
    def g1_neg(self, a): return self._ok("h_g1_neg", 48, a)
    def g2_neg(self, a): return self._ok("h_g2_neg", 96, a)
    def g1_mul(self, a, k): return self._ok("h_g1_mul", 48, a, k)
    def g2_mul(self, a, k): return self._ok("h_g2_mul", 96, a, k)
    def g1_mul_vt(self, a, k): return self._ok("h_g1_mul_vt", 48, a, k)
    def g2_mul_vt(self, a, k): return self._ok("h_g2_mul_vt", 96, a, k)
    def g2_gen_mul(self, k): return self._ok("h_g2_gen_mul", 96, k)
    def fr_mul(self, a, b): return self._ok("h_fr_mul", 32, a, b)
    def fr_add(self, a, b): return self._ok("h_fr_add", 32, a, b)
    def fr_sub(self, a, b): return self._ok("h_fr_sub", 32, a, b)

    def g1_eq(self, a, b):
        rc = self.c.h_g1_eq(a, b)
        assert rc in (1, 2)
        return rc == 1

    def g2_eq(self, a, b):
        rc = self.c.h_g2_eq(a, b)
        assert rc in (1, 2)
        return rc == 1

    # pairing / GT
    def pairing(self, p, q): return self._ok("h_pairing", 576, p, q)
    def pairing_prepared(self, p, q, scale=True): return self._ok("h_pairing_prepared", 576, p, q, 1 if scale else 0)
    def pairing_prepared_many(self, p, qs):
        out = self._ok("h_pairing_prepared_many", 576 * len(qs), p, b"".join(qs), len(qs))
        return [out[576 * i:576 * (i + 1)] for i in range(len(qs))]

    def pairing_pow(self, p, q, k): return self._ok("h_pairing_pow", 576, p, q, k)

    def multi_pairing(self, ps, qs):
        return self._ok("h_multi_pairing", 576, b"".join(ps), b"".join(qs), len(ps))

    def miller_then_pow(self, p, q, e):
        limbs = [(e >> (64 * i)) & (2 ** 64 - 1) for i in range((e.bit_length() + 63) // 64)]
        arr = (ctypes.c_uint64 * len(limbs))(*limbs)
        return self._ok("h_miller_then_pow", 576, p, q, arr, len(limbs))

    def gt_pow(self, a, k): return self._ok("h_gt_pow", 576, a, k)
    def gt_pow_vt(self, a, k): return self._ok("h_gt_pow_vt", 576, a, k)
    def gt_mul(self, a, b): return self._ok("h_gt_mul", 576, a, b)
    def gt_inv(self, a): return self._ok("h_gt_inv", 576, a)

    def gt_is_one(self, a):
        rc = self.c.h_gt_is_one(a)
        assert rc in (1, 2)
        return rc == 1

    def gt_eq(self, a, b):
        rc = self.c.h_gt_eq(a, b)
        assert rc in (1, 2)
        return rc == 1

    def fp12(self, a, b, op):
        return self._ok("h_fp12_op", 576, a, b, op)


# Every test runs on both Montgomery products: the x86-64 mulx/adcx/adox
# assembly (what the CPU picks when it has BMI2 and ADX) and the portable C.
# Each is its own copy of the library, so each has its own selection.
@pytest.fixture(scope="session", params=["mulx", "portable"])
def lib(request):
    fast = request.param == "mulx"
    lib = Lib(build(out_name="libencpairing.so" if fast else "libencpairing-portable.so"))
    if lib.c.h_select_fast_path(1 if fast else 0) != (1 if fast else 0):
        pytest.skip("this CPU has no BMI2/ADX: only the portable product runs here")
    return lib


@pytest.fixture
def rng(request):
    """A fixed-seed generator per test plus fresh entropy; the seed is in the
    test id on failure via the assertion messages that print it."""
    seed = int.from_bytes(os.urandom(8), "little")
    print("fresh seed:", seed)
    return random.Random(seed)


class Group:
    """G1 or G2 for the tests that run the same on both: the harness's
    functions of that group (lib.g1_mul, lib.g2_mul, ...) and pymcl's."""

    def __init__(self, name):
        import pymcl
        self.name = name                          # "g1" or "g2"
        self.gen = getattr(pymcl, name)           # pymcl's generator
        self.cls = getattr(pymcl, name.upper())   # pymcl.G1 / pymcl.G2
        self.size = 48 if name == "g1" else 96    # bytes of an encoded point

    def __repr__(self):
        return self.name

    def fn(self, lib, op):
        """The harness wrapper lib.<group>_<op>."""
        return getattr(lib, "%s_%s" % (self.name, op))


G1, G2 = Group("g1"), Group("g2")


def fr_bytes(k):
    return (k % R).to_bytes(32, "little")


def fp_bytes(x):
    return x.to_bytes(48, "little")
