"""Runs ct_check.c under valgrind: no branch or address may depend on the
secret scalars and points (see the comment in ct_check.c)."""
import os
import shutil
import subprocess

import pytest

from conftest import OUT_DIR, ROOT, SRC


@pytest.mark.skipif(not shutil.which("valgrind") or not os.path.exists("/usr/include/valgrind/memcheck.h"),
                    reason="valgrind (and its headers) not installed")
@pytest.mark.parametrize("cc", ["gcc", "clang"])
def test_secret_paths_are_branch_free(cc):
    """Both compilers at -O2: the masks must survive each one's optimiser."""
    if not shutil.which(cc):
        pytest.skip(cc + " not installed")
    exe = os.path.join(OUT_DIR, "ct_check_" + cc)
    sources = sorted(os.path.join(SRC, f) for f in os.listdir(SRC) if f.endswith(".c"))
    os.makedirs(OUT_DIR, exist_ok=True)
    subprocess.run([cc, "-std=c99", "-O2", "-gdwarf-4", "-Wall", "-Wextra", "-Werror",
                    "-I", os.path.join(SRC, "include"), "-I", SRC]
                   + sources + [os.path.join(ROOT, "Tests", "pairing", "ct_check.c"), "-lcrypto", "-o", exe],
                   check=True)
    # (add --track-origins=yes to see where a reported secret came from)
    res = subprocess.run(["valgrind", "-q", "--error-exitcode=99", exe],
                         capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-6000:]
    assert "ct-check done" in res.stdout
