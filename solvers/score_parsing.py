"""Reading a numeric rating out of a judge's free-text answer.

Judges answer in many shapes ("4", "Score: 4", "4/5", "4 out of 5", "[[4]]", a sentence of reasoning
that ends in a number). A rating that is missing or outside the scale is *unparsable*: the caller
counts it and leaves it out; it is never replaced by a default.
"""

from __future__ import annotations

import re

_NUMBER = r"(\d+(?:\.\d+)?)"

# Tried in order; within a pattern the last match wins (a judge that reasons first states its
# verdict at the end).
_PATTERNS = (
    re.compile(r"\[\[\s*" + _NUMBER + r"\s*\]\]"),
    re.compile(_NUMBER + r"\s*(?:/|out\s+of)\s*\d+(?:\.\d+)?", re.IGNORECASE),
    re.compile(r"(?:score|rating|rated?|grade)\b[^\d\n]{0,30}?" + _NUMBER, re.IGNORECASE),
)
_LIST_MARKER = re.compile(r"^\s*\d+[.)](?=\s|$)", re.MULTILINE)
_STANDALONE = re.compile(r"(?<![\w.])" + _NUMBER + r"(?![\w]|\.\d)")


def parse_rating(answer: str, low: float = 1, high: float = 5) -> float | None:
    """The rating in ``answer`` if it is on the ``low``-``high`` scale, else ``None``."""
    for pattern in _PATTERNS:
        matches = pattern.findall(answer)
        if matches:
            return _in_range(matches[-1], low, high)
    without_list_markers = _LIST_MARKER.sub(" ", answer)
    numbers = _STANDALONE.findall(without_list_markers)
    if not numbers:
        return None
    return _in_range(numbers[-1], low, high)


def _in_range(number: str, low: float, high: float) -> float | None:
    value = float(number)
    return value if low <= value <= high else None
