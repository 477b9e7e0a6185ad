"""Broken, unsigned and tampered inputs raise the exception of their status."""
import io
import random
import struct
import zipfile

import pytest

import encore
from encore_testdata import CONTRAC, COMPANION, EN_SERVER, GOOGLE, GOOGLE_PEM


def open_fails(data, expected, **options):
    """Opens `data`, expecting `expected`; returns the exception for more checks."""
    with pytest.raises(expected) as caught:
        encore.KeyFile.open(data, **options)
    e = caught.value
    assert isinstance(e, encore.EncoreError)
    assert e.message and e.message in str(e)
    assert e.status_name == encore.status_name(e.status) and e.status_name.startswith("ENCORE_ERR_")
    return e


def test_untrusted_and_missing_signatures(google_trust):
    e = open_fails(CONTRAC, encore.SignatureUntrustedError, trust=google_trust)
    assert (e.status, e.status_name) == (encore._ffi.ENCORE_ERR_SIGNATURE_UNTRUSTED, "ENCORE_ERR_SIGNATURE_UNTRUSTED")
    open_fails(COMPANION, encore.SignatureMissingError)
    open_fails(COMPANION.read_bytes(), encore.SignatureMissingError, trust=google_trust)


def test_trusted_name_with_the_wrong_key_is_invalid():
    # The en-server file names key ("some_id", "1"); trusting another key under
    # that name must make verification fail, not pass or report "untrusted".
    with encore.TrustList() as trust:
        trust.add_key("some_id", "1", GOOGLE_PEM.read_text())
        open_fails(EN_SERVER, encore.SignatureInvalidError, trust=trust)


@pytest.mark.parametrize("data", [random.Random(20200410).randbytes(4096), b"PK", b"not a zip at all"])
def test_not_a_zip(data):
    open_fails(data, encore.ZipNotZipError, verify=False)


def test_zero_bytes():
    open_fails(b"", encore.ZipNotZipError, verify=False)


def test_truncated_zip():
    data = GOOGLE.read_bytes()
    open_fails(data[: len(data) // 2], encore.ZipTruncatedError, verify=False)
    # Losing only the last bytes (inside the end-of-central-directory record)
    # must fail as cleanly.
    open_fails(data[:-5], encore.EncoreError, verify=False)


def rezipped(data, replace):
    """The zip `data` with export.bin passed through `replace`, re-deflated with
    correct CRCs, so only the signature can notice the change."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            member = src.read(info)
            dst.writestr(info.filename, replace(member) if info.filename == "export.bin" else member)
    return out.getvalue()


def test_changed_key_in_signed_export_fails_verification(google_trust):
    data = GOOGLE.read_bytes()
    with encore.KeyFile.open(data, trust=google_trust) as f:
        first = next(f.keys()).key_data

    def flip(export):
        at = export.index(first) + 3
        return export[:at] + bytes([export[at] ^ 0x01]) + export[at + 1:]

    tampered = rezipped(data, flip)
    open_fails(tampered, encore.SignatureInvalidError, trust=google_trust)
    # The re-zipping itself is harmless: unchanged content still verifies.
    with encore.KeyFile.open(rezipped(data, lambda b: b), trust=google_trust) as f:
        assert f.info.signature_status == "verified"
    # Without verification the tampered file reads, with the changed key.
    with encore.KeyFile.open(tampered, verify=False) as f:
        assert first not in {k.key_data for k in f.keys()}


def test_flipped_byte_in_compressed_export_bin():
    data = bytearray(GOOGLE.read_bytes())
    with zipfile.ZipFile(io.BytesIO(bytes(data))) as z:
        info = z.getinfo("export.bin")
    name_len, extra_len = struct.unpack_from("<HH", data, info.header_offset + 26)
    start = info.header_offset + 30 + name_len + extra_len
    data[start + info.compress_size // 2] ^= 0x40
    e = open_fails(bytes(data), encore.EncoreError, verify=False)
    assert isinstance(e, (encore.ZipCrcError, encore.ZipCorruptError))


def test_limits():
    open_fails(GOOGLE, encore.ZipLimitError, verify=False, max_member_size=1000)
    open_fails(GOOGLE, encore.ZipLimitError, verify=False, max_total_size=1000)
    open_fails(GOOGLE, encore.InvalidArgumentError, verify=False, max_member_size=0)
    # Negative or oversized numbers would wrap around in ctypes: refused in Python.
    for bad in ({"max_member_size": -1}, {"max_ratio": 1 << 32}, {"max_total_size": "1"}):
        with pytest.raises(ValueError):
            encore.KeyFile.open(GOOGLE, verify=False, **bad)
    with encore.KeyFile.open(GOOGLE, verify=False, max_ratio=0) as f:
        assert f.info.key_count == 140


def test_missing_file_is_an_io_error(tmp_path):
    open_fails(tmp_path / "absent.zip", encore.IoError, verify=False)


def test_bad_arguments_are_python_errors(google_trust):
    with pytest.raises(TypeError):
        encore.KeyFile.open(12345)
    with pytest.raises(TypeError):
        encore.KeyFile.open(GOOGLE, trust="310")
    with pytest.raises(ValueError):
        encore.KeyFile.open(str(GOOGLE) + "\0.zip")
