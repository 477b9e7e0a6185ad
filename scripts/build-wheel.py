#!/usr/bin/env python3
"""Builds the encore wheel, with libencore.so inside the package, offline.

    scripts/build-wheel.py LIBRARY OUT_DIR

Stages bindings/python as a complete setuptools project in
build/wheel/encore-<version>/ (the package with its py.typed marker, encore/_version.py written from
ENCORE_VERSION_STRING in encore_types.h, the library as encore/libencore.so,
pyproject.toml), then writes OUT_DIR/encore-<version>-py3-none-<platform>.whl
from it. The wheel is written here, not by setuptools' bdist_wheel: that
needs the `wheel` package (absent from the test venv and not fetched during
a build), and the tag must say "any Python 3, this platform" because the
package carries a native library but no extension module, which setuptools
cannot express without a custom command. The staged directory still builds
with `pip wheel --no-build-isolation --no-deps build/wheel/encore-<version>`
where setuptools and wheel are installed.
"""
import base64
import hashlib
import os
import pathlib
import re
import shutil
import subprocess
import sys
import sysconfig
import tomllib
import zipfile

REPO = pathlib.Path(__file__).resolve().parent.parent
BINDINGS = REPO / "bindings/python"
HEADER = REPO / "Sources/CEncoreTypes/include/encore_types.h"
# A fixed timestamp for every member: the same inputs give the same wheel.
EPOCH = (1980, 1, 1, 0, 0, 0)


def library_version():
    match = re.search(r'^#define ENCORE_VERSION_STRING "([^"]+)"', HEADER.read_text(), re.MULTILINE)
    if not match:
        sys.exit(f"build-wheel: no ENCORE_VERSION_STRING in {HEADER}")
    return match.group(1)


def platform_tag():
    """The wheel platform tag of this machine (linux_x86_64): the library is built for it."""
    return re.sub(r"[-.]", "_", sysconfig.get_platform())


def stage(library, version):
    """The project as setuptools would see it, with the generated and built files in place."""
    root = REPO / "build/wheel" / f"encore-{version}"
    shutil.rmtree(root, ignore_errors=True)
    shutil.copytree(BINDINGS / "encore", root / "encore",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "libencore.so", "_version.py"))
    shutil.copy(BINDINGS / "pyproject.toml", root / "pyproject.toml")
    (root / "encore/_version.py").write_text(
        '"""The version of the library this package was built with (scripts/build-wheel.py)."""\n'
        f'__version__ = "{version}"\n')
    # The real file behind the SONAME links, under the name the loader looks
    # for, stripped as the Debian package's is (its exports stay: .dynsym):
    # 13 MB less to download and map for symbols only a debugger reads.
    subprocess.run(["objcopy", "--strip-unneeded", "--remove-section=.comment", "--remove-section=.note",
                    os.path.realpath(library), str(root / "encore/libencore.so")], check=True)
    if not (root / "encore/py.typed").exists():
        sys.exit("build-wheel: bindings/python/encore/py.typed is missing: the wheel would not be typed (PEP 561)")
    return root


def metadata(project, version):
    lines = ["Metadata-Version: 2.1", f"Name: {project['name']}", f"Version: {version}",
             f"Summary: {project['description']}", f"Requires-Python: {project['requires-python']}"]
    lines += [f"Classifier: {c}" for c in project.get("classifiers", [])]
    return "\n".join(lines) + "\n"


def record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def write_wheel(root, version, out_dir):
    project = tomllib.loads((root / "pyproject.toml").read_text())["project"]
    tag = f"py3-none-{platform_tag()}"
    dist_info = f"encore-{version}.dist-info"
    members = [(str(p.relative_to(root)), p.read_bytes(), 0o755 if p.suffix == ".so" else 0o644)
               for p in sorted((root / "encore").rglob("*")) if p.is_file()]
    members.append((f"{dist_info}/METADATA", metadata(project, version).encode(), 0o644))
    members.append((f"{dist_info}/WHEEL", ("Wheel-Version: 1.0\nGenerator: encore scripts/build-wheel.py\n"
                                          f"Root-Is-Purelib: false\nTag: {tag}\n").encode(), 0o644))
    members.append((f"{dist_info}/top_level.txt", b"encore\n", 0o644))
    record = "\n".join([record_line(n, d) for n, d, _ in members] + [f"{dist_info}/RECORD,,"]) + "\n"
    members.append((f"{dist_info}/RECORD", record.encode(), 0o644))
    out_dir.mkdir(parents=True, exist_ok=True)
    wheel = out_dir / f"encore-{version}-{tag}.whl"
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data, mode in members:
            info = zipfile.ZipInfo(name, EPOCH)
            info.external_attr = (0o100000 | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, data)
    return wheel


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: build-wheel.py LIBRARY OUT_DIR")
    library, out_dir = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    if not library.exists():
        sys.exit(f"build-wheel: {library} does not exist (run `make lib`)")
    version = library_version()
    wheel = write_wheel(stage(library, version), version, out_dir)
    print(f"wheel: {wheel}")


if __name__ == "__main__":
    main()
