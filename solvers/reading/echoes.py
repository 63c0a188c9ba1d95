"""Echoes of the prompt's answer instructions, left out of the answer before any rule reads it.

The parsers take the prompt the judge answered. A passage of the answer that stands word for
word in one place of the prompt (4 tokens or more) is an echo of the instructions when it holds two
different answer values (``[[A]] if answer A is better, [[B]] if ...``, ``from 1 to 10``, ``Output (a) or
Output (b)``) or a placeholder (``[[n]]``, ``[[rating]]``): instructions list options, an answer states
one. A copied passage with one value is the judge's answer in the prompt's words (``Final verdict: [[C]]
for a tie``, ``Rating: [[8]]``) and is read. Without the prompt, and for instructions the judge rephrased,
a sentence holding a placeholder, or several different bracketed answers one of which is followed by
``if``, is an echo.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

from solvers.reading.tokens import (
    KEY_QUOTES,
    NEGATIONS,
    PLACEHOLDER,
    Bracket,
    Token,
    Value,
    attached,
    bracket_spans,
    tokenise,
)

_ECHO_SPAN = 4
"""Tokens in a row that must also stand in a row in the prompt for a passage to count as copied from it."""
_ECHO_PLACES = 16


def _token_values(tokens: Sequence[Token], brackets: Mapping[int, Bracket]) -> dict[int, Value]:
    """The answer values that tokens name, for telling an echo of the instructions from an answer: brackets, numbers
    and the letters ``A`` / ``B`` (capital, or ``(a)`` / ``(b)``)."""
    values: dict[int, Value] = {}
    inside: set[int] = set()
    for bracket in brackets.values():
        if bracket.value is not None:
            values[bracket.start] = bracket.value
        inside.update(range(bracket.start, bracket.end))
    for index, token in enumerate(tokens):
        if index in inside:
            continue
        if token.is_number:
            values[index] = float(token.text)
        elif token.text in ("A", "B"):
            values[index] = token.text
        elif token.lower in ("a", "b") and 0 < index < len(tokens) - 1:
            if tokens[index - 1].text == "(" and tokens[index + 1].text == ")":
                values[index] = token.lower.upper()
    return values


def _copied_passages(tokens: Sequence[Token], prompt: str) -> list[range]:
    """Runs of the answer's tokens that stand, in the same order, in one place of the prompt.

    From each answer token on, the longest run that also stands in a row in the prompt (at least
    :data:`_ECHO_SPAN` tokens) is one passage; the next search starts after it. Two copies from different places of
    the prompt that happen to follow each other in the answer (``Output (b) is better. Output (a) ...``) stay two
    passages. At most :data:`_ECHO_PLACES` places of the prompt are followed per run, so the search stays linear.
    An answer shorter than a span copies nothing, so the prompt (often a whole article) is not tokenised for it.
    """
    if len(tokens) < _ECHO_SPAN:
        return []
    words = [token.lower for token in tokenise(prompt)]
    places: dict[tuple[str, ...], list[int]] = {}
    for start in range(len(words) - _ECHO_SPAN + 1):
        places.setdefault(tuple(words[start : start + _ECHO_SPAN]), []).append(start)
    lowered = [token.lower for token in tokens]
    passages: list[range] = []
    start = 0
    while start <= len(tokens) - _ECHO_SPAN:
        alive = places.get(tuple(lowered[start : start + _ECHO_SPAN]), [])[:_ECHO_PLACES]
        if not alive:
            start += 1
            continue
        length = _ECHO_SPAN
        while start + length < len(tokens):
            following = [p for p in alive if p + length < len(words) and words[p + length] == lowered[start + length]]
            if not following:
                break
            alive, length = following, length + 1
        passages.append(range(start, start + length))
        start += length
    return passages


def _whole_brackets(passage: range, enclosing: Mapping[int, Bracket]) -> range:
    """A copied passage without the part of a ``[[...]]`` it cuts through: ``Rating: [[`` copied from the prompt's
    ``Rating: [[n]]`` leaves the judge's own ``[[7]]`` whole."""
    start, stop = passage.start, passage.stop
    if start in enclosing and enclosing[start].start < start:
        start = enclosing[start].end
    if stop - 1 in enclosing and enclosing[stop - 1].end > stop:
        stop = enclosing[stop - 1].start
    return range(start, max(start, stop))


def _echoes(tokens: Sequence[Token], prompt: str | None) -> set[int]:
    """Indices of tokens that repeat the prompt's answer instructions instead of answering.

    An answer states one value; instructions list several or name a placeholder. So a passage copied from the
    prompt (:func:`_copied_passages`) that holds two different values, or a placeholder, is an echo; a copied
    passage holding one value (``[[C]] for a tie``, ``Rating: [[8]]``) is the judge's answer in the prompt's
    words. Without the prompt, and for instructions the judge rephrased, a sentence holding a placeholder, or
    several different bracketed answers one of which is followed by ``if``, is an echo.
    """
    brackets = bracket_spans(tokens)
    values = _token_values(tokens, brackets)
    enclosing = {index: bracket for bracket in brackets.values() for index in range(bracket.start, bracket.end)}
    echoes: set[int] = set()
    for copied in _copied_passages(tokens, prompt) if prompt else ():
        passage = _whole_brackets(copied, enclosing)
        copied_values = {values[index] for index in passage if index in values}
        if PLACEHOLDER in copied_values or len(copied_values) > 1:
            echoes.update(passage)
    by_sentence: dict[int, list[Bracket]] = {}
    for bracket in brackets.values():
        by_sentence.setdefault(tokens[bracket.start].sentence, []).append(bracket)
    echo_sentences = set()
    for sentence, found in by_sentence.items():
        named: set[Value | None] = {bracket.value for bracket in found}
        conditional = any(bracket.end < len(tokens) and tokens[bracket.end].lower == "if" for bracket in found)
        if PLACEHOLDER in named or (len(named) > 1 and conditional):
            echo_sentences.add(sentence)
    echoes.update(index for index, token in enumerate(tokens) if token.sentence in echo_sentences)
    return echoes


class TokenisedAnswer:
    """A judge's answer as tokens, with its echoes of the prompt's answer instructions left out."""

    def __init__(self, answer: str, prompt: str | None = None):
        tokens = tokenise(answer)
        echoes = _echoes(tokens, prompt)
        self.tokens = [token for index, token in enumerate(tokens) if index not in echoes]
        self.bracket_at = bracket_spans(self.tokens)

    def at(self, index: int) -> Token | None:
        """The token at ``index``, ``None`` past either end."""
        return self.tokens[index] if 0 <= index < len(self.tokens) else None

    def negated(self, index: int) -> bool:
        """Whether ``not``, ``never`` or ``n't`` stands in the two tokens before ``index``."""
        return any((word := self.at(index - back)) is not None and word.lower in NEGATIONS for back in (1, 2))

    def bracket_values(self) -> Iterator[Value | None]:
        """What every ``[[...]]`` says, in order (quoted ones too: a bracketed answer is never a quotation)."""
        for bracket in self.bracket_at.values():
            yield bracket.value

    def json_fields(self, key: str, values: frozenset[str]) -> Iterator[str]:
        """The values among ``values`` that a JSON key holds: ``"answer": "yes"`` (a malformed object's too)."""
        for index, token in enumerate(self.tokens):
            before, after, colon = self.at(index - 1), self.at(index + 1), self.at(index + 2)
            if token.lower != key or before is None or after is None or colon is None or colon.text != ":":
                continue
            if before.text in KEY_QUOTES and after.text in KEY_QUOTES and attached(before, token):
                opening = self.at(index + 3)
                value = self.at(index + 4) if opening is not None and opening.text in KEY_QUOTES else opening
                if value is not None and value.lower in values:
                    yield value.lower

    def lines(self) -> list[list[int]]:
        """Token indices line by line (lines without tokens left out)."""
        lines: list[list[int]] = []
        for index, token in enumerate(self.tokens):
            if not lines or self.tokens[lines[-1][0]].line != token.line:
                lines.append([])
            lines[-1].append(index)
        return lines
