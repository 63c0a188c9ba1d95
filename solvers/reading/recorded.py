"""Reading a recorded judgment (``-T judgments=``): the judge's raw answer by the same rules as a live answer, or a
recorded value by the rules of the scale, so that both count as the live judge's answers count.

A recorded value is on the scale when it is a number from ``low`` to ``high`` (a mean of several generations, such as
HANNA's 3.6667 on 1-5, is a rating like any other; -1, 0 or 0.33 on 1-5 are not), a verdict ``A``, ``B`` or a tie
(``tie``, or ``C`` as FBI's authors write it), or a yes/no as ``yes``/``no``, ``true``/``false`` or a number from 0
to 1 (a share of yes answers); a number may be written as text (CSV cells are text). Anything else is a parse
failure (``None``): counted and shown with the value, never replaced.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from solvers.reading.formats import AnswerFormat
from solvers.reading.shapes import JSON_BRACKETS, JSON_VERDICTS, AnswerShape, Reading, read_answer

_YES_NO_WORDS = {"yes": 1.0, "no": 0.0, "true": 1.0, "false": 0.0}


def _number(value: Any) -> float | None:
    """A finite number, or a text that is one (CSV cells are text); else ``None``."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            return None
    if isinstance(value, (int, float)) and math.isfinite(value):
        return float(value)
    return None


def read_value(value: Any, shape: AnswerShape) -> float | str | None:
    """A recorded value as an answer of ``shape``: a rating on its scale, a verdict (``A``, ``B``, ``tie``), or
    yes/no as 1/0 (or the share of yes); ``None`` where it is none of them."""
    if shape.kind == "verdict":
        said = JSON_BRACKETS.fullmatch(value.strip().lower()) if isinstance(value, str) else None
        return JSON_VERDICTS.get(said.group(1)) if said else None
    if shape.kind == "yes_no":
        if isinstance(value, bool):
            return float(value)
        if isinstance(value, str) and value.strip().lower() in _YES_NO_WORDS:
            return _YES_NO_WORDS[value.strip().lower()]
        low, high = 0.0, 1.0
    else:
        low, high = shape.low, shape.high
    number = _number(value)
    return number if number is not None and low <= number <= high else None


def read_recorded(
    judgment: Mapping[str, Any], shape: AnswerShape, prompt: str | None = None, answer_format: AnswerFormat = "text"
) -> Reading:
    """One recorded judgment as stored by the solver: its ``answer`` read against ``prompt`` as a live answer
    (:func:`~solvers.reading.shapes.read_answer`), or its ``value`` by :func:`read_value`."""
    if "answer" in judgment:
        return read_answer(str(judgment["answer"]), shape, prompt, answer_format)
    return Reading(read_value(judgment.get("value"), shape))


def shown(judgment: Mapping[str, Any]) -> str:
    """A recorded judgment as the unparsed-answers warning and the score metadata show it: the answer, or the
    value."""
    return str(judgment["answer"]) if "answer" in judgment else str(judgment.get("value"))
