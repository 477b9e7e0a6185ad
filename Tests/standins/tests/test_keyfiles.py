"""Signed key files, configuration packages and trace warning packages."""

import io
import zipfile

import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

from standins import keyfiles, protos


@pytest.fixture(scope="module")
def signer():
    return keyfiles.SigningKey(key_id="262", key_version="v1")


def verify_with_cryptography(zip_bytes, pem):
    """An independent check: only the PEM, the zip and `cryptography`."""
    key = serialization.load_pem_public_key(pem)
    with zipfile.ZipFile(io.BytesIO(zip_bytes)) as z:
        data, sig = z.read("export.bin"), z.read("export.sig")
    der = protos.TEKSignatureList.FromString(sig).signatures[0].signature
    decode_dss_signature(der)  # a DER SEQUENCE of r, s
    key.verify(der, data, ec.ECDSA(hashes.SHA256()))
    return data


def test_key_file_has_header_all_fields_and_a_valid_signature(signer, tmp_path):
    keys = [keyfiles.make_key(b"\x01" * 16, day="2020-10-10", trl=6, report_type=1, dsos=-2),
            keyfiles.make_key(b"\x02" * 16, 2_670_000, rolling_period=100)]
    revised = [keyfiles.make_key(b"\x01" * 16, day="2020-10-10", report_type=5)]
    z = keyfiles.key_file(keys, signer, start_timestamp=1_602_288_000, end_timestamp=1_602_374_400,
                          region="DE", batch_num=1, batch_size=1, revised_keys=revised)
    pem = signer.write_public_pem(tmp_path / "public.pem")
    data = verify_with_cryptography(z, pem.read_bytes())
    assert data[:16] == b"EK Export v1    "
    export = keyfiles.parse_export(data)
    assert (export.start_timestamp, export.end_timestamp, export.region) == (1_602_288_000, 1_602_374_400, "DE")
    assert (export.batch_num, export.batch_size) == (1, 1)
    info = export.signature_infos[0]
    assert (info.verification_key_id, info.verification_key_version, info.signature_algorithm) == (
        "262", "v1", "1.2.840.10045.4.3.2")
    assert list(export.keys) == keys and list(export.revised_keys) == revised
    assert export.keys[0].rolling_start_interval_number == keyfiles.rolling_start("2020-10-10")
    assert export.keys[0].days_since_onset_of_symptoms == -2
    sig = protos.TEKSignatureList.FromString(keyfiles.read_package(z)[1]).signatures[0]
    assert sig.signature_info.verification_key_id == "262"
    assert keyfiles.verify_package(z, signer)
    assert signer.trust_arg(pem) == f"262:v1:{pem}"


def test_public_key_forms_agree(signer):
    from_pem = serialization.load_pem_public_key(signer.public_pem)
    from_b64 = serialization.load_der_public_key(__import__("base64").b64decode(signer.public_b64))
    assert from_pem.public_numbers() == from_b64.public_numbers() == signer.public_key.public_numbers()


def test_tampered_package_is_a_valid_zip_whose_signature_fails(signer):
    z = keyfiles.key_file([keyfiles.make_key()], signer)
    bad = keyfiles.tamper_package(z)
    keyfiles.read_package(bad)
    assert not keyfiles.verify_package(bad, signer)
    assert not keyfiles.verify_package(z, keyfiles.SigningKey())


def test_unsigned_and_extra_member_variants(signer):
    z = keyfiles.key_file([keyfiles.make_key()], signer, omit_sig=True)
    assert zipfile.ZipFile(io.BytesIO(z)).namelist() == ["export.bin"]
    with pytest.raises(ValueError):
        keyfiles.read_package(z)
    z = keyfiles.key_file([keyfiles.make_key()], signer, extra_members=[("evil.txt", b"x")])
    with pytest.raises(ValueError):
        keyfiles.read_package(z)
    stored = keyfiles.key_file([keyfiles.make_key()], signer, compression=zipfile.ZIP_STORED)
    assert zipfile.ZipFile(io.BytesIO(stored)).infolist()[0].compress_type == zipfile.ZIP_STORED


def test_app_config_package_has_no_header(signer):
    cfg = protos.ApplicationConfigurationAndroid(minVersionCode=5)
    z = keyfiles.app_config_package(cfg, signer)
    data = verify_with_cryptography(z, signer.public_pem)
    assert data == cfg.SerializeToString()
    assert protos.ApplicationConfigurationAndroid.FromString(data).minVersionCode == 5


def test_trace_warning_package_has_no_header(signer):
    pkg = protos.TraceWarningPackage(intervalNumber=450000, region="DE")
    z = keyfiles.trace_warning_package(pkg, signer)
    data = verify_with_cryptography(z, signer.public_pem)
    assert protos.TraceWarningPackage.FromString(data) == pkg


def test_daily_keys_are_consecutive_days_newest_first():
    keys = keyfiles.daily_keys(3, newest_day="2020-10-10", trl=4)
    assert [k.rolling_start_interval_number for k in keys] == [
        keyfiles.rolling_start("2020-10-10") - i * 144 for i in range(3)]
    assert all(len(k.key_data) == 16 and k.transmission_risk_level == 4 for k in keys)
