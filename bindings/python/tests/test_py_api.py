"""Library loading, version agreement, status names and the exception table."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

import encore
from encore import _ffi
from encore._loader import check_version
from encore_testdata import INSTALLED, PACKAGE_PARENT


def test_version_agrees_with_header():
    assert encore.__version__ == _ffi.ENCORE_VERSION_STRING
    assert encore._lib.encore_version_number() == _ffi.ENCORE_VERSION_NUMBER
    major, minor, patch = (int(p) for p in encore.__version__.split("."))
    assert (major, minor, patch) == (_ffi.ENCORE_VERSION_MAJOR, _ffi.ENCORE_VERSION_MINOR, _ffi.ENCORE_VERSION_PATCH)


def test_version_mismatch_is_refused():
    check_version(_ffi.ENCORE_VERSION_STRING, _ffi.ENCORE_VERSION_NUMBER)
    with pytest.raises(ImportError, match="version 9.9.9"):
        check_version("9.9.9", 90909)
    with pytest.raises(ImportError):
        check_version(_ffi.ENCORE_VERSION_STRING, _ffi.ENCORE_VERSION_NUMBER + 1)


def import_encore(library):
    """Imports encore in a fresh interpreter with ENCORE_LIBRARY=library."""
    env = dict(os.environ, ENCORE_LIBRARY=library, PYTHONPATH=str(PACKAGE_PARENT))
    return subprocess.run([sys.executable, "-c", "import encore; print(encore.__version__)"],
                          env=env, capture_output=True, text=True)


def test_encore_library_variable_is_used():
    ok = import_encore(encore._lib._name)
    assert ok.returncode == 0 and ok.stdout.strip() == encore.__version__
    missing = import_encore("/nonexistent/libencore.so")
    if INSTALLED:
        # An installed wheel loads the library it carries, whatever ENCORE_LIBRARY says.
        assert missing.returncode == 0 and missing.stdout.strip() == encore.__version__, missing.stderr
        return
    assert missing.returncode != 0
    assert "ImportError" in missing.stderr and "ENCORE_LIBRARY" in missing.stderr


def test_library_is_the_packages_own_when_installed():
    """From a wheel, the library is the one next to the package's _loader.py; from
    the checkout, there is none there and the library comes from elsewhere."""
    bundled = Path(encore._loader.__file__).resolve().parent / "libencore.so"
    if INSTALLED:
        assert Path(encore._lib._name).resolve() == bundled.resolve()
    else:
        assert not bundled.exists(), f"{bundled} in the checkout would shadow every other library"


def test_status_names():
    assert encore.status_name(_ffi.ENCORE_OK) == "ENCORE_OK"
    assert encore.status_name(_ffi.ENCORE_ERR_ZIP_CRC) == "ENCORE_ERR_ZIP_CRC"
    assert encore.status_name(9999) is None
    assert encore.status_name(-1) is None


def test_every_status_has_its_exception_class():
    statuses = {name: value for name, value in vars(_ffi).items() if name.startswith("ENCORE_ERR_")}
    assert len(statuses) >= 20
    for name, value in statuses.items():
        # The library and the header agree on every status's name...
        assert encore.status_name(value) == name
        # ...and each has an exception class exported by the package.
        cls = encore.errors.BY_STATUS[value]
        assert getattr(encore, cls.__name__) is cls and cls.__name__ in encore.__all__
        assert issubclass(cls, encore.EncoreError) and cls is not encore.EncoreError
        assert cls.STATUS == value
    assert encore.ZipCrcError.STATUS == _ffi.ENCORE_ERR_ZIP_CRC
    assert encore.SignatureUntrustedError.STATUS == _ffi.ENCORE_ERR_SIGNATURE_UNTRUSTED
    assert encore.CancelledError.STATUS == _ffi.ENCORE_ERR_CANCELLED
    assert len(set(encore.errors.CLASSES)) == len(statuses)


def test_error_survives_pickling():
    import pickle
    with pytest.raises(encore.ZipNotZipError) as caught:
        encore.KeyFile.open(b"nope", verify=False)
    copy = pickle.loads(pickle.dumps(caught.value))
    assert type(copy) is encore.ZipNotZipError
    assert (copy.status, copy.status_name, copy.message) == (caught.value.status, caught.value.status_name,
                                                             caught.value.message)


def test_every_header_function_is_bound():
    for name, (restype, argtypes) in _ffi.FUNCTIONS.items():
        func = getattr(encore._lib, name)
        assert func.argtypes == argtypes and func.restype == restype
