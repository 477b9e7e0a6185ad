#!/usr/bin/env python3
"""Checks the C reference manual that `make docs` built (build/docs) for
what it must hold:
- every exported function (support/deb/libencore<MAJOR>.symbols, the ABI's
  record that check-abi holds the library to) is documented on a section's
  page: a documentation comment, and its entry (anchor) on the page;
- every struct of include/encore.h is documented: a struct with fields has
  its own page, listed on its section's page; an opaque handle's typedef
  has its entry on its section's page;
- Doxygen warned about nothing (build/docs/warnings.log): a warning is a
  fault of the header's markup (a broken reference, an unknown tag).

    scripts/check-docs.py [DOCS_DIR]     (default build/docs)

Prints one line per check passed; exits 1 with every fault listed.
"""
import pathlib
import re
import sys
import xml.etree.ElementTree as ET
from typing import Optional

ROOT = pathlib.Path(__file__).resolve().parent.parent
HEADER = ROOT / "include/encore.h"


def exported_functions() -> list[str]:
    """The function names of the symbols file (` name@VERSION_NODE version` lines)."""
    files = sorted((ROOT / "support/deb").glob("libencore*.symbols"))
    if len(files) != 1:
        sys.exit(f"check-docs: expected one support/deb/libencore*.symbols, found {len(files)}")
    names = re.findall(r"^ (encore_\w+)@\w+ ", files[0].read_text(), re.M)
    if not names:
        sys.exit(f"check-docs: no functions in {files[0].relative_to(ROOT)}")
    return names


def header_structs() -> tuple[list[str], list[str]]:
    """(structs with a body, opaque struct typedefs) of the header."""
    text = HEADER.read_text()
    return (re.findall(r"^typedef struct (\w+) \{", text, re.M),
            re.findall(r"^typedef struct (\w+) \1;", text, re.M))


def has_text(element: Optional[ET.Element]) -> bool:
    return element is not None and "".join(element.itertext()).strip() != ""


def documented(node: ET.Element) -> bool:
    return has_text(node.find("briefdescription")) or has_text(node.find("detaileddescription"))


class Reference:
    """What Doxygen's XML says was documented, and where the HTML has it."""

    def __init__(self, docs: pathlib.Path) -> None:
        self.html = docs / "html"
        self.members: dict[tuple[str, str], tuple[ET.Element, str]] = {}  # (kind, name) -> (memberdef, group page)
        self.structs: dict[str, ET.Element] = {}  # name -> compounddef
        self.group_structs: set[str] = set()
        for path in sorted((docs / "xml").glob("*.xml")):
            if not (path.name.startswith("group__") or path.name.startswith("struct")):
                continue
            compound = ET.parse(path).getroot().find("compounddef")
            if compound is None:
                continue
            if compound.get("kind") == "group":
                for member in compound.iter("memberdef"):
                    key = (member.get("kind", ""), member.findtext("name", ""))
                    self.members[key] = (member, compound.get("id", ""))
                self.group_structs.update(c.text or "" for c in compound.findall("innerclass"))
            elif compound.get("kind") == "struct":
                self.structs[compound.findtext("compoundname", "")] = compound

    def page_has_anchor(self, page: str, member_id: str) -> bool:
        """Doxygen's member ids are PAGE_1ANCHOR; the page carries id="ANCHOR"."""
        anchor = member_id.split("_1", 1)[1] if member_id.startswith(page + "_1") else member_id
        path = self.html / f"{page}.html"
        return path.exists() and f'id="{anchor}"' in path.read_text()

    def member_fault(self, kind: str, name: str) -> Optional[str]:
        found = self.members.get((kind, name))
        if not found:
            return f"{name}: no entry on any section's page (is it in include/encore.h?)"
        member, page = found
        if not documented(member):
            return f"{name}: no documentation comment (its /// lines in Sources/EncoreABI, or its comment in Sources/CEncoreTypes)"
        if not self.page_has_anchor(page, member.get("id", "")):
            return f"{name}: {page}.html has no entry for it"
        return None

    def struct_fault(self, name: str) -> Optional[str]:
        compound = self.structs.get(name)
        if compound is None:
            return f"struct {name}: no page"
        if not documented(compound):
            return f"struct {name}: no documentation comment (Sources/CEncoreTypes/include)"
        if not (self.html / f"{compound.get('id')}.html").exists():
            return f"struct {name}: {compound.get('id')}.html is missing"
        if name not in self.group_structs:
            return f"struct {name}: listed on no section's page"
        return None


def main() -> None:
    docs = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "build/docs"
    if not (docs / "xml/index.xml").exists():
        sys.exit(f"check-docs: {docs}/xml/index.xml is missing: run make docs first")
    ref = Reference(docs)
    faults: list[str] = []

    def check(what: str, found: list[str]) -> None:
        faults.extend(found)
        if not found:
            print(f"{what}: ok")

    functions = exported_functions()
    check(f"{len(functions)} exported functions documented on their section's page",
          [f for f in (ref.member_fault("function", n) for n in functions) if f])
    bodies, opaque = header_structs()
    check(f"{len(bodies)} structs documented, each on its own page",
          [f for f in (ref.struct_fault(n) for n in bodies) if f])
    check(f"{len(opaque)} opaque handle types documented on their section's page",
          [f for f in (ref.member_fault("typedef", n) for n in opaque) if f])
    warnings = (docs / "warnings.log").read_text().strip() if (docs / "warnings.log").exists() else ""
    check("Doxygen warned about nothing", [f"doxygen: {w}" for w in warnings.splitlines()])
    if faults:
        print(f"check-docs: {len(faults)} fault{'' if len(faults) == 1 else 's'}:")
        print("\n".join(f"  {f}" for f in faults))
        sys.exit(1)


if __name__ == "__main__":
    main()
