#!/usr/bin/env python3
"""Checks the links of a tree of HTML pages (the C reference manual,
build/docs/html): every local href or src names a file that exists in the
tree, and every #fragment an id (or a name) in the page it points to.
Links with a scheme (https:, mailto:, javascript:) are not followed.

    scripts/check-links.py [HTML_DIR]    (default build/docs/html)

Prints one line when every link holds; exits 1 listing each broken one.
"""
import html.parser
import os
import pathlib
import sys
import urllib.parse
from typing import Optional

ROOT = pathlib.Path(__file__).resolve().parent.parent
LINK_ATTRIBUTES = {"href", "src"}


class Page(html.parser.HTMLParser):
    """A page's link targets and the anchors it defines."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.links: list[str] = []
        self.anchors: set[str] = set()
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, Optional[str]]]) -> None:
        for name, value in attrs:
            if value is None:
                continue
            if name in LINK_ATTRIBUTES:
                self.links.append(value)
            elif name == "id" or (name == "name" and tag == "a"):
                self.anchors.add(value)


def broken_links(top: pathlib.Path) -> tuple[list[str], int, int]:
    top = pathlib.Path(os.path.abspath(top))
    pages: dict[pathlib.Path, Page] = {}

    def page(path: pathlib.Path) -> Page:
        if path not in pages:
            pages[path] = Page(path.read_text(errors="replace"))
        return pages[path]

    broken: list[str] = []
    checked = 0
    for source in sorted(top.rglob("*.html")):
        source = pathlib.Path(os.path.abspath(source))
        for link in page(source).links:
            url = urllib.parse.urlsplit(link)
            if url.scheme or url.netloc:
                continue
            checked += 1
            # Lexically: a link to a symbolic link (libencore-dev's jquery.js)
            # is in the tree; that its target exists, is_file() tells.
            target = source if url.path == "" else pathlib.Path(os.path.normpath(source.parent / urllib.parse.unquote(url.path)))
            where = f"{source.relative_to(top)}: {link}"
            if not target.is_relative_to(top):
                broken.append(f"{where} (outside the tree)")
            elif not target.is_file():
                broken.append(f"{where} (no such file)")
            elif url.fragment and target.suffix == ".html" and url.fragment not in page(target).anchors:
                broken.append(f"{where} (no such anchor)")
    return broken, checked, len(pages)


def main() -> None:
    top = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "build/docs/html"
    if not top.is_dir():
        sys.exit(f"check-links: {top} is missing: run make docs first")
    broken, checked, pages = broken_links(top)
    if broken:
        print(f"check-links: {len(broken)} of {checked} links broken:")
        print("\n".join(f"  {b}" for b in broken))
        sys.exit(1)
    print(f"{checked} local links of {pages} pages lead to a file and anchor that exist: ok")


if __name__ == "__main__":
    main()
