"""verify=True/False/"report": report mode checks the signature and opens
the file anyway, saying in info.signature_status what the check found."""
import pytest

import encore
from encore_testdata import COMPANION, CONTRAC, GOOGLE, GOOGLE_PEM, EN_SERVER_PEM


def trust_with(key_id, version, pem):
    trust = encore.TrustList()
    trust.add_key(key_id, version, pem.read_bytes())
    return trust


@pytest.mark.parametrize("path, trust, status", [
    (GOOGLE, ("310", "v1", GOOGLE_PEM), "verified"),
    (GOOGLE, ("310", "v1", EN_SERVER_PEM), "invalid"),
    (GOOGLE, None, "untrusted"),
    (CONTRAC, ("310", "v1", GOOGLE_PEM), "untrusted"),
    (COMPANION, None, "unsigned"),
])
def test_report_mode_opens_and_reports(path, trust, status):
    t = trust_with(*trust) if trust else None
    with encore.KeyFile.open(path, trust=t, verify="report") as f:
        assert f.info.signature_status == status
        assert f.info.key_count > 0


def test_require_mode_refuses_what_report_mode_reports():
    with pytest.raises(encore.SignatureInvalidError):
        encore.KeyFile.open(GOOGLE, trust=trust_with("310", "v1", EN_SERVER_PEM))


def test_unknown_mode_is_a_value_error():
    with pytest.raises(ValueError):
        encore.KeyFile.open(GOOGLE, verify="sometimes")
