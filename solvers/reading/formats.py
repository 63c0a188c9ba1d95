"""What the judge is asked for: the kinds of answer, the two answer formats, and the field of a JSON answer that
holds the answer with its allowed values."""

from __future__ import annotations

from typing import Literal

AnswerFormat = Literal["text", "json"]
ANSWER_FORMATS: tuple[AnswerFormat, ...] = ("text", "json")
"""``text``: the papers' free-text answers, read by the text rules; ``json``: an object whose last field holds the
answer (a provider that enforces the schema can return nothing else), read by its field."""

AnswerKind = Literal["rating", "verdict", "yes_no"]

JSON_FIELDS: dict[AnswerKind, str] = {"rating": "score", "verdict": "verdict", "yes_no": "answer"}
"""The field of a JSON answer that holds the answer; ``reasoning`` comes before it."""

VERDICT_VALUES = ("A", "B", "tie")
YES_NO_VALUES = ("yes", "no")
