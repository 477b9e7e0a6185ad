"""Stand-in for CWA's distribution CDN (sync.md, checkins.md): key files
by country/day/hour, the v2 app configuration, trace warning packages.

The model is mutated by the test between syncs (add/replace/remove days and
hours, change or revoke through the configuration); every answer is computed
from the model at request time. Every answer carries a strong ETag (the
quoted hex SHA-256 of the body), `Cache-Control: max-age=300` and a Date
header (shifted by `date_offset` seconds); `If-None-Match` with the current
ETag answers 304.
"""

import datetime as dt
import hashlib
import json
import re
import threading

from . import keyfiles, protos
from .httpbase import Response, StandinServer

KEYS = "/version/v1/diagnosis-keys/country"
_ROUTES = [
    (re.compile(r"^/version/v1/diagnosis-keys/country$"), "_r_countries"),
    (re.compile(r"^/version/v1/diagnosis-keys/country/([^/]+)/date$"), "_r_day_index"),
    (re.compile(r"^/version/v1/diagnosis-keys/country/([^/]+)/date/(\d{4}-\d{2}-\d{2})$"), "_r_day"),
    (re.compile(r"^/version/v1/diagnosis-keys/country/([^/]+)/date/(\d{4}-\d{2}-\d{2})/hour$"),
     "_r_hour_index"),
    (re.compile(r"^/version/v1/diagnosis-keys/country/([^/]+)/date/(\d{4}-\d{2}-\d{2})/hour/(\d{1,2})$"),
     "_r_hour"),
    (re.compile(r"^/version/v2/app_config_(android|ios)$"), "_r_config"),
    (re.compile(r"^/version/v2/twp/country/([^/]+)/hour$"), "_r_twp_index"),
    (re.compile(r"^/version/v2/twp/country/([^/]+)/hour/(\d+)$"), "_r_twp"),
]


def etag_for(body):
    return '"' + hashlib.sha256(body).hexdigest() + '"'


def _day(day):
    return day if isinstance(day, str) else day.isoformat()


def day_path(cc, day):
    return f"{KEYS}/{cc}/date/{_day(day)}"


def hour_path(cc, day, hour):
    return f"{KEYS}/{cc}/date/{_day(day)}/hour/{hour}"


def twp_path(region, interval):
    return f"/version/v2/twp/country/{region}/hour/{interval}"


class CwaDistributionServer(StandinServer):
    def __init__(self, signer=None, *, max_age=300, host="127.0.0.1", port=0):
        super().__init__(host, port)
        self.signer = signer or keyfiles.SigningKey()
        self.max_age = max_age
        self._model = threading.RLock()
        self._countries = None  # None: the countries that have packages
        self._days = {}  # (cc, day) -> zip bytes
        self._hours = {}  # (cc, day, hour) -> zip bytes
        self._twp = {}  # region -> {interval: bytes (zip, or b"" for empty)}
        self._twp_index = {}  # region -> (oldest, latest), overriding the derived one
        self._etags = {}  # path -> ETag to send instead of the computed one
        self.config_android = protos.ApplicationConfigurationAndroid()
        self.config_ios = protos.ApplicationConfigurationIOS()
        self.config_bytes = {}  # platform -> raw export.bin overriding the message
        # ECDSA signatures are randomised: sign each distinct configuration
        # once, so its package (and ETag) stays the same until it changes.
        self._signed_configs = {}

    # --- key files ---------------------------------------------------------
    def set_countries(self, countries):
        with self._model:
            self._countries = list(countries)

    def add_day(self, cc, day, keys=(), package=None, **export_fields):
        """Publish (or replace) the day package; `package` is ready zip bytes,
        else one is built from `keys` and signed. Returns its ETag."""
        day = _day(day)
        if package is None:
            start = int(dt.datetime.fromisoformat(day).replace(tzinfo=dt.timezone.utc).timestamp())
            export_fields.setdefault("start_timestamp", start)
            export_fields.setdefault("end_timestamp", start + 86400)
            export_fields.setdefault("region", cc)
            package = keyfiles.key_file(list(keys), self.signer, **export_fields)
        with self._model:
            self._days[(cc, day)] = package
        return etag_for(package)

    def remove_day(self, cc, day):
        with self._model:
            self._days.pop((cc, _day(day)), None)

    def add_hour(self, cc, day, hour, keys=(), package=None, **export_fields):
        day = _day(day)
        if package is None:
            start = int(dt.datetime.fromisoformat(day).replace(tzinfo=dt.timezone.utc).timestamp())
            export_fields.setdefault("start_timestamp", start + hour * 3600)
            export_fields.setdefault("end_timestamp", start + (hour + 1) * 3600)
            export_fields.setdefault("region", cc)
            package = keyfiles.key_file(list(keys), self.signer, **export_fields)
        with self._model:
            self._hours[(cc, day, int(hour))] = package
        return etag_for(package)

    def remove_hour(self, cc, day, hour):
        with self._model:
            self._hours.pop((cc, _day(day), int(hour)), None)

    def package(self, path):
        """The bytes currently served at `path` (None when nothing is)."""
        resp = self._route(path)
        return resp.body if resp and resp.status == 200 else None

    def etag(self, path):
        with self._model:
            if path in self._etags:
                return self._etags[path]
        body = self.package(path)
        return None if body is None else etag_for(body)

    def set_etag(self, path, etag):
        """Serve `etag` for `path` instead of the computed one (None: back
        to computed)."""
        with self._model:
            if etag is None:
                self._etags.pop(path, None)
            else:
                self._etags[path] = etag

    # --- configuration --------------------------------------------------------
    def set_app_config(self, config, platform="android"):
        """A message (kept, so revocations can be added) or raw bytes."""
        with self._model:
            if isinstance(config, bytes):
                self.config_bytes[platform] = config
            elif platform == "android":
                self.config_android = config
                self.config_bytes.pop(platform, None)
            else:
                self.config_ios = config
                self.config_bytes.pop(platform, None)

    def revoke_day(self, cc, day, etag=None):
        """List the day package (by its current ETag, or `etag`) as revoked in
        both configurations."""
        etag = etag or self.etag(day_path(cc, day))
        with self._model:
            for c in (self.config_android, self.config_ios):
                c.keyDownloadParameters.revokedDayPackages.add(region=cc, date=_day(day), etag=etag)
        return etag

    def revoke_hour(self, cc, day, hour, etag=None):
        etag = etag or self.etag(hour_path(cc, day, hour))
        with self._model:
            for c in (self.config_android, self.config_ios):
                c.keyDownloadParameters.revokedHourPackages.add(
                    region=cc, date=_day(day), hour=int(hour), etag=etag)
        return etag

    # --- trace warning packages ------------------------------------------------
    def add_twp(self, region, interval, package=None, *, reports=(), warnings=()):
        """Publish the package for hour `interval` (hours since the epoch):
        `package` = ready bytes (b"" = the empty package) or a
        TraceWarningPackage message; else one is built from `reports`
        (CheckInProtectedReport) and `warnings` (TraceTimeIntervalWarning)."""
        if package is None:
            package = protos.TraceWarningPackage(intervalNumber=interval, region=region)
            package.checkInProtectedReports.extend(reports)
            package.timeIntervalWarnings.extend(warnings)
        if not isinstance(package, bytes):
            package = keyfiles.trace_warning_package(package, self.signer)
        with self._model:
            self._twp.setdefault(region, {})[int(interval)] = package
        return etag_for(package)

    def remove_twp(self, region, interval):
        with self._model:
            self._twp.get(region, {}).pop(int(interval), None)

    def set_twp_index(self, region, oldest, latest):
        """Announce this range; hours in it without a package are served as
        empty packages."""
        with self._model:
            if oldest is None:
                self._twp_index.pop(region, None)
            else:
                self._twp_index[region] = (int(oldest), int(latest))

    # --- serving ------------------------------------------------------------
    def handle(self, req):
        if req.method not in ("GET", "HEAD"):
            return Response(405)
        resp = self._route(req.path)
        if resp is None:
            return Response(404)
        if resp.status != 200:
            return resp
        with self._model:
            etag = self._etags.get(req.path) or etag_for(resp.body)
        meta = [("ETag", etag), ("Cache-Control", f"max-age={self.max_age}")]
        if _etag_matches(req.header("If-None-Match"), etag):
            return Response(304, b"", meta)
        return Response(200, resp.body, resp.headers + meta)

    def _route(self, path):
        for pattern, name in _ROUTES:
            m = pattern.match(path)
            if m:
                with self._model:
                    return getattr(self, name)(*m.groups())
        return None

    def _known_countries(self):
        if self._countries is not None:
            return list(self._countries)
        seen = {cc for cc, _ in self._days} | {cc for cc, _, _ in self._hours}
        return sorted(seen)

    def _r_countries(self):
        return _json(self._known_countries())

    def _r_day_index(self, cc):
        if cc not in self._known_countries():
            return None
        return _json(sorted(d for c, d in self._days if c == cc))

    def _r_day(self, cc, day):
        return _zip(self._days.get((cc, day)))

    def _r_hour_index(self, cc, day):
        hours = sorted(h for c, d, h in self._hours if c == cc and d == day)
        return _json(hours) if hours else None

    def _r_hour(self, cc, day, hour):
        return _zip(self._hours.get((cc, day, int(hour))))

    def _r_config(self, platform):
        data = self.config_bytes.get(platform)
        if data is None:
            msg = self.config_android if platform == "android" else self.config_ios
            data = msg.SerializeToString(deterministic=True)
        key = (platform, data)
        if key not in self._signed_configs:
            self._signed_configs[key] = keyfiles.app_config_package(data, self.signer)
        return _zip(self._signed_configs[key])

    def _twp_range(self, region):
        if region in self._twp_index:
            return self._twp_index[region]
        hours = self._twp.get(region)
        return (min(hours), max(hours)) if hours else None

    def _r_twp_index(self, region):
        rng = self._twp_range(region)
        return None if rng is None else _json({"oldest": rng[0], "latest": rng[1]})

    def _r_twp(self, region, interval):
        interval = int(interval)
        pkg = self._twp.get(region, {}).get(interval)
        if pkg is None:
            rng = self._twp_range(region)
            if rng is None or not rng[0] <= interval <= rng[1]:
                return None
            pkg = b""
        return Response(200, pkg, [("Content-Type", "application/zip")])


def _json(obj):
    return Response(200, json.dumps(obj).encode(), [("Content-Type", "application/json")])


def _zip(data):
    return None if data is None else Response(200, data, [("Content-Type", "application/zip")])


def _etag_matches(header, etag):
    if not header:
        return False
    if header.strip() == "*":
        return True
    tags = [t.strip() for t in header.split(",")]
    # Weak comparison, as RFC 9110 prescribes for If-None-Match.
    return any(t.removeprefix("W/") == etag.removeprefix("W/") for t in tags)
