"""Python bindings of libencore, the Exposure Notification core.

    import encore
    with encore.TrustList() as trust:
        trust.add_key("310", "v1", open("public_310-v1.pem").read())
        with encore.KeyFile.open("export.zip", trust=trust) as f:
            print(f.info.region, sum(1 for _ in f.keys()))

    with encore.Store.open("state.db", "passphrase") as store:
        store.set_setting("onboarded", 1)
        for day in store.missing_keyfiles("DE", server_days):
            store.import_keyfile("DE", day, download(day), trust, etag=etag_of(day))

Every failing library call raises an EncoreError subclass named after its
status (ENCORE_ERR_ZIP_CRC -> encore.ZipCrcError). The library is the one
installed with the package (a wheel from `make wheel` carries it), else
ENCORE_LIBRARY, else the repository's build/lib/libencore.so, else the system.
"""
from . import _ffi, crowdnotifier, tracing
from ._loader import lib as _lib
from .client import Client
from .checkins import (CheckIn, CheckInAssessment, CheckInRecord, CheckInRiskConfig, CheckIns, CreatedLocation, ProtectedReport,
                       TraceLocation, WarningMatchSummary, create_location)
from .errors import CLASSES as _CLASSES, EncoreError, status_name_of as status_name
from .keyfile import KeyFile
from .operation import Operation, Request
from .push import Push, PushDecision
from .records import (CachedKeyFileInfo, Key, KeyFileInfo, OwnKey, PurgeCounts, RiskResult, Sighting,
                      TracingEvent)
from .store import Store
from .sync import Sync, SyncPlan, SyncReport
from .testresult import SubmitSummary, TestResultClient, TestStatus
from .transport import Transport
from .tracing import Tracer
from .trust import TrustList

__version__ = _lib.encore_version().decode()
globals().update(_CLASSES)

__all__ = ["CachedKeyFileInfo", "CheckIn", "Client", "CheckInAssessment", "CheckInRecord", "CheckInRiskConfig", "CheckIns", "CreatedLocation", "EncoreError", "Key", "KeyFile", "KeyFileInfo", "Operation", "OwnKey", "ProtectedReport", "Push", "PushDecision",
           "PurgeCounts", "Request", "RiskResult", "Sighting", "Store", "SubmitSummary", "Sync", "SyncPlan", "SyncReport", "TestResultClient", "TestStatus", "Tracer", "TracingEvent",
           "TraceLocation", "Transport", "TrustList", "WarningMatchSummary", "create_location", "status_name",
           "__version__", "crowdnotifier", "tracing", *sorted(_CLASSES)]
