"""Stand-in for the CWA submission server (test-result-and-submission.md).

Follows cwa-server's SubmissionController and ValidSubmissionPayload:
- `cwa-fake: 0` is a real submission; any other value is fake: 200 after
  `state.fake_delay`, nothing validated or kept;
- the payload is validated in the server's order, the first broken rule
  answers 400 (the rule's name is kept in `req.notes["rejected"]`):
  rolling-start-midnight, key-count (1..14), origin (empty or DE),
  visited-countries (supported list), trl-or-dsos-present, trl-range (1..8),
  dsos-range (-14..4000), checkins (deprecated CheckIn: TRL 1..8, start > 0,
  end > start), rolling-period (1..144), key-data-length (16), submission-type
  (0..2 with a TAN);
- then the TAN (`cwa-authorization`, raw UUID) must be known, unused and
  younger than 14 days, else 403; a 200 uses it up;
- keys older than 14 days or starting in the future are dropped silently;
- bodies over 100 KB → 413 before anything else.
A client's padding is checked but not refused: `requestPadding` should be
28 × max(15 − keys, 0) bytes; a mismatch, a missing cwa-fake header or a
wrong Content-Type is recorded as a violation of the request.
"""

import datetime as dt
from dataclasses import dataclass, field

from google.protobuf.message import DecodeError

from . import protos
from .cwa_state import CwaState
from .httpbase import AppServer, Response

SUBMISSION = "/version/v1/diagnosis-keys"

# Countries EFGS federated with CWA (cwa-server application.yaml
# supported-countries); tests may replace the list.
SUPPORTED_COUNTRIES = ("DE", "AT", "BE", "BG", "CH", "CY", "CZ", "DK", "EE", "ES", "FI", "FR",
                       "GR", "HR", "HU", "IE", "IS", "IT", "LI", "LT", "LU", "LV", "MT", "NL",
                       "NO", "PL", "PT", "RO", "SE", "SI", "SK")


@dataclass
class Submission:
    """One accepted real submission."""
    payload: object  # protos.SubmissionPayload
    tan: str
    time: float
    kept_keys: list = field(default_factory=list)  # after the retention/future filter
    dropped_keys: list = field(default_factory=list)

    @property
    def padding_length(self):
        return len(self.payload.requestPadding)


class SubmissionApp:
    def __init__(self, state, *, max_keys=14, retention_days=14, size_limit=100 * 1024,
                 supported_countries=SUPPORTED_COUNTRIES, padding_per_missing_key=28,
                 padded_key_count=15, padded_size=None):
        self.state = state
        self.max_keys = max_keys
        self.retention_days = retention_days
        self.size_limit = size_limit
        self.supported_countries = tuple(supported_countries)
        self.padding_per_missing_key = padding_per_missing_key  # None: do not check
        self.padded_key_count = padded_key_count
        # encore's rule instead of CWA's 28 bytes per missing key: every
        # payload padded to a multiple of this size (the same for all).
        self.padded_size = padded_size
        self.saved_checkins_override = None  # (filtered, saved) to answer, for header tests

    def owns(self, path):
        return path == SUBMISSION

    def max_request_body(self, path):
        return self.size_limit

    def handle(self, req):
        if req.method != "POST":
            return Response(405)
        fake_header = req.header("cwa-fake")
        ctype = (req.header("Content-Type") or "").split(";")[0].strip().lower()
        if fake_header is None:
            req.violations.append("no cwa-fake header")
        if ctype != "application/x-protobuf":
            req.violations.append(f"Content-Type {req.header('Content-Type')!r}")
        try:
            payload = protos.SubmissionPayload.FromString(req.body)
        except DecodeError:
            payload = None
        req.decoded = payload
        if payload is not None:
            self._check_padding(req, payload)
        if fake_header is None:
            return self._reject(req, "cwa-fake-missing")
        if fake_header != "0":
            return Response(200, delay=self.state.fake_wait())
        if ctype != "application/x-protobuf":
            return Response(415)
        if payload is None:
            return self._reject(req, "decode")
        tan = req.header("cwa-authorization")
        if not tan:
            return self._reject(req, "cwa-authorization-missing")
        rule = self.broken_rule(payload)
        if rule:
            return self._reject(req, rule)
        kept, dropped = self._filter_keys(payload)
        if not self.state.consume_tan(tan):
            return self._reject(req, "tan", 403)
        sub = Submission(payload, tan, self.state.now(), kept, dropped)
        with self.state.lock:
            self.state.submissions.append(sub)
        req.notes["submission"] = sub
        checkins = len(payload.checkIns) + len(payload.checkInProtectedReports)
        filtered, saved = self.saved_checkins_override or (0, checkins)
        return Response(200, headers=[("cwa-filtered-checkins", str(filtered)),
                                      ("cwa-saved-checkins", str(saved))])

    def _reject(self, req, rule, status=400):
        req.notes["rejected"] = rule
        return Response(status)

    def _check_padding(self, req, payload):
        if self.padded_size is not None:
            if len(req.body) % self.padded_size:
                req.violations.append(f"the payload is {len(req.body)} bytes, not a multiple of {self.padded_size}")
            return
        if self.padding_per_missing_key is None:
            return
        want = self.padding_per_missing_key * max(self.padded_key_count - len(payload.keys), 0)
        got = len(payload.requestPadding)
        if got != want:
            req.violations.append(f"requestPadding is {got} bytes for {len(payload.keys)} keys, "
                                  f"expected {want}")

    def broken_rule(self, p):
        """The first validation rule `p` breaks, in the server's order, or None."""
        keys = list(p.keys)
        if any(k.rolling_start_interval_number % 144 for k in keys):
            return "rolling-start-midnight"
        if not 1 <= len(keys) <= self.max_keys:
            return "key-count"
        if p.HasField("origin") and p.origin and p.origin != "DE":
            return "origin"
        if any(c not in self.supported_countries for c in p.visitedCountries):
            return "visited-countries"
        if any(not k.HasField("transmission_risk_level")
               and not k.HasField("days_since_onset_of_symptoms") for k in keys):
            return "trl-or-dsos-present"
        if any(k.HasField("transmission_risk_level") and not 1 <= k.transmission_risk_level <= 8
               for k in keys):
            return "trl-range"
        if any(k.HasField("days_since_onset_of_symptoms")
               and not -14 <= k.days_since_onset_of_symptoms <= 4000 for k in keys):
            return "dsos-range"
        for c in p.checkIns:
            if not (1 <= c.transmissionRiskLevel <= 8 and c.startIntervalNumber > 0
                    and c.endIntervalNumber > c.startIntervalNumber):
                return "checkins"
        if any(not 1 <= k.rolling_period <= 144 for k in keys):
            return "rolling-period"
        if any(len(k.key_data) != 16 for k in keys):
            return "key-data-length"
        if not 0 <= p.submissionType <= 2:
            return "submission-type"
        return None

    def _filter_keys(self, p):
        now = self.state.now()
        oldest = int(now - self.retention_days * 86400) // 600
        current = int(now) // 600
        kept, dropped = [], []
        for k in p.keys:
            ok = oldest <= k.rolling_start_interval_number <= current
            (kept if ok else dropped).append(k)
        return kept, dropped


class CwaSubmissionServer(AppServer):
    """The submission server alone; give it the CwaState of a
    CwaVerificationServer to accept the TANs that one issues."""

    def __init__(self, state=None, *, host="127.0.0.1", port=0, **rules):
        self.state = state or CwaState()
        self.app = SubmissionApp(self.state, **rules)
        super().__init__([self.app], host, port)

    @property
    def submissions(self):
        with self.state.lock:
            return list(self.state.submissions)


def utc_day(rolling_start_interval_number):
    return dt.datetime.fromtimestamp(rolling_start_interval_number * 600, dt.timezone.utc).date()
