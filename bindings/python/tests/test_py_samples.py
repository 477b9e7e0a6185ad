"""The facts of every sample export, read through both open functions."""
import base64
import json

import pytest

import encore
from encore_testdata import COMPANION, CONTRAC, EN_SERVER, EXPORTS, GOOGLE, GOOGLE_CPP, IMMUNI


def read(f, revised=False):
    keys = list(f.keys(revised=revised))
    assert len(keys) == (f.info.revised_key_count if revised else f.info.key_count)
    return keys


def test_google_sample_verifies(source, google_trust):
    with encore.KeyFile.open(source(GOOGLE), trust=google_trust) as f:
        i = f.info
        assert (i.region, i.batch_num, i.batch_size) == ("US", 1, 1)
        assert (i.key_count, i.revised_key_count, i.invalid_key_count) == (140, 0, 0)
        assert i.signature_status == "verified"
        assert (i.signature_key_id, i.signature_key_version) == ("310", "v1")
        assert i.is_zip and 0 < i.start_timestamp < i.end_timestamp
        keys = read(f)
        assert len(keys) == 140 and read(f, revised=True) == []
        assert len({k.key_data for k in keys}) == 140
        assert all(len(k.key_data) == 16 and 1 <= k.rolling_period <= 144 for k in keys)


def test_en_server_keys_equal_keys_json(source, en_server_trust):
    expected = sorted(
        (base64.b64decode(k["key"]), k["rollingStartNumber"], k["rollingPeriod"], k["transmissionRisk"])
        for k in json.loads((EXPORTS / "en-server/keys.json").read_text())["temporaryExposureKeys"])
    with encore.KeyFile.open(source(EN_SERVER), trust=en_server_trust) as f:
        i = f.info
        assert (i.region, i.key_count, i.signature_status) == ("US", 2, "verified")
        assert (i.signature_key_id, i.signature_key_version) == ("some_id", "1")
        got = sorted((k.key_data, k.rolling_start_interval_number, k.rolling_period, k.transmission_risk_level)
                     for k in read(f))
    assert got == expected


def test_contrac_legacy_signature(source, google_trust):
    with pytest.raises(encore.SignatureUntrustedError):
        encore.KeyFile.open(source(CONTRAC))
    # A trust list without its key changes nothing: still untrusted.
    with pytest.raises(encore.SignatureUntrustedError):
        encore.KeyFile.open(source(CONTRAC), trust=google_trust)
    with encore.KeyFile.open(source(CONTRAC), verify=False) as f:
        assert (f.info.region, f.info.key_count, f.info.signature_status) == ("US", 110, "skipped")
        assert f.info.signature_key_id is None
        assert len(read(f)) == 110


def test_companion_unsigned_without_metadata(source):
    with pytest.raises(encore.SignatureMissingError):
        encore.KeyFile.open(source(COMPANION))
    with encore.KeyFile.open(source(COMPANION), verify=False) as f:
        i = f.info
        assert (i.region, i.batch_num, i.batch_size, i.key_count) == (None, 0, 0, 2392)
        assert i.is_zip and i.signature_key_id is None and i.signature_key_version is None
        # More keys than one copy_keys chunk: the chunks must join up exactly.
        keys = read(f)
        assert len({k.key_data for k in keys}) == 2392


@pytest.mark.parametrize("path, region, count", [(IMMUNI, "222", 3), (GOOGLE_CPP, "US", 200)])
def test_bare_export_bin(source, path, region, count):
    with pytest.raises(encore.SignatureMissingError):
        encore.KeyFile.open(source(path))
    with encore.KeyFile.open(source(path), verify=False) as f:
        assert (f.info.is_zip, f.info.region, f.info.key_count) == (False, region, count)
        assert f.info.signature_status == "skipped"
        assert len(read(f)) == count


def test_path_and_bytes_give_the_same_keys():
    with encore.KeyFile.open(GOOGLE_CPP, verify=False) as a, \
            encore.KeyFile.open(GOOGLE_CPP.read_bytes(), verify=False) as b:
        assert a.info == b.info and list(a.keys()) == list(b.keys())
    with encore.KeyFile.open(str(GOOGLE_CPP), verify=False) as c, \
            encore.KeyFile.open(bytearray(GOOGLE_CPP.read_bytes()), verify=False) as d:
        assert c.info == d.info and list(c.keys()) == list(d.keys())
