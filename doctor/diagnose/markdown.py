"""A GitHub issue pasted whole reads like the logs inside it. Issue bodies quote log lines with `> ` and `>> `,
escape characters (`flashinfer\\_python`, `&gt;`), bold their labels (`- **Ollama Version**: 0.12.11`), close a
fence on a log's last line, and put an issue form's answer on the line after its `### Label` heading
(Ollama's `### Ollama version` / `0.12.11`, llama.cpp's `### Operating systems` / `Linux`). Each block of the
log passes through `normalise` before the scan: every rewrite stays inside its line, so line numbers stay those
of the paste, and a block that holds none of these marks is returned as it is."""

from __future__ import annotations

import functools
import re
from typing import Any

# `> ` and `>> ` quotes (GitHub's reply quoting), up to three spaces of indentation before them
_QUOTE = re.compile(rb"(?m)^[ \t]{0,3}(?:>[ \t]?)+")
_ENTITIES = {b"&gt;": b">", b"&lt;": b"<", b"&amp;": b"&", b"&quot;": b'"', b"&#39;": b"'", b"&#x27;": b"'",
             b"&nbsp;": b" "}
_ENTITY = re.compile(rb"&(?:gt|lt|amp|quot|nbsp|#39|#x27);")
# GitHub's backslash escapes of markdown characters; never after a drive letter's colon (`D:\_models`) or
# another backslash (a JSON-escaped Windows path)
_ESCAPE = re.compile(rb"(?<![:\\])\\([_*#\[\]`|~])")
_BOLD = re.compile(rb"\*\*(?=[^\s*])([^*\n]{1,200}?)(?<=[^\s*])\*\*")
_HTML_TAG = re.compile(rb"</?(?:details|summary|code|pre|sup|sub|b|i|strong|em)>|<br\s*/?>", re.IGNORECASE)
_FENCE_END = re.compile(rb"(?m)(?<=\S)[ \t]*```[ \t]*$")  # a fence closed at the end of a log's last line
_FENCE_START = re.compile(rb"(?m)^([ \t]*)```")  # a fence opened on a log's first line (or its own)
# the issue forms' labels whose answer is a fact (the value is the first non-blank line after the heading)
FORM_LABELS = (b"Ollama version", b"OS", b"GPU", b"Operating systems", b"GGML backends", b"Name and Version")
_FORM = re.compile(rb"(?m)^#{2,6}[ \t]+(" + b"|".join(FORM_LABELS) + rb")[ \t]*\r?\n((?:[ \t]*\r?\n){0,3})"
                   rb"(?!#|```|[ \t]*\r?\n)([^\n]{1,200})")
# an issue form's boilerplate, never a log's line: its `### Label` headings and ticked checklists (a form's
# labels and checklist items name the engine and its links: `Which llama.cpp modules ...`, a discussions URL)
_HEADING = re.compile(rb"(?m)^#{2,6}[ \t][^\n]*")
_TASK = re.compile(rb"(?m)^[ \t]*[-*+][ \t]+\[[ xX]\][^\n]*")
# what each rewrite looks for, in one RE2 set: a plain log is scanned once (a few ms a MiB) and left as it is
CRLF, QUOTE, HEADING, TASK, ENTITY, ESCAPE, BOLD, TAG, FENCE = range(9)
_MARKS = (rb"\r\n", rb"(?m)^[ \t]{0,3}>", rb"(?m)^#{2,6}[ \t]", rb"(?m)^[ \t]*[-*+][ \t]+\[[ xX]\]",
          _ENTITY.pattern, rb"\\[_*#\[\]`|~]", rb"\*\*",
          rb"(?i)</?(?:details|summary|code|pre|sup|sub|b|i|strong|em)>|<[bB][rR]", rb"```")


def normalise(data: bytes) -> bytes:
    """The block as the logs in it printed their lines; the same number of newlines, in the same places."""
    marks = _marks(data)
    if not marks:
        return data
    if CRLF in marks:
        data = data.replace(b"\r\n", b"\n")
    if QUOTE in marks:  # what a quote hid opens its line now (`> ### Label`, `> - [x] ...`)
        data = _QUOTE.sub(b"", data)
        marks = _marks(data)
    if HEADING in marks:
        data = _HEADING.sub(b"", _FORM.sub(_form_answer, data))
    if TASK in marks:
        data = _TASK.sub(b"", data)
    if ENTITY in marks:
        data = _ENTITY.sub(lambda m: _ENTITIES[m.group(0)], data)
    if ESCAPE in marks:
        data = _ESCAPE.sub(rb"\1", data)
    if BOLD in marks:
        data = _BOLD.sub(rb"\1", data)
    if TAG in marks:
        data = _HTML_TAG.sub(b" ", data)
    if FENCE in marks:
        data = _FENCE_START.sub(rb"\1", _FENCE_END.sub(b"", data))
    return data


def _marks(data: bytes) -> set[int]:
    return set(_mark_set().Match(data) or ())


@functools.cache
def _mark_set() -> Any:
    import re2

    marks = re2.Set.SearchSet(re2.Options())
    for pattern in _MARKS:
        marks.Add(pattern)
    marks.Compile()
    return marks


def _form_answer(m: re.Match[bytes]) -> bytes:
    """`### Ollama version` / `` / `0.12.11` → an empty line (headings are boilerplate), the blank line, and
    `Ollama version: 0.12.11`."""
    label, blank, value = m.group(1), m.group(2), m.group(3)
    return b"\n" + blank + label + b": " + value.strip()
