"""Stand-in for the DP-3T / SwissCovid backends' download side (sync.md):
`GET /v2/gaen/exposed?lastKeyBundleTag=T` and `GET /v3/traceKeys?lastKeyBundleTag=T`.

Bundle tags (milliseconds) follow dp3t-sdk-backend's GaenV2Controller and
swisscovid-cn-sdk-backend's SwissCovidControllerV3, with sync.md's status
codes: the answer holds everything published in [T, tag) where
tag = now rounded down to the release bucket (2 h for exposure keys, 60 s
for trace keys) and is sent back as `x-key-bundle-tag`; no T = everything
published before tag; T not aligned → 400; T in the future → 404; no new
exposure keys → 204 (still with the tag). Trace keys answer 200 with an empty
wrapper when nothing is new, as the backend does. (The real trace-key
backend answers 404 to an unaligned tag as well; sync.md's 400 is used.)

Every 200 and 204 answer carries `Signature`: an ES256 JWT whose claims are
`content-hash` (standard base64 of SHA-256 of the body), `hash-alg`
("sha-256"), `iss` ("dp3t"), `iat` and `exp` (iat + retention days), as
dp3t-sdk-backend's SignatureResponseWrapper builds them.
"""

import base64
import hashlib
import time

from . import jws, keyfiles, protos
from .httpbase import Response, StandinServer

EXPOSED = "/v2/gaen/exposed"
TRACE_KEYS = "/v3/traceKeys"
HOUR_MS = 3600 * 1000


class Dp3tServer(StandinServer):
    def __init__(self, *, exposure_bucket_ms=2 * HOUR_MS, trace_bucket_ms=60 * 1000,
                 now_ms=None, jwt_key=None, key_signer=None, retention_days=14,
                 region="CH", host="127.0.0.1", port=0):
        super().__init__(host, port)
        self.exposure_bucket_ms = exposure_bucket_ms
        self.trace_bucket_ms = trace_bucket_ms
        self.now_ms = now_ms  # None: the real clock; an int, or a callable returning one
        self.jwt_key = jwt_key or keyfiles.SigningKey(key_id="dp3t", key_version="v1")
        self.key_signer = key_signer or keyfiles.SigningKey(key_id="228", key_version="v1",
                                                            app_bundle_id="ch.admin.bag.dp3t",
                                                            android_package="ch.admin.bag.dp3t")
        self.retention_days = retention_days
        self.region = region
        self.issuer = "dp3t"
        self._exposed = []  # (published_ms, TemporaryExposureKey)
        self._trace = []  # (published_ms, ProblematicEvent of either layout)

    # --- model -------------------------------------------------------------
    def now(self):
        n = self.now_ms
        if n is None:
            return int(time.time() * 1000)
        return int(n() if callable(n) else n)

    def add_exposed_key(self, key, published_ms=None):
        with self._lock:
            self._exposed.append((self.now() if published_ms is None else published_ms, key))

    def add_trace_key(self, event, published_ms=None):
        """`event`: a protos.ProblematicEvent (SwissCovid) or
        ProblematicEventNotifyMe."""
        with self._lock:
            self._trace.append((self.now() if published_ms is None else published_ms, event))

    def clear(self):
        with self._lock:
            self._exposed.clear()
            self._trace.clear()

    @property
    def public_key(self):
        return self.jwt_key.public_key

    @property
    def public_pem(self):
        return self.jwt_key.public_pem

    def bundle_tag(self, bucket_ms):
        return self.now() // bucket_ms * bucket_ms

    # --- serving -----------------------------------------------------------
    def handle(self, req):
        if req.path not in (EXPOSED, TRACE_KEYS):
            return Response(404)
        if req.method != "GET":
            return Response(405)
        exposed = req.path == EXPOSED
        bucket = self.exposure_bucket_ms if exposed else self.trace_bucket_ms
        raw = req.query.get("lastKeyBundleTag", [None])[0]
        since = None
        if raw not in (None, ""):
            try:
                since = int(raw)
            except ValueError:
                return self._reject(req, "tag-not-a-number", 400)
            if since % bucket:
                return self._reject(req, "tag-unaligned", 400)
            if since > self.now():
                return self._reject(req, "tag-in-future", 404)
        tag = self.bundle_tag(bucket)
        lo = since if since is not None else tag - self.retention_days * 86400 * 1000
        with self._lock:
            items = list(self._exposed if exposed else self._trace)
        picked = [item for published, item in sorted(items, key=lambda x: x[0])
                  if lo <= published < tag]
        headers = [("x-key-bundle-tag", str(tag)), ("Cache-Control", "max-age=60")]
        if exposed:
            if not picked:
                return self._signed(Response(204, b"", headers))
            body = keyfiles.key_file(picked, self.key_signer, start_timestamp=max(lo, 0) // 1000,
                                     end_timestamp=tag // 1000, region=self.region)
            return self._signed(Response(200, body, headers + [("Content-Type", "application/zip")]))
        accept = req.header("Accept") or ""
        if "application/x-protobuf" not in accept:
            req.violations.append(f"Accept {accept!r}, not application/x-protobuf")
        body = protos.wrap_events(picked, version=3)
        return self._signed(Response(200, body, headers + [("Content-Type", "application/x-protobuf")]))

    def _reject(self, req, rule, status):
        req.notes["rejected"] = rule
        return Response(status)

    def _signed(self, resp):
        now_s = self.now() // 1000
        claims = {
            "content-hash": base64.b64encode(hashlib.sha256(resp.body).digest()).decode(),
            "hash-alg": "sha-256",
            "iss": self.issuer,
            "iat": now_s,
            "exp": now_s + self.retention_days * 86400,
        }
        resp.headers.append(("Signature", jws.sign(claims, self.jwt_key.private_key)))
        return resp


def verify_signature(body, token, public_key):
    """The claims when `token` verifies and its content-hash matches `body`,
    else ValueError."""
    claims = jws.verify(token, public_key)
    want = base64.b64encode(hashlib.sha256(body).digest()).decode()
    if claims.get("content-hash") != want:
        raise ValueError("content-hash does not match the body")
    return claims
