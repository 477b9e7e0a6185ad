import os
import pathlib
import secrets
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))  # Tests/standins (tlsca)

import pgcluster  # noqa: E402
from apns_standin import APNsStandIn, make_p8  # noqa: E402
from pushd_util import PUSHD  # noqa: E402
from standins import tlsca  # noqa: E402

KEY_ID, TEAM_ID, TOPIC = "ABC123DEFG", "TEAM123456", "org.example.encore"


def pytest_collection_modifyitems(config, items):
    if not os.path.exists(PUSHD):
        pytest.exit(f"{PUSHD} is missing: swift build --package-path server --product encore-pushd (or make test-pushd)", returncode=1)


@pytest.fixture(scope="session")
def tls(tmp_path_factory):
    d = tmp_path_factory.mktemp("ca")
    ca, context = tlsca.make(d)
    return ca, context


@pytest.fixture(scope="session")
def p8(tmp_path_factory):
    d = tmp_path_factory.mktemp("p8")
    path = d / f"AuthKey_{KEY_ID}.p8"
    return path, make_p8(path)


@pytest.fixture
def apns(tls, p8):
    ca, context = tls
    standin = APNsStandIn(context, p8[1], KEY_ID, TEAM_ID, TOPIC)
    yield standin
    standin.stop()


@pytest.fixture
def send_args(tls, p8, apns):
    """The arguments of `encore-pushd send` against the stand-in."""
    return ["--apns", apns.base, "--key", str(p8[0]), "--key-id", KEY_ID, "--team-id", TEAM_ID,
            "--topic", TOPIC, "--ca-file", str(tls[0])]


@pytest.fixture
def sqlcipher_db(tmp_path):
    key = secrets.token_hex(32)
    key_file = tmp_path / "db.key"
    key_file.write_text(key + "\n")
    return {"path": tmp_path / "registry.db", "key": key, "args": ["--db", str(tmp_path / "registry.db"), "--key-file", str(key_file)]}


@pytest.fixture(scope="session")
def pg_cluster():
    try:
        cluster = pgcluster.Cluster()
    except pgcluster.Unavailable as e:
        if os.environ.get("CI"):
            pytest.fail(f"PostgreSQL is required in CI: {e}")
        pytest.skip(f"PostgreSQL cannot run here: {e}")
    yield cluster
    cluster.stop()


@pytest.fixture
def pg(pg_cluster, tmp_path):
    """A fresh database on the session's cluster, and the key its push
    tokens are sealed with."""
    name = "t" + secrets.token_hex(6)
    pg_cluster.sql(f"CREATE DATABASE {name}")
    url = pg_cluster.url.rsplit("/", 1)[0] + "/" + name
    key = secrets.token_hex(32)
    key_file = tmp_path / "pg.key"
    key_file.write_text(key + "\n")

    class DB:
        pass

    db = DB()
    db.url = url
    db.name = name
    db.key = key
    db.args = ["--postgres", url, "--key-file", str(key_file)]
    db.sql = lambda q: pg_cluster.sql_in(name, q)
    db.cluster = pg_cluster
    return db


@pytest.fixture(params=["sqlcipher", "postgres"])
def backend(request, tmp_path):
    """The same test on both storage back-ends: `args` for encore-pushd,
    `rows()` as {instance hash (hex): (push token, type)}, tokens unsealed."""
    from pushd_util import pg_registrations, sqlcipher_rows

    class Backend:
        pass

    b = Backend()
    b.name = request.param
    if request.param == "sqlcipher":
        db = request.getfixturevalue("sqlcipher_db")
        b.args = db["args"]
        b.rows = lambda: {h.lower(): (t, k) for h, t, k in sqlcipher_rows(
            db["path"], db["key"], "SELECT hex(instance_hash), push_token, push_type FROM registrations ORDER BY id")}
    else:
        db = request.getfixturevalue("pg")
        b.args = db.args
        b.rows = lambda: pg_registrations(db)
        b.pg = db
    return b
