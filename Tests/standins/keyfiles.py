"""Signed packages as the backends publish them (key-export.md):

- key files: zip of export.bin (16-byte header "EK Export v1    " +
  TemporaryExposureKeyExport) and export.sig (TEKSignatureList with an ASN.1
  DER ECDSA P-256/SHA-256 signature over the whole export.bin);
- CWA app-configuration packages: same zip, but export.bin is the bare
  ApplicationConfigurationAndroid/IOS bytes, no header (cwa-server's
  AppConfigurationV2StructureProvider writes `toByteArray()` as export.bin);
- trace warning packages: export.bin is the bare TraceWarningPackage.
"""

import base64
import datetime as dt
import io
import os
import zipfile
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec

from . import protos

HEADER = b"EK Export v1    "
ECDSA_P256_SHA256 = "1.2.840.10045.4.3.2"
CWA_BUNDLE = "de.rki.coronawarnapp"


class SigningKey:
    """An ECDSA P-256 key pair with the (id, version) a verifier looks it up by."""

    def __init__(self, key_id="262", key_version="v1", private_key=None,
                 app_bundle_id=CWA_BUNDLE, android_package=CWA_BUNDLE):
        self.key_id = key_id
        self.key_version = key_version
        self.app_bundle_id = app_bundle_id
        self.android_package = android_package
        self.private_key = private_key or ec.generate_private_key(ec.SECP256R1())
        self.public_key = self.private_key.public_key()

    @property
    def public_der(self):
        return self.public_key.public_bytes(serialization.Encoding.DER,
                                            serialization.PublicFormat.SubjectPublicKeyInfo)

    @property
    def public_pem(self):
        return self.public_key.public_bytes(serialization.Encoding.PEM,
                                            serialization.PublicFormat.SubjectPublicKeyInfo)

    @property
    def public_b64(self):
        """Base64 X.509 SubjectPublicKeyInfo, the form CWA publishes."""
        return base64.b64encode(self.public_der).decode()

    @property
    def private_pem(self):
        return self.private_key.private_bytes(serialization.Encoding.PEM,
                                              serialization.PrivateFormat.PKCS8,
                                              serialization.NoEncryption())

    def write_public_pem(self, path):
        path = Path(path)
        path.write_bytes(self.public_pem)
        return path

    def trust_arg(self, pem_path):
        """`id:version:pem` as the encore CLI's --trust takes it."""
        return f"{self.key_id}:{self.key_version}:{pem_path}"

    def sign(self, data):
        return self.private_key.sign(data, ec.ECDSA(hashes.SHA256()))

    def verify(self, data, signature):
        try:
            self.public_key.verify(signature, data, ec.ECDSA(hashes.SHA256()))
            return True
        except InvalidSignature:
            return False

    def signature_info(self):
        return protos.SignatureInfo(
            app_bundle_id=self.app_bundle_id, android_package=self.android_package,
            verification_key_id=self.key_id, verification_key_version=self.key_version,
            signature_algorithm=ECDSA_P256_SHA256)


# --- keys -------------------------------------------------------------------

def rolling_start(day):
    """ENIN of UTC midnight of `day` (a date, datetime or 'yyyy-mm-dd')."""
    if isinstance(day, str):
        day = dt.date.fromisoformat(day)
    if isinstance(day, dt.datetime):
        day = day.astimezone(dt.timezone.utc).date()
    midnight = dt.datetime(day.year, day.month, day.day, tzinfo=dt.timezone.utc)
    return int(midnight.timestamp()) // 600


def make_key(key_data=None, rolling_start_interval_number=None, *, day=None,
             rolling_period=144, trl=None, report_type=None, dsos=None):
    """One TemporaryExposureKey; fields left None are left absent."""
    if day is not None:
        rolling_start_interval_number = rolling_start(day)
    fields = {"rolling_start_interval_number": rolling_start_interval_number, "rolling_period": rolling_period,
              "transmission_risk_level": trl, "report_type": report_type, "days_since_onset_of_symptoms": dsos}
    return protos.TemporaryExposureKey(key_data=key_data if key_data is not None else os.urandom(16),
                                       **{name: value for name, value in fields.items() if value is not None})


def daily_keys(count, newest_day=None, **fields):
    """`count` keys, one per UTC day, newest first, ending at `newest_day`
    (default today)."""
    newest = newest_day or dt.datetime.now(dt.timezone.utc).date()
    if isinstance(newest, str):
        newest = dt.date.fromisoformat(newest)
    return [make_key(day=newest - dt.timedelta(days=i), **fields) for i in range(count)]


# --- export.bin / export.sig ------------------------------------------------

def export_bin(keys, *, start_timestamp=0, end_timestamp=0, region="DE", batch_num=1,
               batch_size=1, signers=(), revised_keys=(), header=True):
    msg = protos.TemporaryExposureKeyExport(
        start_timestamp=start_timestamp, end_timestamp=end_timestamp, region=region,
        batch_num=batch_num, batch_size=batch_size)
    msg.signature_infos.extend(s.signature_info() for s in signers)
    msg.keys.extend(keys)
    msg.revised_keys.extend(revised_keys)
    return (HEADER if header else b"") + msg.SerializeToString()


def signature_list(data, signers, batch_num=1, batch_size=1):
    out = protos.TEKSignatureList()
    for s in signers:
        out.signatures.add(signature_info=s.signature_info(), batch_num=batch_num,
                           batch_size=batch_size, signature=s.sign(data))
    return out.SerializeToString()


def zip_members(members, compression=zipfile.ZIP_DEFLATED):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression) as z:
        for name, data in members:
            z.writestr(name, data)
    return buf.getvalue()


def signed_package(bin_bytes, signers, *, batch_num=1, batch_size=1, omit_sig=False,
                   extra_members=(), compression=zipfile.ZIP_DEFLATED):
    """zip(export.bin = bin_bytes, export.sig over it)."""
    if isinstance(signers, SigningKey):
        signers = [signers]
    members = [("export.bin", bin_bytes)]
    if not omit_sig:
        members.append(("export.sig", signature_list(bin_bytes, signers, batch_num, batch_size)))
    return zip_members(members + list(extra_members), compression)


def key_file(keys, signers, *, start_timestamp=0, end_timestamp=0, region="DE", batch_num=1,
             batch_size=1, revised_keys=(), **zip_options):
    """A complete signed key file (zip bytes)."""
    if isinstance(signers, SigningKey):
        signers = [signers]
    data = export_bin(keys, start_timestamp=start_timestamp, end_timestamp=end_timestamp,
                      region=region, batch_num=batch_num, batch_size=batch_size,
                      signers=signers, revised_keys=revised_keys)
    return signed_package(data, signers, batch_num=batch_num, batch_size=batch_size, **zip_options)


def app_config_package(config, signers):
    """Signed CWA configuration zip; `config` is a message or its bytes."""
    data = config if isinstance(config, bytes) else config.SerializeToString()
    return signed_package(data, signers)


def trace_warning_package(package, signers):
    """Signed TWP zip; `package` is a TraceWarningPackage or its bytes."""
    data = package if isinstance(package, bytes) else package.SerializeToString()
    return signed_package(data, signers)


# --- reading back (for tests) -----------------------------------------------

def read_package(zip_bytes):
    """(export.bin, export.sig) of a package; raises ValueError unless it has
    exactly those two members."""
    with zipfile.ZipFile(io.BytesIO(zip_bytes)) as z:
        names = z.namelist()
        if sorted(names) != ["export.bin", "export.sig"]:
            raise ValueError(f"unexpected members {names}")
        return z.read("export.bin"), z.read("export.sig")


def parse_export(bin_bytes):
    if not bin_bytes.startswith(HEADER):
        raise ValueError("export.bin lacks the 16-byte header")
    return protos.TemporaryExposureKeyExport.FromString(bin_bytes[len(HEADER):])


def verify_package(zip_bytes, public_key):
    """True when one signature in export.sig verifies over export.bin with
    `public_key` (a SigningKey or a cryptography public key)."""
    data, sig = read_package(zip_bytes)
    key = public_key.public_key if isinstance(public_key, SigningKey) else public_key
    for s in protos.TEKSignatureList.FromString(sig).signatures:
        try:
            key.verify(s.signature, data, ec.ECDSA(hashes.SHA256()))
            return True
        except InvalidSignature:
            continue
    return False


def tamper_package(zip_bytes):
    """The same package with one byte of export.bin changed: still a valid
    zip, but the signature no longer verifies."""
    data, sig = read_package(zip_bytes)
    i = len(data) - 1
    data = data[:i] + bytes([data[i] ^ 0x01]) + data[i + 1:] if data else b"\x00"
    return zip_members([("export.bin", data), ("export.sig", sig)])
