"""Reading ratings and verdicts out of a judge's free-text answer.

Judges answer in many shapes ("4", "Score: 4", "4/5", "4 out of 5", "[[4]]", a sentence of reasoning
that ends in a number). A rating that is missing or outside the scale is *unparsable*: the caller
counts it and leaves it out; it is never replaced by a default.
"""

from __future__ import annotations

import re
from typing import Literal

_NUMBER = r"(\d+(?:\.\d+)?)"

_BRACKETED = re.compile(r"\[\[\s*" + _NUMBER + r"\s*\]\]")
"""``[[4]]``: an explicit answer format, read before anything else."""

# Tried in order after the bracketed form, once scale ranges are removed; within a pattern the last
# match wins (a judge that reasons first states its verdict at the end).
_PATTERNS = (
    re.compile(_NUMBER + r"\s*(?:/|out\s+of)\s*\d+(?:\.\d+)?", re.IGNORECASE),
    re.compile(r"(?:score|rating|rated?|grade)\b[^\d\n]{0,30}?" + _NUMBER, re.IGNORECASE),
)
_SCALE_RANGE = re.compile(r"\(?\b\d+\s*(?:-|–|to)\s*\d+\b\)?", re.IGNORECASE)
"""A scale such as "1-5", "(1-5)" or "from 1 to 5" names the range, not a rating."""
_LIST_MARKER = re.compile(r"^\s*\d+[.)](?=\s|$)", re.MULTILINE)
_STANDALONE = re.compile(r"(?<![\w.])" + _NUMBER + r"(?![\w]|\.\d)")


def parse_rating(answer: str, low: float = 1, high: float = 5) -> float | None:
    """The rating in ``answer`` if it is on the ``low``-``high`` scale, else ``None``."""
    bracketed = _BRACKETED.findall(answer)
    if bracketed:
        return _in_range(bracketed[-1], low, high)
    answer = _SCALE_RANGE.sub(" ", answer)
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


Verdict = Literal["A", "B", "tie"]

_VERDICT_PATTERNS = (
    re.compile(r"\[\[\s*(A|B|C|tie)\s*\]\]", re.IGNORECASE),
    re.compile(r"verdict\s*(?:is)?\s*[:=]?\s*\**\s*\(?\b(A|B|C|tie)\b", re.IGNORECASE),
    re.compile(
        r"\b(?:assistant|answer|response|output)\s*\(?(A|B)\)?\s+(?:is|was)\s+(?:better|superior|preferred|stronger)",
        re.IGNORECASE,
    ),
)
_TIE_WORDS = re.compile(r"\b(?:tie|equally good|equally bad|both (?:answers )?are equal(?:ly good)?)\b", re.IGNORECASE)


def parse_verdict(answer: str) -> Verdict | None:
    """A pairwise verdict: ``A``, ``B`` or ``tie`` (``C`` in the bracket form means a tie), else ``None``."""
    for pattern in _VERDICT_PATTERNS:
        matches = pattern.findall(answer)
        if matches:
            return _verdict(matches[-1])
    bare = answer.strip().strip(".*()[] ").upper()
    if bare in ("A", "B", "C", "TIE"):
        return _verdict(bare)
    if _TIE_WORDS.search(answer):
        return "tie"
    return None


def _verdict(token: str) -> Verdict:
    token = token.upper()
    return "tie" if token in ("C", "TIE") else token  # type: ignore[return-value]


_YES_NO = re.compile(r"\[\[\s*(YES|NO)\s*\]\]|^\s*(YES|NO)\b", re.IGNORECASE)


def parse_yes_no(answer: str) -> bool | None:
    """``[[YES]]`` / ``[[NO]]`` (or a bare yes/no at the start) as a boolean, else ``None``."""
    matches = _YES_NO.findall(answer)
    if not matches:
        return None
    bracketed, bare = matches[-1]
    return (bracketed or bare).upper() == "YES"
