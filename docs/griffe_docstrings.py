"""A Griffe extension for the API reference: the package's docstrings mix Google sections with a little reST, which
would otherwise show through in the rendered pages.

* ``Example:`` and ``Example (what it shows):`` headers, read by Google style as an admonition of plain text (the
  ``>>>`` lines would be rendered as prose), become ``Examples:`` sections, the note in brackets their first line;
  a reST literal block (``Example (a test file)::``) becomes a fenced Python block.
* Sphinx roles (``:func:`evaluate```, ``:class:`~rageval_lc.schema.RagSample```) become code spans, the ``~`` form
  showing the last name only.

Example:
    >>> readable(["Example (two rows):", "    >>> 1 + 1", "    2"])
    ['Examples:', '    Two rows:', '    >>> 1 + 1', '    2']
    >>> readable(["See :class:`~rageval_lc.schema.RagSample` and :func:`evaluate`."])
    ['See `RagSample` and `evaluate`.']
"""

from __future__ import annotations

import re
from typing import Any

import griffe

_HEADER = re.compile(r"^(?P<indent>\s*)Examples?(?:\s*\((?P<note>.*)\))?(?P<colons>::?)\s*$")
_ROLE = re.compile(r":(?:attr|class|data|func|meth|mod|exc|obj):`(?P<tilde>~?)(?P<target>[^`]+)`")


def _role(match: re.Match[str]) -> str:
    target = match["target"]
    return f"`{target.rsplit('.', 1)[-1] if match['tilde'] else target}`"


def readable(lines: list[str]) -> list[str]:
    """The docstring's lines with example headers made ``Examples:`` sections and Sphinx roles made code spans."""
    out: list[str] = []
    i = 0
    while i < len(lines):
        match = _HEADER.match(lines[i])
        if not match:
            out.append(_ROLE.sub(_role, lines[i]))
            i += 1
            continue
        indent, note = match["indent"], match["note"]
        body_indent = indent + "    "
        out.append(f"{indent}Examples:")
        if note:
            out.append(f"{body_indent}{note[0].upper()}{note[1:]}:")
        i += 1
        if match["colons"] == "::":  # a literal block: its indented lines, as a fenced block
            block: list[str] = []
            while i < len(lines) and (not lines[i].strip() or lines[i].startswith(body_indent)):
                block.append(lines[i])
                i += 1
            while block and not block[-1].strip():
                block.pop()
            while block and not block[0].strip():
                block.pop(0)
            out += ["", f"{body_indent}```python", *block, f"{body_indent}```"]
    return out


class ReadableDocstrings(griffe.Extension):
    """Rewrites every docstring as :func:`readable` says, before it is parsed."""

    def on_object(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = "\n".join(readable(obj.docstring.value.splitlines()))
