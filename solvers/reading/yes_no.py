"""A yes/no check read out of a judge's answer (:func:`parse_yes_no`): ``[[YES]]`` / ``[[NO]]``, else a JSON
object's ``"answer": "yes"``, else a yes or no that opens the answer."""

from __future__ import annotations

from solvers.reading.echoes import TokenisedAnswer
from solvers.reading.formats import JSON_FIELDS
from solvers.reading.tokens import CHECK_LABELS, LEADING_MARKS


def parse_yes_no(answer: str, prompt: str | None = None) -> bool | None:
    """``[[YES]]`` / ``[[NO]]`` (the last one), or a yes or no that opens the answer, as a boolean, else ``None``.

    ``prompt``, the prompt the judge answered, tells copies of its instructions from the judge's own answer.
    """
    check = TokenisedAnswer(answer, prompt)
    bracketed = [value for value in check.bracket_values() if value in CHECK_LABELS]
    if bracketed:
        return bracketed[-1] == "yes"
    fields = list(check.json_fields(JSON_FIELDS["yes_no"], CHECK_LABELS))
    if fields:
        return fields[-1] == "yes"
    opening = next((token for token in check.tokens if token.text not in LEADING_MARKS), None)
    if opening is not None and opening.lower in CHECK_LABELS:
        return opening.lower == "yes"
    return None
