#!/usr/bin/env python3
"""Generates bindings/python/encore/_records.py (the frozen records of the C
structs) from include/encore.h.

A record is the Python value of one C struct the library fills (or takes):
its fields, their types and the doc comments come from the header, read
with gen_ffi's parser; RECORDS below says only what the header cannot say,
the Python view of a field: its public name and order, an ENCORE_* code as a
name, 0/1 as a bool, -1 as None, an encore_bytes the record takes (frees),
values the call gives beside the struct (`extras`). `has_X` makes X
optional by itself. Each record gets from_c(struct) and, where the library
also takes it, to_c() with every field checked to fit. A field added to a
struct is a new record field after regeneration; one RECORDS names that the
header lacks stops the generator.

    python3 bindings/python/gen_records.py            write encore/_records.py
    python3 bindings/python/gen_records.py --check    fail if encore/_records.py is stale
"""
import dataclasses
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import gen_ffi  # noqa: E402  (the header's parser)

HERE = gen_ffi.HERE
OUTPUT = HERE / "encore/_records.py"

# ---- the Python view of the structs ------------------------------------------

BOOL = "bool"              # an int32 that is 0 or 1
NEGATIVE_NONE = "neg"      # -1 (any negative) is None
EMPTY_NONE = "empty"       # an empty string is None
ISO_DATE = "date"          # unix seconds of a UTC midnight as "YYYY-MM-DD"; negative: None
TEXT = object()            # Enum(other=TEXT): an unknown code reads "unknown (N)"
RAISE = object()           # Enum(other=RAISE): an unknown code is a ValueError


@dataclasses.dataclass(frozen=True)
class Enum:
    """An ENCORE_* code as a name: {constant: name}, or a prefix: each
    constant of the header with it, named by the rest in lower case (a new
    constant gets its name without an edit here); `other` for any other
    code: TEXT, RAISE, None or one of the names."""
    names: object
    other: object = TEXT


@dataclasses.dataclass(frozen=True)
class Equals:
    """A bool: whether the code is `constant`."""
    constant: str


@dataclasses.dataclass(frozen=True)
class LengthOf:
    """Bytes of an array of which the length field says how many are used."""
    length: str


@dataclasses.dataclass
class Record:
    name: str                      # the public class name
    order: tuple = ()              # the public field order, when it is not the header's
    views: dict = dataclasses.field(default_factory=dict)     # field -> view
    rename: dict = dataclasses.field(default_factory=dict)    # C field -> Python field
    drop: tuple = ()               # C fields the record leaves out (besides struct_size, reserved*)
    extras: tuple = ()             # (name, type, doc): what the call gives beside the struct
    optional: dict = dataclasses.field(default_factory=dict)  # field -> its has_ flag, when not has_<field>
    defaults: dict = dataclasses.field(default_factory=dict)  # field -> Python literal
    to_c: bool = False             # the library takes it too


def _names(prefix, **names):
    return {f"ENCORE_{prefix}{constant}": name for constant, name in names.items()}


SIGNATURE = Enum("ENCORE_SIGNATURE_")
CHECKIN_RISK = Enum(_names("CHECKIN_RISK_", LOW="LOW", HIGH="HIGH", FAILED="FAILED"))
RISK = Enum(_names("RISK_", NONE=None, LOW="LOW", HIGH="HIGH"), other=RAISE)

RECORDS = {
    "encore_keyfile_info": Record("KeyFileInfo", views={"signature_status": SIGNATURE, "is_zip": BOOL}),
    "encore_key": Record("Key", order=("key_data", "transmission_risk_level")),
    "encore_sighting": Record("Sighting", order=("time", "rpi", "aem", "rssi", "prev_scan"), defaults={"prev_scan": "None"},
                              to_c=True),
    "encore_own_key": Record("OwnKey", defaults={"rolling_period": "144", "created": "0"}, to_c=True),
    "encore_cached_keyfile_info": Record(
        "CachedKeyFileInfo", order=("region", "identifier", "etag", "sha256", "size", "downloaded"),
        extras=(("region", "str", "the region asked for"), ("identifier", "str", "the identifier asked for"),
                ("etag", "str", "the ETag it was stored with"))),
    "encore_tracing_event": Record("TracingEvent", order=("time", "active"), views={"active": BOOL}),
    "encore_risk_result": Record("RiskResult", order=("id", "time", "level", "document"), drop=("document_length",),
                                 extras=(("document", "str", "the result's JSON document"),)),
    "encore_purge_counts": Record("PurgeCounts"),
    "encore_trace_location_info": Record("TraceLocation"),
    "encore_checkin_record": Record("CheckInRecord", to_c=True),
    "encore_checkin_report": Record("ProtectedReport", order=("location_id_hash", "iv", "encrypted_record", "mac"),
                                    views={"encrypted_record": LengthOf("encrypted_record_length")}, to_c=True),
    "encore_checkin_report_info": Record(
        "CheckInReport", order=("checkin", "start", "start_interval_number", "period", "transmission_risk_level")),
    "encore_checkin_info": Record(
        "CheckIn", order=("id", "start", "end", "auto_end", "description", "address", "location_id_hash", "submitted",
                          "kind", "created", "private"),
        views={"end": NEGATIVE_NONE, "submitted": BOOL,
               "kind": Enum(_names("CHECKIN_KIND_", CWA="cwa", SWISSCOVID="swisscovid", NOTIFYME="notifyme")),
               "mode": Equals("ENCORE_CHECKIN_MODE_PRIVATE")},
        rename={"mode": "private"}, defaults={"kind": "'cwa'", "created": "0", "private": "False"}),
    "encore_warning_match_summary": Record("WarningMatchSummary", views={"signature_status": SIGNATURE}),
    "encore_checkin_match": Record(
        "CheckInMatch", order=("check_in", "date", "overlap_seconds", "overlap_minutes", "normalized_time",
                               "transmission_risk_level", "location_id_hash")),
    "encore_checkin_day": Record("CheckInDay", order=("date", "normalized_time", "risk_level"),
                                 views={"risk_level": CHECKIN_RISK}),
    "encore_checkin_risk_summary": Record(
        "CheckInAssessment", views={"total_risk_level": CHECKIN_RISK}, drop=("match_count", "day_count"),
        extras=(("matches", "tuple[CheckInMatch, ...]", "each warning overlapping a check-in on a UTC day"),
                ("days", "tuple[CheckInDay, ...]", "the risk per UTC day, newest first"),
                ("json", "dict[str, Any]", "the library's JSON form (as `encore checkin match --json`, "
                                           "without skippedReports)"))),
    "encore_advertisement": Record("Advertisement", order=("payload", "interval", "since", "valid_until")),
    "encore_scan_window": Record("ScanWindow", to_c=True),
    "encore_scan_report": Record("ScanReport", order=("rpi", "aem", "rssi", "time"), to_c=True),
    "encore_scan_result": Record("ScanResult"),
    "encore_tracing_status": Record("TracingStatus", views={"active": BOOL}),
    "encore_sync_item": Record(
        "SyncItem", order=("kind", "outcome", "status", "day", "hour", "interval", "keys", "matches", "bytes", "tag"),
        views={"kind": Enum(_names("SYNC_ITEM_", DAY="day", HOUR="hour", CONFIG="config", DP3T="dp3t",
                                   WARNINGS="warnings", TRACE_KEYS="traceKeys"), other=RAISE),
               "outcome": Enum(_names("SYNC_OUTCOME_", FETCHED="fetched", CACHED="cached", FAILED="failed"), other=RAISE),
               "day": ISO_DATE, "hour": NEGATIVE_NONE, "interval": NEGATIVE_NONE}),
    "encore_sync_configuration": Record(
        "SyncConfiguration", order=("used", "reason", "failures"),
        views={"used": Enum(_names("SYNC_CONFIG_", FETCHED="fetched", UNCHANGED="unchanged",
                                   LAST_VERIFIED="last-verified", BUILT_IN="built-in"), other=RAISE),
               "reason": EMPTY_NONE}),
    "encore_check_summary": Record(
        "CheckResult", drop=("v1_level",), optional={"stored_result_id": "has_stored_result"},
        views={"status": Enum(_names("CHECK_", LOW="LOW", HIGH="HIGH", UNKNOWN="UNKNOWN", OUTDATED="OUTDATED",
                                     FAILED="FAILED"), other=RAISE),
               "notification_due": BOOL},
        extras=(("assessment", "RiskAssessment", "CWA's v2 risk of the exposure windows"),
                ("check_ins", "CheckInAssessment | None", "the check-ins' risk the status combines")),
        defaults={"check_ins": "None"}),
    "encore_push_decision": Record(
        "PushDecision", views={"action": Enum(_names("PUSH_", NONE="none", REGISTER="register",
                                                      DEREGISTER="deregister"), other=RAISE)},
        extras=(("reason", "str", "why, in words"),)),
    "encore_push_status": Record(
        "PushStatus", order=("registered", "registered_at", "server", "api", "push_type", "has_push_token",
                             "exposure_notifications", "check_ins", "isolated"),
        views={"registered": BOOL, "server": EMPTY_NONE, "has_push_token": BOOL, "exposure_notifications": BOOL,
               "check_ins": BOOL, "isolated": BOOL,
               "api": Enum(_names("PUSH_API_", SWISSCOVID="swisscovid", REGISTRY="registry"), other=None),
               "push_type": Enum(_names("PUSH_TYPE_", IOS="ios", ANDROID="android", IOS_SANDBOX="ios-sandbox"),
                                 other=None)}),
    "encore_test_status": Record(
        "TestStatus",
        views={"registered": BOOL, "rapid": BOOL, "notify": BOOL, "has_tan": BOOL, "submitted": BOOL, "outdated": BOOL,
               "key_type": Enum(_names("TEST_KEY_", GUID="GUID", TELETAN="TELETAN"), other="GUID"),
               "result": Enum(_names("TEST_RESULT_", PENDING="PENDING", NEGATIVE="NEGATIVE", POSITIVE="POSITIVE",
                                     INVALID="INVALID", REDEEMED="REDEEMED"), other=None),
               "test_type": Enum(_names("TEST_TYPE_", PCR="pcr", RAPID_ANTIGEN="rapid-antigen", RAPID_PCR="rapid-pcr"),
                                 other=None),
               "result_at": NEGATIVE_NONE, "sample_collected_at": NEGATIVE_NONE, "next_poll_at": NEGATIVE_NONE,
               "submitted_at": NEGATIVE_NONE, "tested_at": NEGATIVE_NONE},
        defaults={"test_type": "None", "outdated": "False", "tested_at": "None"}),
    "encore_submit_summary": Record("SubmitSummary"),
    "encore_trace_key_match_summary": Record("TraceKeyMatchSummary"),
    "encore_day_risk": Record("DayRisk", order=("date", "risk_level"), views={"risk_level": RISK}),
    "encore_risk_summary": Record(
        "RiskAssessment", views={"total_risk_level": RISK}, drop=("day_count",),
        extras=(("days", "tuple[DayRisk, ...]", "the risk of each UTC day with exposures"),)),
}


class RecordError(Exception):
    """RECORDS and the header disagree, or a field has no Python view."""


# ---- the header's doc comments -------------------------------------------------

def _clean(comment):
    """The text of a doc comment, one line."""
    lines = [re.sub(r"^\s*\*\s?", "", line) for line in comment.splitlines()]
    return " ".join(" ".join(lines).split())


def doc_comments(text):
    """{struct: (its doc, {field: doc})} of the header's typedef structs."""
    out = {}
    for m in re.finditer(r"(?:/\*\*(?!<)((?:(?!\*/).)*)\*/\s*)?typedef struct (\w+) \{(.*?)\} \2;", text, re.S):
        body = re.sub(r"/\*(?![*!]<)(?:(?!\*/).)*\*/", " ", m.group(3), flags=re.S)  # plain comments
        fields = {}
        for f in re.finditer(r"([^;]*?)\b(\w+)\s*(?:\[\s*\w+\s*\])?\s*;[ \t]*(?:/\*\*<((?:(?!\*/).)*)\*/)?", body, re.S):
            fields[f.group(2)] = _clean(f.group(3) or "")
        out[m.group(2)] = (_clean(m.group(1) or ""), fields)
    return out


# ---- one record --------------------------------------------------------------

SIGNED = re.compile(r"ctypes\.c_int(\d+)")
UNSIGNED = re.compile(r"ctypes\.c_uint(\d+)")


@dataclasses.dataclass
class Field:
    name: str          # the Python field
    c: str             # the C field
    ctype: str         # its ctypes expression (aliases resolved)
    view: object
    python: str        # the Python type
    read: str          # the expression reading it from `c`
    doc: str
    flag: str | None = None  # its has_ flag
    extra: bool = False


def _literal(values):
    names = sorted({v for v in values if v is not None})
    return "Literal[" + ", ".join(repr(v) for v in names) + "]"


class Generator:
    def __init__(self, text):
        self.header = gen_ffi.parse(text)
        self.docs = doc_comments(text)
        self.structs = {name: fields for kind, name, fields in self.header.types if kind == "struct"}
        self.aliases = {name: t for kind, name, t in self.header.types if kind == "alias"}
        self.maps = []  # (map name, {value: name}) of the enum views

    def resolve(self, ctype):
        while ctype in self.aliases:
            ctype = self.aliases[ctype]
        return ctype

    def names(self, view):
        """{constant: name} of an Enum view."""
        if isinstance(view.names, str):
            return {c: c[len(view.names):].lower() for c in self.header.constants if c.startswith(view.names)}
        return view.names

    def enum_map(self, struct, field, view):
        for constant in self.names(view):
            if constant not in self.header.constants:
                raise RecordError(f"{struct}.{field}: {constant} is not a constant of the header")
        for name, seen, _ in self.maps:
            if seen is view:  # one table for a view several fields share
                return name
        name = f"_{struct[len('encore_'):].upper()}_{field.upper()}"
        self.maps.append((name, view, {self.header.constants[c]: (c, n) for c, n in self.names(view).items()}))
        return name

    def field(self, struct, record, c_name, ctype, doc):
        view = record.views.get(c_name)
        ctype = self.resolve(ctype)
        src = f"c.{c_name}"
        if m := re.fullmatch(r"(.+) \* (\d+)", ctype):
            element, size = m.group(1), int(m.group(2))
            if isinstance(view, LengthOf):
                return "bytes", f"bytes({src}[:c.{view.length}])"
            if element in ("ctypes.c_uint8", "ctypes.c_int8"):
                return "bytes", f"bytes({src})"
            return "tuple[int, ...]" if element != "ctypes.c_double" else "tuple[float, ...]", f"tuple({src})"
        if ctype == "encore_bytes":
            read = f"take_text({src})"
            return ("str | None", f"{read} or None") if view == EMPTY_NONE else ("str", read)
        if ctype in self.structs:
            if ctype not in RECORDS:
                raise RecordError(f"{struct}.{c_name}: struct {ctype} has no record in RECORDS")
            return RECORDS[ctype].name, f"{RECORDS[ctype].name}.from_c({src})"
        if ctype == "ctypes.c_char_p":
            return "str | None", f"optional_text({src})"
        if ctype in ("ctypes.c_double", "ctypes.c_float"):
            return "float", src
        if not (SIGNED.fullmatch(ctype) or UNSIGNED.fullmatch(ctype)):
            raise RecordError(f"{struct}.{c_name}: no Python view of C type {ctype}; drop it in RECORDS")
        if view is None:
            return "int", src
        if view == BOOL:
            return "bool", f"bool({src})"
        if view == NEGATIVE_NONE:
            return "int | None", f"None if {src} < 0 else {src}"
        if view == ISO_DATE:
            return "str | None", f"iso_date({src})"
        if isinstance(view, Equals):
            if view.constant not in self.header.constants:
                raise RecordError(f"{struct}.{c_name}: {view.constant} is not a constant of the header")
            return "bool", f"{src} == _ffi.{view.constant}"
        if isinstance(view, Enum):
            table = self.enum_map(struct, c_name, view)
            values = list(self.names(view).values())
            if view.other is TEXT:
                return "str", f"{table}.get({src}) or f'unknown ({{{src}}})'"
            if view.other is RAISE:
                typ = _literal(values) + (" | None" if None in values else "")
                return typ, f"known({table}, {src}, {struct + '.' + c_name!r})"
            values.append(view.other)
            typ = _literal(values) + (" | None" if None in values else "")
            return typ, f"{table}.get({src}, {view.other!r})"
        raise RecordError(f"{struct}.{c_name}: unknown view {view!r}")

    def fields(self, struct, record):
        if struct not in self.structs:
            raise RecordError(f"RECORDS names {struct}, which the header does not declare")
        c_fields = {name: t for t, name in self.structs[struct]}
        docs = self.docs.get(struct, ("", {}))[1]
        for where in (record.views, record.rename, record.optional):
            for name in where:
                if name not in c_fields:
                    raise RecordError(f"RECORDS: {struct} has no field {name}")
        used = {v.length for v in record.views.values() if isinstance(v, LengthOf)}
        extras = {name for name, _, _ in record.extras}
        flags = {flag: name for name, flag in record.optional.items()}
        for name in list(c_fields) + list(extras):
            if f"has_{name}" in c_fields and f"has_{name}" not in record.views:
                flags.setdefault(f"has_{name}", name)
        out = []
        for c_name, ctype in c_fields.items():
            if (c_name == "struct_size" or c_name.startswith("reserved") or c_name in record.drop
                    or c_name in used or c_name in flags):
                continue
            python, read = self.field(struct, record, c_name, ctype, docs.get(c_name, ""))
            out.append(Field(record.rename.get(c_name, c_name), c_name, self.resolve(ctype), record.views.get(c_name),
                             python, read, docs.get(c_name, "")))
        for name, python, doc in record.extras:
            out.append(Field(name, name, "", None, python, name, doc, extra=True))
        for f in out:
            flag = next((flag for flag, target in flags.items() if target == f.c), None)
            if flag is not None:
                f.flag = flag
                f.python = f"{f.python} | None"
                f.read = f"({f.read}) if c.{flag} else None" if not f.extra else f"{f.read} if c.{flag} else None"
        names = [f.name for f in out]
        for name in record.order:
            if name not in names:
                raise RecordError(f"RECORDS: {struct}'s order names {name}, which the record does not have")
        ordered = [next(f for f in out if f.name == n) for n in record.order]
        return ordered + [f for f in out if f.name not in record.order]

    def to_c(self, struct, fields):
        """The lines of to_c(): every field checked to fit its C type."""
        lines = ["", "    def to_c(self) -> _ffi.%s:" % struct,
                 f'        """The C {struct} of this value (every field checked to fit)."""',
                 f"        c = sized(_ffi.{struct})"]
        for f in fields:
            value = f"self.{f.name}"
            if f.flag:
                lines.append(f"        if {value} is not None:")
                lines.append(f"            c.{f.flag} = 1")
                indent = "            "
            else:
                indent = "        "
            if m := re.fullmatch(r"(.+) \* (\d+)", f.ctype):
                size = int(m.group(2))
                if isinstance(f.view, LengthOf):
                    lines.append(f"{indent}data = bounded_bytes({value}, {size}, {f.name!r})")
                    lines.append(f"{indent}c.{f.c}[:len(data)] = list(data)")
                    lines.append(f"{indent}c.{f.view.length} = len(data)")
                else:
                    lines.append(f"{indent}c.{f.c}[:] = list(fixed_bytes({value}, {size}, {f.name!r}))")
            elif m := SIGNED.fullmatch(f.ctype):
                lines.append(f"{indent}c.{f.c} = checked_int({value}, {m.group(1)}, {f.name!r})")
            elif m := UNSIGNED.fullmatch(f.ctype):
                lines.append(f"{indent}c.{f.c} = checked_uint({value}, {m.group(1)}, {f.name!r})")
            else:
                raise RecordError(f"{struct}.{f.c}: to_c cannot write a {f.python}")
        lines.append("        return c")
        return lines

    def python_note(self, f):
        """What the Python view makes of the C field, after the header's words about it."""
        if isinstance(f.view, Enum):
            other = {id(TEXT): ", else 'unknown (N)'", id(RAISE): "", id(None): ", else None"}.get(
                id(f.view.other), f", else {f.view.other!r}")
            return "in Python: " + ", ".join(repr(n) for n in self.names(f.view).values()) + other
        if isinstance(f.view, Equals):
            return f"in Python: True for {f.view.constant}"
        notes = {BOOL: "in Python: a bool", NEGATIVE_NONE: "in Python: None for -1", EMPTY_NONE: "in Python: None when empty",
                 ISO_DATE: "in Python: \"YYYY-MM-DD\", None for -1"}
        if f.view in notes:
            return notes[f.view]
        if f.flag:
            return f"in Python: None unless {f.flag}"
        if f.ctype == "encore_bytes":
            return "in Python: a copy (the library's is freed)"
        return ""

    def record(self, struct, record):
        fields = self.fields(struct, record)
        doc, _ = self.docs.get(struct, ("", {}))
        out = ["", "", "@dataclasses.dataclass(frozen=True)", f"class {record.name}:",
               f'    """{doc or record.name} ({struct})"""'.replace('\\', '\\\\')]
        if record.name.startswith("Test"):
            out.append("    __test__ = False  # not a pytest test class")
        for f in fields:
            default = f" = {record.defaults[f.name]}" if f.name in record.defaults else ""
            out.append(f"    {f.name}: {f.python}{default}")
            doc = "; ".join(filter(None, [f.doc, self.python_note(f)]))
            if doc:
                out.append(f'    """{doc}"""'.replace('\\', '\\\\'))
        extras = [f for f in fields if f.extra]
        params = "".join(f", {f.name}: {f.python.removesuffix(' | None') if f.flag else f.python}"
                         + (f" = {record.defaults[f.name]}" if f.name in record.defaults else "") for f in extras)
        out += ["", "    @classmethod",
                f"    def from_c(cls, c: _ffi.{struct}{', *' if extras else ''}{params}) -> Self:",
                f'        """The value of a C {struct}{" and what the call gave beside it" if extras else ""}'
                + (" (its strings taken: freed)" if any(f.ctype == "encore_bytes" for f in fields) else "") + '."""',
                "        return cls(" + ",\n                   ".join(f"{f.name}={f.read}" for f in fields) + ")"]
        if record.to_c:
            out += self.to_c(struct, fields)
        return out

    def render(self):
        body = []
        for struct, record in RECORDS.items():
            body += self.record(struct, record)
        out = [
            '"""Frozen records of the C structs of include/encore.h, each with from_c()',
            "(and to_c() where the library takes it too).",
            "",
            "GENERATED by bindings/python/gen_records.py from include/encore.h. Do not edit;",
            "scripts/check-abi.sh fails when this file differs from a fresh generation.",
            "The public modules re-export these classes under the same names.",
            '"""',
            "from __future__ import annotations",
            "",
            "import dataclasses",
            "from typing import Any, Literal, Self",
            "",
            "from . import _ffi",
            "from ._cdata import bounded_bytes, checked_int, checked_uint, fixed_bytes, iso_date, known, optional_text, sized, take_text",
            "",
            "# Names of the ENCORE_* codes the records show as names.",
        ]
        for name, _, values in self.maps:
            names = [n for _, n in values.values()]
            typ = _literal(names) + (" | None" if None in names else "")
            out.append(f"{name}: dict[int, {typ}] = {{" + ", ".join(f"_ffi.{c}: {n!r}" for _, (c, n) in values.items()) + "}")
        return "\n".join(out + body) + "\n"


def generate(text):
    return Generator(text).render()


def main(argv):
    gen_ffi.write_or_check(argv, "gen_records", OUTPUT, generate, (gen_ffi.HeaderError, RecordError))


if __name__ == "__main__":
    main(sys.argv[1:])
