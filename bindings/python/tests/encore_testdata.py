"""Paths of the sample exports, the tests' clock and thread runner (a uniquely
named module, so that test directories with their own conftest.py can be
collected in the same run)."""
import importlib.util
import os
import pathlib
import sys
import threading

BINDINGS = pathlib.Path(__file__).resolve().parent.parent
REPO = BINDINGS.parent.parent
EXPORTS = REPO / "Tests/data/exports"
# ENCORE_TEST_INSTALLED=1 (scripts/test-wheel.sh): the package under test is
# the installed one (a wheel in site-packages, with its own library), and
# the tests must not see this checkout's copy. Otherwise the package under
# test is this checkout's, not an installed copy.
INSTALLED = os.environ.get("ENCORE_TEST_INSTALLED") == "1"
if INSTALLED:
    _spec = importlib.util.find_spec("encore")
    if _spec is None or _spec.origin is None:
        raise ImportError("ENCORE_TEST_INSTALLED=1 but no installed encore package was found")
    # The directory holding the package under test: what a child interpreter puts on sys.path.
    PACKAGE_PARENT = pathlib.Path(_spec.origin).resolve().parent.parent
    if PACKAGE_PARENT == BINDINGS:
        raise ImportError(f"ENCORE_TEST_INSTALLED=1 but encore would be imported from the checkout ({BINDINGS})")
else:
    PACKAGE_PARENT = BINDINGS
    if str(BINDINGS) not in sys.path:
        sys.path.insert(0, str(BINDINGS))

GOOGLE = EXPORTS / "google-sample/sample_diagnosis_key_file.zip"
GOOGLE_PEM = EXPORTS / "google-sample/public_310-v1.pem"
EN_SERVER = EXPORTS / "en-server/testExport-2-records-1-of-1.zip"
EN_SERVER_PEM = EXPORTS / "en-server/public.pem"
CONTRAC = EXPORTS / "contrac/sample_diagnosis_key_file.zip"
COMPANION = EXPORTS / "companion/demo_dks.zip"
IMMUNI = EXPORTS / "immuni/export.bin"
GOOGLE_CPP = EXPORTS / "google-cpp/export.bin"


def run_in_threads(work, count):
    """work(0) ... work(count - 1), each on a thread of its own at the same
    time; returns what they raised, in no order (pytest sees only the main
    thread's failures, so the caller asserts there were none)."""
    errors = []

    def run(n):
        try:
            work(n)
        except BaseException as e:  # noqa: BLE001 - handed to the caller
            errors.append(e)

    threads = [threading.Thread(target=run, args=(n,)) for n in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return errors


class TestClock:
    """A test's clock, as a host's would be: a Client made with
    clock=TestClock(t) reads it at each call, and the test moves it (set,
    advance) as its scenario goes on, the way time passes for an app."""
    __test__ = False

    def __init__(self, now):
        self.now = now

    def __call__(self):
        return self.now

    def set(self, now):
        self.now = now

    def advance(self, seconds):
        self.now += seconds
