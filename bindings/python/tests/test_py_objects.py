"""TrustList and KeyFile objects: lifetime, closing, key material, threads."""
import base64
import itertools
import threading

import pytest

import encore
from encore.keyfile import CHUNK
from encore_testdata import COMPANION, EN_SERVER_PEM, GOOGLE, GOOGLE_PEM, run_in_threads


def test_trust_list_counts_and_replaces():
    with encore.TrustList() as trust:
        assert len(trust) == 0
        trust.add_key("310", "v1", GOOGLE_PEM.read_text())
        trust.add_key("some_id", "1", EN_SERVER_PEM.read_bytes())
        assert len(trust) == 2
        trust.add_key("310", "v1", GOOGLE_PEM.read_bytes())  # same name: replaces
        assert len(trust) == 2
    assert trust.closed
    with pytest.raises(ValueError):
        len(trust)


def test_key_as_der_and_base64():
    pem = GOOGLE_PEM.read_text()
    b64 = "".join(line for line in pem.splitlines() if not line.startswith("-----"))
    for material in (b64, base64.b64decode(b64)):
        with encore.TrustList() as trust:
            trust.add_key("310", "v1", material)
            with encore.KeyFile.open(GOOGLE, trust=trust) as f:
                assert f.info.signature_status == "verified"


@pytest.mark.parametrize("material", [b"not a key", "QUJD", b"", b"\x30\x03\x02\x01\x01",
                                      "-----BEGIN PUBLIC KEY-----\nQUJD\n-----END PUBLIC KEY-----\n"])
def test_bad_key_material_is_a_key_format_error(material):
    with encore.TrustList() as trust:
        with pytest.raises(encore.KeyFormatError) as caught:
            trust.add_key("310", "v1", material)
        assert caught.value.message
        assert len(trust) == 0


def test_key_names_with_nul_are_refused():
    with encore.TrustList() as trust, pytest.raises(ValueError):
        trust.add_key("31\0", "v1", GOOGLE_PEM.read_text())


def test_key_file_outlives_its_trust_list():
    trust = encore.TrustList()
    trust.add_key("310", "v1", GOOGLE_PEM.read_text())
    f = encore.KeyFile.open(GOOGLE, trust=trust)
    trust.close()
    assert len(list(f.keys())) == 140
    with pytest.raises(ValueError):
        encore.KeyFile.open(GOOGLE, trust=trust)  # a closed list cannot be used
    f.close()


def test_closed_key_file_raises():
    with encore.KeyFile.open(GOOGLE, verify=False) as f:
        assert not f.closed
    assert f.closed
    with pytest.raises(ValueError):
        f.info
    with pytest.raises(ValueError):
        list(f.keys())
    f.close()  # closing twice is harmless


def test_close_during_iteration_stops_at_the_next_chunk():
    f = encore.KeyFile.open(COMPANION, verify=False)
    keys = f.keys()
    assert len(list(itertools.islice(keys, CHUNK))) == CHUNK
    f.close()
    with pytest.raises(ValueError):
        next(keys)


def test_eight_threads_read_one_key_file():
    with encore.KeyFile.open(GOOGLE, verify=False) as f:
        expected = list(f.keys())
        start = threading.Barrier(8)
        results = [None] * 8

        def reader(n):
            start.wait()
            for _ in range(20):
                keys = list(f.keys())
                assert keys == expected
            results[n] = keys

        failures = run_in_threads(reader, 8)
    assert failures == []
    assert all(len(r) == 140 and r == expected for r in results)


def test_error_messages_are_per_thread():
    # Each thread fails differently at the same time; each must read its own message.
    cases = [(b"", encore.ZipNotZipError), (GOOGLE.read_bytes()[:100], encore.ZipTruncatedError)] * 4
    alone = {}
    for data, cls in cases[:2]:
        with pytest.raises(cls) as caught:
            encore.KeyFile.open(data, verify=False)
        alone[data] = caught.value.message
    assert len(set(alone.values())) == 2
    start = threading.Barrier(len(cases))
    seen = [None] * len(cases)

    def opener(n):
        start.wait()
        for _ in range(50):
            try:
                encore.KeyFile.open(cases[n][0], verify=False)
            except encore.EncoreError as e:
                seen[n] = (type(e), e.message)

    assert run_in_threads(opener, len(cases)) == []
    for (data, cls), (got, message) in zip(cases, seen):
        assert got is cls
        assert message == alone[data]
