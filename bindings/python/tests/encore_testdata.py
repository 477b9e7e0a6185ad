"""Paths of the sample exports (a uniquely named module, so that test
directories with their own conftest.py can be collected in the same run)."""
import pathlib
import sys

BINDINGS = pathlib.Path(__file__).resolve().parent.parent
REPO = BINDINGS.parent.parent
EXPORTS = REPO / "Tests/data/exports"
# Import the package under test from this checkout, not an installed copy.
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
