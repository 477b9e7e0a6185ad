"""Python bindings of libencore, the Exposure Notification core.

    import encore
    with encore.TrustList() as trust:
        trust.add_key("310", "v1", open("public_310-v1.pem").read())
        with encore.KeyFile.open("export.zip", trust=trust) as f:
            print(f.info.region, sum(1 for _ in f.keys()))

    with encore.Client.open("state.db", "passphrase", trust=trust) as client:
        client.store.set_setting("onboarded", 1)
        for day in client.keyfiles.missing("DE", server_days):
            client.keyfiles.add("DE", day, download(day), trust, etag=etag_of(day))

Every failing library call raises an EncoreError subclass named after its
status (ENCORE_ERR_ZIP_CRC -> encore.ZipCrcError). The library is the one
installed with the package (a wheel from `make wheel` carries it), else
ENCORE_LIBRARY, else the repository's build/lib/libencore.so, else the system.
"""
from . import _ffi, crowdnotifier, tracing
from ._cdata import decoded as _decoded
from ._loader import lib as _lib
from .client import Client
from .checkins import (CheckIn, CheckInAssessment, CheckInReport, CheckInRecord, CheckInRiskConfig, CheckIns, CreatedLocation, ProtectedReport,
                       TraceLocation, WarningMatchSummary, create_location)
from .errors import CLASSES as _CLASSES, EncoreError, status_name_of as status_name
from .keyfile import KeyFile
from .operation import Operation, Request
from .push import Push, PushDecision, PushStatus
from .records import (CachedKeyFileInfo, Key, KeyFileInfo, OwnKey, PurgeCounts, RiskResult, Sighting,
                      TracingEvent)
from .store import Store
from .sync import Sync, SyncConfiguration, SyncItem, SyncPlan, SyncReport
from .testresult import SubmitSummary, TestResultClient, TestStatus
from .transport import Transport
from .tracing import Tracer
from .trust import TrustList

__version__ = _decoded(_lib.encore_version(), "version")
globals().update(_CLASSES)


def __getattr__(name: str) -> type[EncoreError]:
    """The status exceptions (NotFoundError, ZipCrcError, ...) are made at
    import from the header's ENCORE_ERR_* constants and are attributes of
    the module; this hook only tells type checkers that an attribute not
    declared here is one of them (PEP 562). Any other name is an AttributeError."""
    raise AttributeError(f"module 'encore' has no attribute {name!r}")

__all__ = ["CachedKeyFileInfo", "CheckIn", "Client", "CheckInAssessment", "CheckInRecord", "CheckInReport", "CheckInRiskConfig", "CheckIns", "CreatedLocation", "EncoreError", "Key", "KeyFile", "KeyFileInfo", "Operation", "OwnKey", "ProtectedReport", "Push", "PushDecision", "PushStatus",
           "PurgeCounts", "Request", "RiskResult", "Sighting", "Store", "SubmitSummary", "Sync", "SyncConfiguration", "SyncItem", "SyncPlan", "SyncReport", "TestResultClient", "TestStatus", "Tracer", "TracingEvent",
           "TraceLocation", "Transport", "TrustList", "WarningMatchSummary", "create_location", "status_name",
           "__version__", "crowdnotifier", "tracing", *sorted(_CLASSES)]
