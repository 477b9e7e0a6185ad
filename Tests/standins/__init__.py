"""Stand-in backends for encore's tests, written from /work/shared/spec.

Each server listens on 127.0.0.1 on a free port in a background thread:

    with CwaDistributionServer() as dist:
        dist.add_day("EUR", "2020-10-10", keys=[make_key(day="2020-10-09", trl=5)])
        ... point encore at dist.url ...
        assert dist.requests[0].path == "/version/v1/diagnosis-keys/country/EUR/date"

All servers record every request (`.requests`, `.requests_to(path)`,
`.wait_for_requests(n)`), accept faults (`.inject(path, status=503)`,
`delay=`, `drop=`, `oversized=`, `malformed=`, `truncate=`, `tamper=`,
`omit_headers=`, `times=None` for persistent, `prefix=True`) and shift their
Date header by `.date_offset` seconds. To import this package from another
test directory, put <repo>/Tests on sys.path.
"""

from . import keyfiles, protos
from .cwa_backend import CwaBackendServer, verification_and_submission
from .cwa_distribution import CwaDistributionServer, day_path, hour_path, twp_path
from .cwa_state import (CwaState, dob_hash, generate_teletan, guid_hash, teletan_check_char,
                        teletan_valid)
from .cwa_submission import CwaSubmissionServer
from .cwa_verification import CwaVerificationServer
from .dp3t import Dp3tServer, verify_signature
from .httpbase import Fault, RecordedRequest, Response, StandinServer
from .keyfiles import SigningKey, make_key

__all__ = [
    "CwaBackendServer", "CwaDistributionServer", "CwaState", "CwaSubmissionServer",
    "CwaVerificationServer", "Dp3tServer", "Fault", "RecordedRequest", "Response",
    "SigningKey", "StandinServer", "day_path", "dob_hash", "generate_teletan", "guid_hash",
    "hour_path", "keyfiles", "make_key", "protos", "teletan_check_char", "teletan_valid",
    "twp_path", "verification_and_submission", "verify_signature",
]
