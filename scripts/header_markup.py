"""Doxygen markup for include/encore.h (used by scripts/gen-header.py).

The types headers of Sources/CEncoreTypes/include and the Swift `///`
comments are written as plain C comments; the generated header carries the
same words in Doxygen's comment forms, so that `make docs` (Doxygen,
support/docs/Doxyfile) builds the reference from it:
- each section is a group (`@defgroup`, one page of the reference);
- a comment right above a declaration is its documentation (`/**`), and a
  comment after a field or a define on its line documents it (`/**<`);
- a comment above a run of defines (two or more, or one with its own
  comment) names them as a member group (`@name`: its first sentence is
  the title), so the run reads as one list;
- a comment standing alone (a blank line after it) stays a plain comment,
  and its words are also the section's text, atop its page.
Indented comments on their own line inside a struct stay plain comments.
"""
import re
from typing import Iterable

TITLE_MAX = 90


def group_open(gid: str, number: int, title: str, intro: list[str]) -> list[str]:
    """A section's group; `intro`: paragraphs of its page's text."""
    lines = [f"/** @defgroup {gid} {number}. {title}"]
    for i, paragraph in enumerate(intro):
        # @details: not a summary (the page's title is), though the first sentence.
        lines += [" *", f" * {'@details ' if i == 0 else ''}{paragraph}"]
    return lines + [" * @{ */"]


def group_close(gid: str) -> list[str]:
    return [f"/** @}} */ /* {gid} */"]


def function_doc(doc: list[str]) -> str:
    """A function's `///` lines as its Doxygen comment."""
    return "/** " + "\n * ".join(doc) + " */"


def comment_text(lines: Iterable[str]) -> str:
    """The words of a /* ... */ block, one string."""
    text = " ".join(lines)
    text = re.sub(r"^\s*/\*+|\*/\s*$", "", text)
    return re.sub(r"\s+\*\s+|\s+", " ", text).strip()


def sentences(text: str) -> list[str]:
    """Sentences: split after each period outside parentheses that ends the
    text or comes before a space."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if ch == "." and depth == 0 and (i + 1 == len(text) or text[i + 1] == " "):
            out.append(text[start:i + 1].strip())
            start = i + 1
    return out + ([text[start:].strip()] if text[start:].strip() else [])


def name_title(lines: list[str]) -> tuple[str, str]:
    """A member group's title and the rest of its comment's words: its first
    sentence, cut at a word when long."""
    text = comment_text(lines)
    first = sentences(text)[0]
    if len(first) <= TITLE_MAX:
        return first, text[len(first):].strip()
    return text[:TITLE_MAX].rsplit(" ", 1)[0] + " ...", text


TRAILING = re.compile(r"^(\s*(?:#define\s|\S).*?\S)(\s+)/\*(?!\*)")


def trailing(line: str) -> str:
    """A field's or define's comment on its own line documents it."""
    return TRAILING.sub(r"\1\2/**<", line, count=1)


def types_body(body: str) -> tuple[str, list[str]]:
    """A types header's body with its comments in Doxygen's forms, and the
    words of its comments that stand alone (for group_open)."""
    lines = body.split("\n")
    out: list[str] = []
    intro: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.startswith("/*"):
            out.append(trailing(line) if "/*" in line and not line.lstrip().startswith("/*") else line)
            # A multi-line trailing comment: its continuation lines as they are.
            if "/*" in line and "*/" not in line:
                while i + 1 < len(lines) and "*/" not in lines[i]:
                    i += 1
                    out.append(lines[i])
            i += 1
            continue
        end = i
        while "*/" not in lines[end]:
            end += 1
        comment = lines[i:end + 1]
        after = lines[end + 1] if end + 1 < len(lines) else ""
        run_end = end + 1
        while run_end < len(lines) and lines[run_end].startswith("#define"):
            # a define's trailing comment may go on over more lines
            if "/*" in lines[run_end]:
                while run_end < len(lines) and "*/" not in lines[run_end]:
                    run_end += 1
            run_end += 1
        defines = [ln for ln in lines[end + 1:run_end] if ln.startswith("#define")]
        if len(defines) >= 2 or any(TRAILING.match(d) for d in defines):
            title, rest = name_title(comment)
            out.append(f"/** @name {title}")
            if rest:
                out.append(f" * {rest}")
            out.append(" * @{ */")
            out += [trailing(ln) if ln.startswith("#define") else ln for ln in lines[end + 1:run_end]]
            out.append("/** @} */")
            i = run_end
            continue
        if after.strip() == "":
            # Standing alone: the section's own text, at the top of its page.
            intro.append(comment_text(comment))
            out += comment
        else:
            out.append("/**" + comment[0][2:])
            out += comment[1:]
        i = end + 1
    return "\n".join(out), intro
