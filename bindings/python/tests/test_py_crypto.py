"""The published ENF v1.2 test vectors (Tests/data/enf/test_vectors_v1.2.json)
through the C API: the TEK's RPIK and AEMK and all 144 RPIs and AEMs."""
import json

import pytest

import encore
from encore import crypto
from encore_testdata import REPO

VECTORS = json.loads((REPO / "Tests/data/enf/test_vectors_v1.2.json").read_text())


def test_derived_keys():
    tek = bytes.fromhex(VECTORS["tek"])
    assert crypto.rpik(tek).hex() == VECTORS["rpik"]
    assert crypto.aemk(tek).hex() == VECTORS["aemk"]


def test_all_144_rpis_and_aems():
    rpik = bytes.fromhex(VECTORS["rpik"])
    aemk = bytes.fromhex(VECTORS["aemk"])
    metadata = bytes.fromhex(VECTORS["ble_metadata"])
    start = VECTORS["rolling_start_interval_number"]
    rpis = crypto.rpis(rpik, start, VECTORS["rolling_period"])
    assert len(VECTORS["intervals"]) == 144 == len(rpis)
    for rpi, expected in zip(rpis, VECTORS["intervals"]):
        assert rpi.hex() == expected["rpi"], expected["enin"]
        aem = crypto.aem(aemk, rpi, metadata)
        assert aem.hex() == expected["aem"], expected["enin"]
        assert crypto.aem(aemk, rpi, aem) == metadata


def test_bad_lengths_raise():
    with pytest.raises(encore.EncoreError) as e:
        crypto.rpik(b"short")
    assert e.value.status_name == "ENCORE_ERR_INVALID_ARGUMENT"
    with pytest.raises(encore.EncoreError):
        crypto.rpis(bytes(16), 0, 145)
    with pytest.raises(encore.EncoreError):
        crypto.aem(bytes(16), bytes(16), bytes(17))
