"""Shared fixtures: trust lists for the signed samples, and a `source`
parameter that runs a test once with a path and once with bytes."""
import pytest

from encore_testdata import EN_SERVER_PEM, GOOGLE_PEM

import encore  # noqa: E402  (encore_testdata puts the package on sys.path)


@pytest.fixture
def google_trust():
    with encore.TrustList() as trust:
        trust.add_key("310", "v1", GOOGLE_PEM.read_text())
        yield trust


@pytest.fixture
def en_server_trust():
    with encore.TrustList() as trust:
        trust.add_key("some_id", "1", EN_SERVER_PEM.read_bytes())
        yield trust


@pytest.fixture(params=["path", "bytes"])
def source(request):
    """Turns a sample's path into what KeyFile.open is given: the path or its bytes."""
    return (lambda path: path) if request.param == "path" else (lambda path: path.read_bytes())


@pytest.fixture
def client(store, clock):
    """The store's client, on the test's clock: for a test module that
    defines `store` and `clock` (each with its own start time)."""
    with encore.Client(store, clock=clock) as c:
        yield c
