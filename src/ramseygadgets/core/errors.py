"""Exceptions with messages meant for people: every one names the problem in one sentence."""

from __future__ import annotations

__all__ = [
    "RamseyGadgetsError",
    "InputError",
    "GraphFormatError",
    "GraphTooLargeError",
    "UnknownPatternError",
    "UnknownProblemError",
    "DesignatedItemError",
    "ColoringLimitExceeded",
]


class RamseyGadgetsError(Exception):
    """Base class; the CLI prints ``str(err)`` on one line and exits with code 2."""


class InputError(RamseyGadgetsError, ValueError):
    """A value given as input (an option, a field of a record) that the code cannot take; also a
    ``ValueError``, for callers that catch that."""


class GraphFormatError(RamseyGadgetsError, ValueError):
    """A graph, pattern or answer could not be read exactly as given."""


class GraphTooLargeError(GraphFormatError):
    """A graph exceeds the vertex or edge limit set by the caller."""


class UnknownPatternError(RamseyGadgetsError, KeyError):
    """A pattern name is neither a known name nor a readable edge list / graph6 string."""

    def __str__(self) -> str:  # KeyError quotes its message otherwise
        return str(self.args[0]) if self.args else "unknown pattern"


class UnknownProblemError(RamseyGadgetsError, KeyError):
    """A problem id is not in the catalog."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "unknown problem"


class DesignatedItemError(RamseyGadgetsError, ValueError):
    """Designated edges or vertices are missing, malformed, absent from the graph or not distinct."""


class ColoringLimitExceeded(RamseyGadgetsError):
    """Enumerating good colorings would exceed the requested limit."""
