"""What the CWA verification and submission stand-ins share: lab results,
registration sessions, teleTANs and TANs, behind one lock, on a clock a test
can move. The rules and numbers follow the public cwa-verification-server
(application.yml: tancountermax 1, TAN valid 14 days, teleTAN valid 1 hour)."""

import hashlib
import random
import secrets
import threading
import time
import uuid
from dataclasses import dataclass, field

PENDING, NEGATIVE, POSITIVE, INVALID, REDEEMED = range(5)
RAT_PENDING, RAT_NEGATIVE, RAT_POSITIVE, RAT_INVALID, RAT_REDEEMED = range(5, 10)
TAN_RESULTS = (POSITIVE, RAT_POSITIVE)

# teleTAN alphabet of cwa-verification-server (VerificationApplicationConfig
# tan.tele.valid.chars): no 0/O, 1/I/L.
TELETAN_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
TELETAN_BODY_LENGTH = 9  # tan.tele.valid.length; one check character follows


def guid_hash(guid):
    """The registration key for a QR-code GUID: SHA-256 of the GUID string,
    lowercase hex."""
    return hashlib.sha256(guid.encode()).hexdigest()


def dob_hash(guid, dob):
    """The date-of-birth key: "x" + SHA-256(guid ‖ ddMMyyyy) hex without its
    first digit. `dob` is a date or a 'ddMMyyyy' string."""
    text = dob if isinstance(dob, str) else dob.strftime("%d%m%Y")
    return "x" + hashlib.sha256((guid + text).encode()).hexdigest()[1:]


def teletan_check_char(body):
    """cwa-verification-server HashingService.getCheckDigit: the first hex
    digit of SHA-256(body), upper-cased, 0 → G and 1 → H (the alphabet has no
    0 or 1)."""
    c = hashlib.sha256(body.encode()).hexdigest()[0].upper()
    return {"0": "G", "1": "H"}.get(c, c)


def generate_teletan(rng=None):
    """A well-formed teleTAN: 9 alphabet characters and the check character."""
    choice = (rng or secrets.SystemRandom()).choice
    body = "".join(choice(TELETAN_ALPHABET) for _ in range(TELETAN_BODY_LENGTH))
    return body + teletan_check_char(body)


def teletan_shape_ok(text):
    """The server's syntax check: exactly 10 characters of the alphabet."""
    return (isinstance(text, str) and len(text) == TELETAN_BODY_LENGTH + 1
            and all(c in TELETAN_ALPHABET for c in text))


def teletan_valid(text):
    """Shape and check character (what the apps check before sending)."""
    return teletan_shape_ok(text) and teletan_check_char(text[:-1]) == text[-1]


@dataclass
class LabResult:
    result: int
    sc: int = None  # sample collection, epoch seconds
    lab_id: str = None


@dataclass
class Session:
    token: str
    source: str  # "guid" or "teletan"
    key_hash: str  # hashed GUID, or SHA-256 of the teleTAN
    dob_hash: str = None
    created: float = 0.0
    tan_count: int = 0


@dataclass
class Tan:
    tan: str
    valid_until: float
    source: str  # "guid", "teletan" or "test"
    redeemed: bool = False
    redeemed_at: float = None


@dataclass
class TeleTan:
    teletan: str
    valid_until: float
    redeemed: bool = False


@dataclass
class CwaState:
    clock: object = time.time  # seconds; replace to move time
    tancountermax: int = 1
    tan_valid_days: int = 14
    # The verification server deletes registrations after 21 days
    # (entities.cleanup.days): their token is unknown then (400).
    registration_valid_days: int = 21
    teletan_valid_hours: int = 1
    # Accept well-formed teleTANs (valid check character) that were never
    # issued, for tests that do not care where the teleTAN came from.
    accept_any_valid_teletan: bool = False
    # cwa-fake answers wait uniform(min, max) seconds, like the real server's
    # delay that mimics real requests.
    fake_delay: tuple = (0.0, 0.0)
    results: dict = field(default_factory=dict)
    sessions: dict = field(default_factory=dict)
    teletans: dict = field(default_factory=dict)
    tans: dict = field(default_factory=dict)
    submissions: list = field(default_factory=list)
    lock: object = field(default_factory=threading.RLock)

    def now(self):
        return self.clock()

    def fake_wait(self):
        lo, hi = self.fake_delay
        return random.uniform(lo, hi) if hi > 0 else 0.0

    # --- what tests set up ----------------------------------------------------
    def set_result(self, key_hash, result, sc=None, lab_id=None):
        """Set (or change) what the test result server reports for a hashed
        key; values outside 0..9 are allowed on purpose."""
        with self.lock:
            self.results[key_hash.lower()] = LabResult(result, sc, lab_id)

    def set_result_for_guid(self, guid, result, sc=None, lab_id=None, dob=None):
        """Set the result for a GUID (and for its date-of-birth key, when
        `dob` is given, as a lab reports both)."""
        self.set_result(guid_hash(guid), result, sc, lab_id)
        if dob is not None:
            self.set_result(dob_hash(guid, dob), result, sc, lab_id)

    def issue_teletan(self, valid_hours=None, teletan=None):
        teletan = teletan or generate_teletan()
        hours = self.teletan_valid_hours if valid_hours is None else valid_hours
        with self.lock:
            self.teletans[teletan] = TeleTan(teletan, self.now() + hours * 3600)
        return teletan

    def add_tan(self, valid_days=None, source="test"):
        """A TAN as if issued for a positive test (for submission-only tests)."""
        tan = str(uuid.uuid4())
        days = self.tan_valid_days if valid_days is None else valid_days
        with self.lock:
            self.tans[tan] = Tan(tan, self.now() + days * 86400, source)
        return tan

    # --- what the servers use -------------------------------------------------
    def result_for(self, key_hash):
        with self.lock:
            return self.results.get(key_hash.lower(), LabResult(PENDING))

    def session(self, token):
        """The registration of a token, None when unknown or deleted
        (older than registration_valid_days)."""
        with self.lock:
            s = self.sessions.get(token)
            if s is not None and self.now() - s.created > self.registration_valid_days * 86400:
                return None
            return s

    def key_registered(self, key_hash):
        key_hash = key_hash.lower()
        with self.lock:
            return any(s.key_hash == key_hash or (s.dob_hash or "").lower() == key_hash
                       for s in self.sessions.values())

    def new_session(self, source, key_hash, dob=None):
        token = str(uuid.uuid4())
        with self.lock:
            self.sessions[token] = Session(token, source, key_hash.lower(), dob, self.now())
        return token

    def teletan_usable(self, teletan):
        with self.lock:
            t = self.teletans.get(teletan)
            if t is None:
                return self.accept_any_valid_teletan and teletan_valid(teletan)
            return not t.redeemed and self.now() <= t.valid_until

    def redeem_teletan(self, teletan):
        with self.lock:
            t = self.teletans.setdefault(teletan, TeleTan(teletan, self.now()))
            t.redeemed = True

    def issue_tan(self, session):
        with self.lock:
            session.tan_count += 1
            tan = str(uuid.uuid4())
            self.tans[tan] = Tan(tan, self.now() + self.tan_valid_days * 86400, session.source)
            return tan

    def consume_tan(self, tan):
        """True and the TAN is used up, or False when unknown, used or expired."""
        with self.lock:
            t = self.tans.get(tan)
            if t is None or t.redeemed or self.now() > t.valid_until:
                return False
            t.redeemed = True
            t.redeemed_at = self.now()
            return True
