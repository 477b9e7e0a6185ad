"""Plain Python values for the library's C records: the store's rows and
what a key file says. The classes are generated from the header's structs
(_records.py, bindings/python/gen_records.py); this module names them."""
from __future__ import annotations

from . import _ffi
from ._cdata import checked_int
from ._records import (  # re-exported: the public names of the generated records
    CachedKeyFileInfo as CachedKeyFileInfo, Key as Key, KeyFileInfo as KeyFileInfo, OwnKey as OwnKey, PurgeCounts as
    _PurgeCounts, RiskResult as RiskResult, Sighting as Sighting, TracingEvent as TracingEvent)

# ENCORE_SIGNATURE_VERIFIED -> "verified", from the header's constants so a
# new outcome needs no edit here.
_PREFIX = "ENCORE_SIGNATURE_"
SIGNATURE_STATUSES = {value: name[len(_PREFIX):].lower()
                      for name, value in vars(_ffi).items() if name.startswith(_PREFIX)}


class PurgeCounts(_PurgeCounts):
    """Rows a purge removed (encore_purge_counts)."""

    @property
    def total(self) -> int:
        """Rows removed from all tables."""
        return self.sightings + self.own_keys + self.keyfiles + self.tracing_events + self.risk_results


__all__ = ["CachedKeyFileInfo", "Key", "KeyFileInfo", "OwnKey", "PurgeCounts", "RiskResult", "Sighting", "TracingEvent",
           "SIGNATURE_STATUSES", "checked_int"]
