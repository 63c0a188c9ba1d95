"""What the judge was asked for (:class:`AnswerShape`), and one reader for an answer of any kind in either answer
format (:func:`read_answer`).

:func:`read_answer` reads a ``json`` answer by its field, falling back to the text rules (and saying so) when it is
not a JSON object with that field (an unescaped quote in the reasoning, a trailing comma, prose around it: the text
rules read its field); a ``text`` answer by the text rules of its kind.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, NamedTuple

from solvers.reading.formats import JSON_FIELDS, AnswerFormat, AnswerKind
from solvers.reading.ratings import parse_rating
from solvers.reading.tokens import CHECK_LABELS
from solvers.reading.verdicts import parse_verdict
from solvers.reading.yes_no import parse_yes_no

_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.DOTALL)
JSON_BRACKETS = re.compile(r"(?:\[\[\s*)?(\w+)(?:\s*\]\])?")
JSON_VERDICTS = {"a": "A", "b": "B", "tie": "tie", "c": "tie"}
"""A verdict or yes/no field's word, with or without ``[[ ]]`` around it (``"[[A]]"``)."""


@dataclass(frozen=True)
class AnswerShape:
    """What the judge was asked for: a rating on ``low``-``high``, a pairwise verdict, or yes/no."""

    kind: AnswerKind
    low: float = 1
    high: float = 5
    higher_is_better: bool = True
    """For a rating: whether the high end of the scale is the best (a lower-is-better criterion says otherwise)."""

    def parse_text(self, answer: str, prompt: str | None = None) -> float | str | bool | None:
        """The answer read by the text rules of its kind."""
        if self.kind == "rating":
            return parse_rating(answer, self.low, self.high, prompt)
        if self.kind == "verdict":
            return parse_verdict(answer, prompt)
        return parse_yes_no(answer, prompt)

    def json_field(self, answer: str) -> tuple[bool, float | str | bool | None]:
        """Whether the answer is a JSON object (a code fence around it allowed) that has the answer's field, and the
        field's value where it is an allowed one (else ``None``: an off-scale score, ``true``, verdict ``D``)."""
        text = answer.strip()
        fenced = _FENCE.match(text)
        try:
            data = json.loads(fenced.group(1) if fenced else text)
        except ValueError:
            return False, None
        if not isinstance(data, dict) or JSON_FIELDS[self.kind] not in data:
            return False, None
        return True, self._allowed(data[JSON_FIELDS[self.kind]])

    def _allowed(self, value: Any) -> float | str | bool | None:
        """A field's value as an answer of this shape: a number on the scale (``4``); ``A``, ``B`` or a tie
        (``"tie"``, ``"C"``, bracketed or not, as FBI's authors ask for it); yes or no. A string holding something
        else (``"4"``, ``"8/10"``, ``"Assistant A"``) is read by the text rules, on its own."""
        if isinstance(value, str):
            said = JSON_BRACKETS.fullmatch(value.strip().lower())
            word = said.group(1) if said else ""
            if self.kind == "verdict" and word in JSON_VERDICTS:
                return JSON_VERDICTS[word]
            if self.kind == "yes_no" and word in CHECK_LABELS:
                return word == "yes"
            return self.parse_text(value)
        if self.kind == "rating" and isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value) if self.low <= value <= self.high else None
        return None

    def parse_json(self, answer: str) -> float | str | bool | None:
        """The answer's field when the answer is a JSON object whose field holds an allowed value, else ``None``."""
        return self.json_field(answer)[1]


VERDICT = AnswerShape("verdict")
YES_NO = AnswerShape("yes_no")


class Reading(NamedTuple):
    """An answer as read: its value (``None``: unparsable) and, for ``json`` answers, whether it was not a JSON
    object with the answer's field and the text rules read it instead."""

    value: Any
    json_fallback: bool = False


def read_answer(
    answer: str, shape: AnswerShape, prompt: str | None = None, answer_format: AnswerFormat = "text"
) -> Reading:
    """Read one answer: a ``json`` answer by its field, falling back to the text rules when it is not a JSON object
    with that field (counted by the caller through ``json_fallback``).

    A JSON object whose field holds no allowed value (an off-scale score, verdict ``D``) is unparsable: it states
    its answer, and reading another one out of its reasoning would be a guess.
    """
    if answer_format == "json":
        has_field, value = shape.json_field(answer)
        if has_field:
            return Reading(value)
        return Reading(shape.parse_text(answer, prompt), json_fallback=True)
    return Reading(shape.parse_text(answer, prompt))
