"""Stand-in for the CWA verification server (test-result-and-submission.md).

Behaviour follows the public cwa-verification-server: ExternalTokenController,
ExternalTestStateController, ExternalTanController, FakeRequestService,
RegistrationTokenRequest(Validator), AppSessionService, TanService:
- one registration per hashed GUID (or date-of-birth key), a second → 400;
- a teleTAN must have been issued, be unused and younger than 1 hour;
- malformed bodies, bad key shapes and unknown registration tokens → 400
  (the real server answers 400, never 404, for an unknown token, also one
  deleted 21 days after registration, and for a refused TAN);
- rapid tests register like GUIDs: `key` is SHA-256 of the code's hash text
  (standins/poc.py makes the codes and uploads their results);
- a date-of-birth key whose result differs from the GUID's → 403;
- a TAN only for POSITIVE (2) / rapid POSITIVE (7) or a teleTAN session, and
  at most `tancountermax` (1) per token, else 400;
- `cwa-fake: 1` changes nothing and answers after `state.fake_delay`; fake
  testresult says POSITIVE. Padding fields: registrationToken answers carry 1,
  tan answers 15 characters of responsePadding when a cwa-fake header was sent;
  testresult answers always 45.
- request bodies over 10 000 bytes → 413 (request.sizelimit).

What a good client never does is recorded on each request as a violation
(not refused): a body not padded to exactly 250 bytes, a missing or odd
cwa-fake header, a Content-Type other than JSON (that one is also refused
with 415, as Spring does).
"""

import json
import re
import secrets
import string
import uuid
from hashlib import sha256

from .cwa_state import (POSITIVE, TAN_RESULTS, CwaState, teletan_shape_ok)
from .httpbase import AppServer, Response

REGISTRATION = "/version/v1/registrationToken"
TESTRESULT = "/version/v1/testresult"
TAN = "/version/v1/tan"

GUID_HASH_RE = re.compile(r"^[0-9A-Fa-f]{64}$")
DOB_KEY_RE = re.compile(r"^[XxA-Fa-f0-9]([A-Fa-f0-9]{63})$")
TOKEN_RE = re.compile(r"^[a-f0-9]{8}-[a-f0-9]{4}-4[a-f0-9]{3}-[89aAbB][a-f0-9]{3}-[a-f0-9]{12}$")


def padding(n):
    alphabet = string.ascii_letters + string.digits
    return "".join(secrets.choice(alphabet) for _ in range(n))


class VerificationApp:
    def __init__(self, state, body_size=250, size_limit=10000, unknown_token_status=400):
        self.state = state
        self.body_size = body_size  # None: do not check the padding
        self.size_limit = size_limit
        self.unknown_token_status = unknown_token_status
        self._routes = {REGISTRATION: self._registration, TESTRESULT: self._testresult, TAN: self._tan}

    def owns(self, path):
        return path in self._routes

    def max_request_body(self, path):
        return self.size_limit

    def handle(self, req):
        if req.method != "POST":
            return Response(405)
        self._check_client(req)
        ctype = (req.header("Content-Type") or "").split(";")[0].strip().lower()
        if ctype != "application/json":
            return Response(415)
        try:
            body = json.loads(req.body)
        except ValueError:
            req.notes["rejected"] = "json"
            return Response(400)
        if not isinstance(body, dict):
            req.notes["rejected"] = "json"
            return Response(400)
        req.decoded = body
        return self._routes[req.path](req, body, req.header("cwa-fake") == "1")

    def _check_client(self, req):
        if self.body_size is not None and len(req.body) != self.body_size:
            req.violations.append(f"body is {len(req.body)} bytes, not padded to {self.body_size}")
        fake = req.header("cwa-fake")
        if fake is None:
            req.violations.append("no cwa-fake header")
        elif fake not in ("0", "1"):
            req.violations.append(f"cwa-fake is {fake!r}, not 0 or 1")
        ctype = (req.header("Content-Type") or "").split(";")[0].strip().lower()
        if ctype != "application/json":
            req.violations.append(f"Content-Type {req.header('Content-Type')!r}")

    def _reject(self, req, rule, status=400):
        req.notes["rejected"] = rule
        return Response(status)

    def _fake(self, status, obj):
        return Response.json(status, obj, delay=self.state.fake_wait())

    # --- POST /version/v1/registrationToken ---------------------------------
    def _registration(self, req, body, fake):
        key, key_type, dob = body.get("key"), body.get("keyType"), body.get("keyDob")
        if not isinstance(key, str) or key_type not in ("GUID", "TELETAN"):
            return self._reject(req, "key/keyType")
        if dob is not None and not (isinstance(dob, str) and DOB_KEY_RE.match(dob)):
            return self._reject(req, "keyDob")
        if key_type == "GUID" and not GUID_HASH_RE.match(key):
            return self._reject(req, "guid-hash")
        if key_type == "TELETAN" and not teletan_shape_ok(key):
            return self._reject(req, "teletan-shape")
        if fake:
            return self._fake(201, {"registrationToken": _uuid4(), "responsePadding": padding(1)})
        st = self.state
        with st.lock:
            if key_type == "GUID":
                if st.key_registered(key) or (dob is not None and st.key_registered(dob)):
                    return self._reject(req, "already-registered")
                token = st.new_session("guid", key, dob)
            else:
                tele_hash = sha256(key.encode()).hexdigest()
                if not st.teletan_usable(key):
                    return self._reject(req, "teletan-unknown-used-or-expired")
                if st.key_registered(tele_hash):
                    return self._reject(req, "already-registered")
                st.redeem_teletan(key)
                token = st.new_session("teletan", tele_hash)
        answer = {"registrationToken": token}
        if req.header("cwa-fake") is not None:
            answer["responsePadding"] = padding(1)
        return Response.json(201, answer)

    def _session(self, req, body):
        token = body.get("registrationToken")
        if not isinstance(token, str) or not TOKEN_RE.match(token):
            return None, self._reject(req, "registrationToken-shape")
        return token, None

    # --- POST /version/v1/testresult -------------------------------------------
    def _testresult(self, req, body, fake):
        token, refused = self._session(req, body)
        if refused:
            return refused
        if fake:
            return self._fake(200, {"testResult": POSITIVE, "sc": int(self.state.now()),
                                    "responsePadding": padding(45)})
        st = self.state
        with st.lock:
            session = st.session(token)
            if session is None:
                return self._reject(req, "unknown-token", self.unknown_token_status)
            if session.source == "teletan":
                result, sc, lab = POSITIVE, int(session.created), None
            else:
                r = st.result_for(session.key_hash)
                if session.dob_hash is not None and st.result_for(session.dob_hash).result != r.result:
                    return self._reject(req, "dob-result-mismatch", 403)
                result, sc, lab = r.result, r.sc, r.lab_id
        answer = {"testResult": result}
        if sc is not None:
            answer["sc"] = sc
        if lab is not None:
            answer["labId"] = lab
        answer["responsePadding"] = padding(45)
        return Response.json(200, answer)

    # --- POST /version/v1/tan -------------------------------------------------
    def _tan(self, req, body, fake):
        token, refused = self._session(req, body)
        if refused:
            return refused
        if fake:
            return self._fake(201, {"tan": _uuid4(), "responsePadding": padding(15)})
        st = self.state
        with st.lock:
            session = st.session(token)
            if session is None:
                return self._reject(req, "unknown-token", self.unknown_token_status)
            if session.tan_count >= st.tancountermax:
                return self._reject(req, "tancountermax")
            if session.source == "guid" and st.result_for(session.key_hash).result not in TAN_RESULTS:
                return self._reject(req, "not-positive")
            tan = st.issue_tan(session)
        answer = {"tan": tan}
        if req.header("cwa-fake") is not None:
            answer["responsePadding"] = padding(15)
        return Response.json(201, answer)


def _uuid4():
    return str(uuid.uuid4())


class CwaVerificationServer(AppServer):
    """The verification server alone. `state` is shared with a
    CwaSubmissionServer so TANs issued here are accepted there."""

    def __init__(self, state=None, *, host="127.0.0.1", port=0, **rules):
        """`rules`: body_size (250; None = do not check the padding),
        size_limit (10000), unknown_token_status (400)."""
        self.state = state or CwaState()
        self.app = VerificationApp(self.state, **rules)
        super().__init__([self.app], host, port)
