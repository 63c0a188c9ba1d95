"""The answer as tokens (numbers, words, single marks) with their line, sentence and quoting, and the ``[[...]]``
brackets with the answer each states; the marks and words that more than one kind of answer reads."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

_TOKEN = re.compile(r"[0-9]+(?:\.[0-9]+)?|[^\W\d_]+|\S")
"""A number, a run of letters, or any other single non-space character."""

_SENTENCE_ENDS = frozenset(".!?")
_QUOTES = frozenset('"“”')
KEY_QUOTES = frozenset("\"'")
"""The quotes around a key or value of a JSON object, or of a Python dict a judge writes instead."""
DASHES = frozenset("-–—−")
CLOSING_MARKS = frozenset(".,;!?)]}*\"'’”(") | DASHES
"""Marks that may follow an answer and end its statement: ``Score: 4.``, ``(4)``, ``"score": 4}`` (a JSON object),
``Response 2.``."""
LEADING_MARKS = frozenset("*#>_`•") | DASHES
"""Markup and bullets that may open a line before its answer (``**4**``, ``- yes``)."""
COPULAS = frozenset({"is", "was", "seems", "appears", "looks", "s"})
"""``s`` is what is left of ``'s`` after tokenising (``it's``)."""


class Token(NamedTuple):
    """One token of an answer: its text, where it stands (characters, line, sentence) and what kind it is."""

    text: str
    lower: str
    is_number: bool
    is_word: bool
    start: int
    end: int
    line: int
    sentence: int
    quoted: bool = False


def attached(left: Token, right: Token) -> bool:
    """Whether ``right`` follows ``left`` with no space between (``4/5``, ``[[A]]``)."""
    return left.end == right.start


def tokenise(answer: str) -> list[Token]:
    """Tokens with their line and sentence; a sentence ends at ``.``, ``!``, ``?`` or a line break.

    A ``.`` right after a number that opens its line is a list marker (``1.``), not a sentence end.
    """
    tokens: list[Token] = []
    sentence = 0
    offset = 0
    for line, text in enumerate(answer.split("\n")):
        line_start = len(tokens)
        for match in _TOKEN.finditer(text):
            word = match.group()
            start = offset + match.start()
            token = Token(
                word, word.lower(), word[0] in "0123456789", word[0].isalpha(), start, start + len(word), line, sentence
            )
            tokens.append(token)
            if word in _SENTENCE_ENDS:
                marker = (
                    len(tokens) == line_start + 2
                    and tokens[line_start].is_number
                    and attached(tokens[line_start], token)
                )
                if not marker:
                    sentence += 1
        offset += len(text) + 1
        sentence += 1
    return _mark_quotes(tokens)


def _mark_quotes(tokens: list[Token]) -> list[Token]:
    """Flag tokens inside a quoted passage: a pair of double quotes on one line around 3+ words or numbers
    (``"[7]"`` quotes no passage)."""
    quoted: set[int] = set()
    opening: int | None = None
    for index, token in enumerate(tokens):
        if opening is not None and token.line != tokens[opening].line:
            opening = None
        if token.text not in _QUOTES:
            continue
        if opening is None:
            opening = index
            continue
        if sum(tokens[inside].is_word or tokens[inside].is_number for inside in range(opening + 1, index)) >= 3:
            quoted.update(range(opening + 1, index))
        opening = None
    return [token._replace(quoted=True) if index in quoted else token for index, token in enumerate(tokens)]


CHECK_LABELS = frozenset({"yes", "no"})
NEGATIONS = frozenset({"not", "never", "t"})
"""``t`` is what is left of ``n't`` after tokenising."""
_BRACKET_TOKENS = 6
"""The most tokens a ``[[...]]`` answer holds (``[[A>>B]]`` holds four)."""
_COMPARISON = re.compile(r"([ab])(>>|>|=|<<|<)([ab])")
"""Arena-Hard's verdicts: ``[[A>>B]]``, ``[[A>B]]``, ``[[A=B]]``, ``[[B>A]]``, ``[[B>>A]]``."""

Value = float | str
"""An answer's value: a number, ``A``, ``B``, ``tie``, ``yes``, ``no``, :data:`NOT_OFFERED` or :data:`PLACEHOLDER`."""

PLACEHOLDER = "placeholder"
"""What a ``[[n]]``, ``[[rating]]`` or ``[[verdict]]`` of the instructions stands for: no answer."""

NOT_OFFERED = "not offered"
"""A verdict outside ``A``, ``B`` and a tie: ``D`` (FBI's authors offer ``[[D]]``, "both answers are unacceptable";
the prompts of this project do not). It is an answer, so it ends the reading, but one that cannot be counted as any
of the offered verdicts: the answer is unparsable rather than misread from its reasoning."""


class Bracket(NamedTuple):
    """A ``[[...]]`` from its first ``[`` (``start``) to after its last ``]`` (``end``), and what it says."""

    start: int
    end: int
    text: str
    value: Value | None


def _bracket_value(text: str) -> Value | None:
    """The answer a bracket states: a number, a verdict (comparisons included), yes/no, else a placeholder."""
    lower = text.lower()
    if _NUMBER.fullmatch(text):
        return float(text)
    if lower in ("a", "b"):
        return lower.upper()
    if lower in ("c", "tie"):
        return "tie"
    if lower == "d":
        return NOT_OFFERED
    if lower in CHECK_LABELS:
        return lower
    comparison = _COMPARISON.fullmatch(lower)
    if comparison:
        left, sign, right = comparison.groups()
        if left == right:
            return None
        if sign == "=":
            return "tie"
        return left.upper() if sign.startswith(">") else right.upper()
    if text.isalpha():
        return PLACEHOLDER
    return None


_NUMBER = re.compile(r"[0-9]+(?:\.[0-9]+)?")


def bracket_spans(tokens: Sequence[Token]) -> dict[int, Bracket]:
    """Every ``[[...]]`` on one line, by the index of its first ``[`` (each start looks at most a few tokens on)."""
    found: dict[int, Bracket] = {}
    for index in range(len(tokens) - 4):
        first, second = tokens[index], tokens[index + 1]
        if first.text != "[" or second.text != "[" or not attached(first, second):
            continue
        for close in range(index + 3, min(index + 3 + _BRACKET_TOKENS, len(tokens) - 1)):
            left, right = tokens[close], tokens[close + 1]
            if left.line != first.line or left.text == "[":
                break
            if left.text == "]" and right.text == "]" and attached(left, right):
                text = "".join(token.text for token in tokens[index + 2 : close])
                found[index] = Bracket(index, close + 2, text, _bracket_value(text))
                break
    return found
