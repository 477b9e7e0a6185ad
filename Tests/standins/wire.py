"""Protobuf's wire format written by hand, for bytes the stand-ins' message
classes cannot make: messages they do not describe (QRCodePayload), raw
layouts (a hand-built export.bin, a wrapper around events of either
layout) and hostile input. Needs nothing but Python, so scripts without the
protobuf package (fuzz/checkin_seeds.py) import it on its own."""
import struct


def varint(n):
    """n as a varint; a negative n as its 64-bit two's complement (int32 and
    int64 fields), ten bytes."""
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def field(number, value):
    """Field `number`: an int as a varint (wire type 0), bytes or str
    length-delimited (wire type 2)."""
    if isinstance(value, int):
        return varint(number << 3) + varint(value)
    data = value.encode() if isinstance(value, str) else value
    return varint(number << 3 | 2) + varint(len(data)) + data


def fixed64(number, value):
    """Field `number` as a little-endian fixed64 (wire type 1)."""
    return varint(number << 3 | 1) + struct.pack("<Q", value)
