"""The C target must compile warning-free as C99 under gcc and clang, and the
generated constants file must be what gen_constants.py produces."""
import os
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT, SRC

FLAGS = ["-std=c99", "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-O2", "-fPIC", "-fsyntax-only"]


@pytest.mark.parametrize("cc", ["gcc", "clang"])
def test_warning_free(cc):
    if not shutil.which(cc):
        pytest.skip(cc + " not installed")
    sources = sorted(os.path.join(SRC, f) for f in os.listdir(SRC) if f.endswith(".c"))
    for src in sources:
        subprocess.run([cc] + FLAGS + ["-I", os.path.join(SRC, "include"), src], check=True)


def test_constants_are_generated():
    gen = os.path.join(ROOT, "Tests", "pairing", "gen_constants.py")
    out = subprocess.run([sys.executable, gen], check=True, capture_output=True, text=True).stdout
    with open(os.path.join(SRC, "constants.c")) as f:
        assert f.read() == out


def test_inline_copies_of_p_match():
    with open(os.path.join(SRC, "internal.h")) as f:
        text = f.read()
    with open(os.path.join(SRC, "constants.c")) as f:
        consts = f.read()
    body = text[text.index("enc_p_[6] = {") + len("enc_p_[6] = {"):]
    limbs = [int(v.strip().rstrip("ULL"), 16) for v in body[:body.index("}")].split(",")]
    from conftest import P
    assert sum(v << (64 * i) for i, v in enumerate(limbs)) == P
    pinv = int(text.split("#define ENC_PINV_ ")[1].split()[0].rstrip("ULL"), 16)
    assert (pinv * P) % (1 << 64) == (1 << 64) - 1
    assert "0x%016x (ENC_PINV_" % pinv in consts
