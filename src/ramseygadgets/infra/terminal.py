"""Text that is safe to print on a terminal: names from run directories, model labels, server
errors and replies are data, never terminal commands or Rich markup.

:func:`terminal_text` removes escape sequences (CSI such as ``ESC [ 2 J``, OSC such as window
titles and hyperlinks, two-character escapes), every other C0/C1 control character and the
Unicode bidirectional overrides (tab, newline and carriage return become a space), and escapes
Rich markup (``[/bold]`` is printed as written, never parsed).
"""

from __future__ import annotations

import re

from rich.markup import escape

__all__ = [
    "terminal_text",
]


#: ESC followed by a CSI sequence, an OSC string (ended by BEL or ESC \\, or unterminated) or one
#: more character.
_ESCAPE_SEQUENCE = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]?|\][^\x07\x1b]*(?:\x07|\x1b\\)?|.?)")
#: C0 and C1 controls, DEL, and the bidirectional embeddings, overrides and isolates.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_WHITESPACE = frozenset("\t\n\r")


def terminal_text(text: object, *, markup: bool = True) -> str:
    """``str(text)`` without escape sequences and control characters, with Rich markup escaped
    (``markup=False``: for output printed with ``markup=False``, where escaping would show)."""
    cleaned = _ESCAPE_SEQUENCE.sub("", str(text))
    cleaned = _CONTROL.sub(lambda m: " " if m.group() in _WHITESPACE else "", cleaned)
    return escape(cleaned) if markup else cleaned
