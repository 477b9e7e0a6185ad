"""CWA's CheckInProtectedReport crypto as CWA's server and apps apply it
(checkins.md), written with the `cryptography` package independently of
encore: the CheckInRecord PKCS#7-padded and AES-256-CBC encrypted under
SHA-256("CWA-ENCRYPTION-KEY" + location id), authenticated by HMAC-SHA256
under SHA-256("CWA-MAC-KEY" + location id) over iv + ciphertext."""
import hashlib
import hmac
import os

from cryptography.hazmat.primitives import padding
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from . import protos


def _keys(location_id):
    """(encryption key, MAC key) of a location."""
    return (hashlib.sha256(b"CWA-ENCRYPTION-KEY" + location_id).digest(),
            hashlib.sha256(b"CWA-MAC-KEY" + location_id).digest())


def seal(location_id, start_interval, period, trl, *, iv=None, plain=None, pad=True):
    """A CheckInProtectedReport message as CWA's server publishes it. `plain`
    replaces the record's bytes (hostile records); pad=False leaves them
    unpadded (they must then be whole AES blocks); iv is random unless given."""
    record = plain if plain is not None else protos.CheckInRecord(
        startIntervalNumber=start_interval, period=period, transmissionRiskLevel=trl).SerializeToString()
    enc_key, mac_key = _keys(location_id)
    iv = iv or os.urandom(16)
    if pad:
        padder = padding.PKCS7(128).padder()
        record = padder.update(record) + padder.finalize()
    enc = Cipher(algorithms.AES(enc_key), modes.CBC(iv)).encryptor()
    ciphertext = enc.update(record) + enc.finalize()
    mac = hmac.new(mac_key, iv + ciphertext, hashlib.sha256).digest()
    return protos.CheckInProtectedReport(locationIdHash=hashlib.sha256(location_id).digest(), iv=iv,
                                         encryptedCheckInRecord=ciphertext, mac=mac)


def open_report(location_id, iv, ciphertext, mac):
    """The CheckInRecord of a report for `location_id`, as a receiving app
    reads it; ValueError when the MAC does not match."""
    enc_key, mac_key = _keys(location_id)
    if not hmac.compare_digest(hmac.new(mac_key, iv + ciphertext, hashlib.sha256).digest(), mac):
        raise ValueError("the report's MAC does not match its location")
    dec = Cipher(algorithms.AES(enc_key), modes.CBC(iv)).decryptor()
    unpadder = padding.PKCS7(128).unpadder()
    return protos.CheckInRecord.FromString(unpadder.update(dec.update(ciphertext) + dec.finalize()) + unpadder.finalize())
