"""Stand-in for a push-token registry (push.md): SwissCovid's
`POST /v3/register` (a PushRegistration protobuf; an empty pushToken
deregisters) and encore-pushd's `PUT` / `DELETE /v1/registrations` (JSON,
the app-instance token as `Authorization: Bearer`). It keeps registrations
by instance token and answers 200 (v3) or 204 (v1) whether or not one
existed, as a good registry does; the client's tests read its model.
"""

import json
import threading

from . import protos
from .httpbase import Response, StandinServer

REGISTER = "/v3/register"
REGISTRATIONS = "/v1/registrations"
TYPES = {0: "ios", 1: "android", 2: "ios-sandbox"}


class PushRegistryServer(StandinServer):
    def __init__(self, host="127.0.0.1", port=0):
        super().__init__(host, port)
        self._model = threading.Lock()
        self.registrations = {}  # instance token -> (push token, type)

    def max_request_body(self, path):
        return 8192

    def handle(self, req):
        if req.path == REGISTER and req.method == "POST":
            if req.header("Content-Type") != "application/x-protobuf":
                req.violations.append(f"Content-Type {req.header('Content-Type')!r}")
            try:
                m = protos.PushRegistration.FromString(req.body)
            except Exception:  # noqa: BLE001 - any parse failure is a 400
                return Response(400)
            req.decoded = m
            return self._apply(m.deviceId, m.pushToken, TYPES.get(m.pushType), ok=200)
        if req.path == REGISTRATIONS and req.method in ("PUT", "DELETE"):
            auth = req.header("Authorization") or ""
            if not auth.startswith("Bearer "):
                return Response(401)
            instance = auth[len("Bearer "):]
            if req.method == "DELETE":
                return self._apply(instance, "", None, ok=204)
            try:
                body = json.loads(req.body)
                req.decoded = body
                return self._apply(instance, body["pushToken"], body["pushType"], ok=204)
            except (ValueError, KeyError, TypeError):
                return Response(400)
        return Response(404)

    def _apply(self, instance, token, kind, ok):
        if not 32 <= len(instance) <= 128 or (token and kind is None):
            return Response(400)
        with self._model:
            if token:
                self.registrations[instance] = (token, kind)
            else:
                self.registrations.pop(instance, None)
        return Response(ok)
