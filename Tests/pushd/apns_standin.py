"""An APNs stand-in: HTTP/2 over TLS (h2, ALPN "h2" only) with a certificate
of a CA the test makes. It checks every push as APNs would (the ES256
provider token against the .p8's public key, kid, iss, iat; the headers;
the body), counts pushes per token, and can be told to reject tokens
(400 BadDeviceToken, 410 Unregistered, 400 DeviceTokenNotForTopic) or to
answer 429 / 503 for a while."""
import asyncio
import base64
import collections
import json
import ssl
import threading
import time

import h2.config
import h2.connection
import h2.events
import h2.exceptions
import h2.settings
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, utils

PAYLOAD = {"aps": {"content-available": 1}}


def b64url_decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def make_p8(path):
    """Writes a P-256 private key as Apple's .p8 (PKCS#8 PEM); returns its public key."""
    key = ec.generate_private_key(ec.SECP256R1())
    path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                       serialization.NoEncryption()))
    return key.public_key()


class APNsStandIn:
    def __init__(self, tls_context, public_key, key_id, team_id, topic):
        tls_context.set_alpn_protocols(["h2"])
        self.tls = tls_context
        self.public_key, self.key_id, self.team_id, self.topic = public_key, key_id, team_id, topic
        self.lock = threading.Lock()
        self.pushes = collections.Counter()    # token -> accepted pushes
        self.log = []                          # (time, token, status, reason)
        self.errors = []                       # what a real APNs would refuse
        self.jwts = {}                         # provider token -> first time seen
        self.reject = {}                       # token -> (status, reason)
        self.throttle = 0                      # answer 429 to this many next requests
        self.unavailable = 0                   # answer 503 to this many next requests
        self.protocols = set()
        self.connections = 0
        self.loop = asyncio.new_event_loop()
        self.port = None
        ready = threading.Event()
        self.thread = threading.Thread(target=self._run, args=(ready,), daemon=True)
        self.thread.start()
        ready.wait(10)

    @property
    def base(self):
        return f"https://127.0.0.1:{self.port}"

    def _run(self, ready):
        asyncio.set_event_loop(self.loop)
        server = self.loop.run_until_complete(
            asyncio.start_server(self._connection, "127.0.0.1", 0, ssl=self.tls, backlog=128))
        self.port = server.sockets[0].getsockname()[1]
        ready.set()
        self.loop.run_forever()

    def stop(self):
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)

    def reset(self):
        with self.lock:
            self.pushes.clear()
            self.log.clear()
            self.errors.clear()

    def total(self):
        with self.lock:
            return sum(self.pushes.values())

    # --- checks -----------------------------------------------------------
    def _verify_jwt(self, token):
        if token in self.jwts:
            return None
        try:
            header_b64, claims_b64, sig_b64 = token.split(".")
            header = json.loads(b64url_decode(header_b64))
            claims = json.loads(b64url_decode(claims_b64))
            sig = b64url_decode(sig_b64)
        except Exception:
            return "InvalidProviderToken"
        if header.get("alg") != "ES256" or header.get("kid") != self.key_id or claims.get("iss") != self.team_id:
            return "InvalidProviderToken"
        if len(sig) != 64:
            return "InvalidProviderToken"
        der = utils.encode_dss_signature(int.from_bytes(sig[:32], "big"), int.from_bytes(sig[32:], "big"))
        try:
            self.public_key.verify(der, f"{header_b64}.{claims_b64}".encode(), ec.ECDSA(hashes.SHA256()))
        except Exception:
            return "InvalidProviderToken"
        iat = claims.get("iat")
        if not isinstance(iat, int) or abs(time.time() - iat) > 3600:
            return "ExpiredProviderToken"
        self.jwts[token] = time.time()
        return None

    def _answer(self, headers, body):
        """(status, reason or None) for one request."""
        path = headers.get(":path", "")
        if headers.get(":method") != "POST" or not path.startswith("/3/device/"):
            self.errors.append(f"bad request line {headers.get(':method')} {path}")
            return 404, "BadPath"
        token = path[len("/3/device/"):]
        auth = headers.get("authorization", "")
        if not auth.startswith("bearer "):
            self.errors.append("no provider token")
            return 403, "MissingProviderToken"
        problem = self._verify_jwt(auth[len("bearer "):])
        if problem:
            self.errors.append(problem)
            return 403, problem
        for name, want in (("apns-push-type", "background"), ("apns-priority", "5"), ("apns-topic", self.topic)):
            if headers.get(name) != want:
                self.errors.append(f"{name}: {headers.get(name)!r}")
                return 400, "BadTopic" if name == "apns-topic" else "InvalidPushType"
        try:
            if json.loads(body) != PAYLOAD:
                raise ValueError
        except ValueError:
            self.errors.append(f"body {body[:100]!r}")
            return 400, "PayloadEmpty"
        if self.throttle > 0:
            self.throttle -= 1
            return 429, "TooManyRequests"
        if self.unavailable > 0:
            self.unavailable -= 1
            return 503, "ServiceUnavailable"
        if len(token) != 64 or any(c not in "0123456789abcdefABCDEF" for c in token):
            return 400, "BadDeviceToken"
        if token in self.reject:
            return self.reject[token]
        self.pushes[token] += 1
        return 200, None

    # --- HTTP/2 -----------------------------------------------------------
    async def _connection(self, reader, writer):
        sslobj = writer.get_extra_info("ssl_object")
        self.protocols.add(sslobj.selected_alpn_protocol() if sslobj else None)
        self.connections += 1
        conn = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=False, header_encoding="utf-8"))
        conn.initiate_connection()
        conn.update_settings({h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS: 1000})
        writer.write(conn.data_to_send())
        streams = {}
        try:
            while True:
                data = await reader.read(65536)
                if not data:
                    break
                for event in conn.receive_data(data):
                    if isinstance(event, h2.events.RequestReceived):
                        streams[event.stream_id] = (dict(event.headers), bytearray())
                    elif isinstance(event, h2.events.DataReceived):
                        if event.stream_id in streams:
                            streams[event.stream_id][1].extend(event.data)
                        conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                    elif isinstance(event, h2.events.StreamEnded):
                        headers, body = streams.pop(event.stream_id, ({}, b""))
                        with self.lock:
                            status, reason = self._answer(headers, bytes(body))
                            token = headers.get(":path", "")[len("/3/device/"):]
                            self.log.append((time.time(), token, status, reason))
                        out = [(":status", str(status)), ("apns-id", "00000000-0000-0000-0000-000000000000")]
                        if reason:
                            payload = json.dumps({"reason": reason}).encode()
                            conn.send_headers(event.stream_id, out + [("content-type", "application/json"),
                                                                      ("content-length", str(len(payload)))])
                            conn.send_data(event.stream_id, payload, end_stream=True)
                        else:
                            conn.send_headers(event.stream_id, out, end_stream=True)
                    elif isinstance(event, h2.events.ConnectionTerminated):
                        break
                writer.write(conn.data_to_send())
                await writer.drain()
        except (ConnectionError, ssl.SSLError, h2.exceptions.ProtocolError):
            pass
        finally:
            writer.close()
