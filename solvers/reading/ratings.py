"""A rating on a scale read out of a judge's answer (:func:`parse_rating`).

The rules, in order:

1. ``[[4]]``, the form the FBI and MT-Bench prompts ask for, quoted or not (``"Rating: [[8]]"``).
2. The judge's score statement: ``Score: 4``, ``**Coherence score:** 4``, ``Coherence: 4`` opening a
   line, ``the score is 4``, ``my rating is 4``, ``I give it a 4``, ``I would assign a score of 5 to this
   answer``, ``I would rate the assistant's answer as a [9]``, ``this one gets a 3``, ``it's a 4``,
   ``Rating: 4/5``, and a JSON object's ``"score": 4}`` (a malformed one's too). The score word reaches its
   number over at most 4 words besides articles, and the number must close the statement (``gets 2 facts
   wrong``, ``a score of 5 would require ...`` are not scores).
3. A fraction on the scale: ``4/5``, ``4 out of 5``.
4. A bare number: a line that is only a number (``4``, ``4.``, ``**4**``), or the number that opens
   the answer (``4 - the summary ...``) or closes it (``... topics. 2``).

Never counted: echoes (:mod:`solvers.reading.echoes`), scale ranges (``1-5``, ``from 1 (worst) to 5 (best)``),
numbers inside a token (``PG-13``, ``3rd``, ``2019-03-04``, ``10:30``, ``85%``), numbers with a leading zero
(``04``), quoted passages (three or more words between double quotes), numbered list and rubric markers, and
off-scale values: outside ``low``-``high``, negative, or over a denominator other than ``high`` (``3 out of 10 key
points``; ``Score: 5/10`` on a 1-5 scale). An off-scale value is skipped like any other mention, so it neither wins
its rule nor blocks a later one.
"""

from __future__ import annotations

from collections.abc import Iterator

from solvers.reading.echoes import TokenisedAnswer
from solvers.reading.tokens import CLOSING_MARKS, COPULAS, DASHES, LEADING_MARKS, attached

_NUMBER_OPENERS = frozenset("([{*:\"'“‘=,;>")
"""Marks that may stand right before a number without making it part of a larger token."""
_UNIT_MARKS = frozenset("%+°‰$€£¥")
_SCORE_WORDS = frozenset(
    {
        "score",
        "scores",
        "scored",
        "rating",
        "rate",
        "rated",
        "grade",
        "graded",
        "give",
        "gives",
        "gave",
        "giving",
        "assign",
        "assigns",
        "assigned",
        "award",
        "awards",
        "awarded",
        "get",
        "gets",
        "receives",
        "deserves",
        "earns",
        "merits",
    }
)
"""Words that introduce the judge's own score: ``Score: 4``, ``I give it a 4``, ``it gets a 3``."""
_STATEMENT_REACH = 12
_STATEMENT_WORDS = 4
"""A score word reaches its number over at most 4 words besides articles and the like (and 12 tokens):
``give this summary a 4``, ``rate the AI assistant's response as a "[7]"``."""
_UNCOUNTED_WORDS = frozenset({"a", "an", "the", "this", "that", "its", "their", "s"})
_LABEL_WORDS = 3
_GAP_MARKS = frozenset(":=*()#'’,[\"“”") | DASHES
_STATEMENT_CLOSERS = frozenset(
    {"because", "as", "since", "for", "to", "given", "which", "and", "but", "so", "overall", "here", "due", "on"}
)
"""Words that may follow a score (``4 because ...``, ``4 on a 1-5 scale``, ``5 to this answer``); others may not."""
_TRAILING_MARKS = frozenset("*._`!")
_LIST_MARKS = frozenset(".):")
_EMPHASIS = frozenset("*_")


class _Rating(TokenisedAnswer):
    def __init__(self, answer: str, high: float, prompt: str | None):
        super().__init__(answer, prompt)
        self.high = high
        self.scale_ranges = self._scale_ranges()
        self.list_markers = self._list_markers()

    def _scale_ranges(self) -> set[int]:
        """Numbers that name a range (``1-5``, ``1 to 5``, ``1 (worst) to 5 (best)``, ``between 1 and 5``)."""
        ranges: set[int] = set()
        tokens = self.tokens
        for index, token in enumerate(tokens):
            if not token.is_number:
                continue
            link = self._after_label(index + 1)
            connector = self.at(link)
            if connector is None:
                continue
            between = index > 0 and tokens[index - 1].lower == "between" and connector.lower == "and"
            end = self.at(link + 1)
            if end is None or not end.is_number or end.line != token.line:
                continue
            if connector.text in DASHES or connector.lower == "to" or between:
                ranges.update((index, link + 1))
        return ranges

    def _after_label(self, index: int) -> int:
        """Skip a parenthesised label such as ``(worst)`` starting at ``index``."""
        opening, label, closing = self.at(index), self.at(index + 1), self.at(index + 2)
        if opening and label and closing and opening.text == "(" and label.is_word and closing.text == ")":
            return index + 3
        return index

    def _list_markers(self) -> set[int]:
        """Line-opening ``N.``, ``N)`` or ``N:`` whose neighbour number opens another line (a list or rubric)."""
        candidates: dict[int, int] = {}
        for line in self.lines():
            first = self.tokens[line[0]]
            mark = self.at(line[0] + 1)
            if first.is_number and first.text.isdigit() and len(first.text) < 10 and mark and mark.line == first.line:
                if mark.text in _LIST_MARKS and attached(first, mark):
                    candidates[line[0]] = int(first.text)
        numbers = set(candidates.values())
        return {index for index, number in candidates.items() if number - 1 in numbers or number + 1 in numbers}

    def number(self, index: int) -> float | None:
        """The value of a number that stands on its own, signed; ``None`` inside a larger token or range."""
        token = self.tokens[index]
        if not token.is_number or token.quoted or index in self.scale_ranges or index in self.list_markers:
            return None
        if token.text[0] == "0" and token.text[1:2].isdigit():
            return None  # a leading zero (04, 007) writes a code or a date part, not a rating
        value = float(token.text)
        before = self.at(index - 1)
        if before is not None and attached(before, token):
            ahead = self.at(index - 2)
            if before.text in DASHES:
                if ahead is not None and attached(ahead, before) and ahead.text not in _NUMBER_OPENERS:
                    return None
                value = -value
            elif before.text not in _NUMBER_OPENERS:
                return None
        after, beyond = self.at(index + 1), self.at(index + 2)
        if after is not None and attached(token, after):
            if after.is_word or after.text in _UNIT_MARKS:
                return None
            joins_next = beyond is not None and attached(after, beyond) and (beyond.is_word or beyond.is_number)
            if after.text in DASHES | {":", ",", "."} and joins_next:
                return None
        return value

    def _denominator(self, index: int) -> tuple[float | None, int]:
        """The denominator of ``N/M`` or ``N out of M`` at ``index`` (``None`` if there is none) and the next index."""
        after = self.at(index + 1)
        if after is None:
            return None, index + 1
        if after.text == "/":
            denominator_index = index + 2
        elif after.lower == "out" and (word := self.at(index + 2)) is not None and word.lower == "of":
            denominator_index = index + 3
        else:
            return None, index + 1
        denominator = self.at(denominator_index)
        if denominator is None or not denominator.is_number:
            return None, index + 1
        following = self.at(denominator_index + 1)
        if following is not None and attached(denominator, following) and following.text not in CLOSING_MARKS:
            return None, index + 1
        return float(denominator.text), denominator_index + 1

    def _on_scale(self, index: int) -> tuple[float | None, int]:
        """The number at ``index`` as a score (``None`` off the scale's denominator) and the index after it."""
        value = self.number(index)
        if value is None:
            return None, index + 1
        denominator, after = self._denominator(index)
        if denominator is not None and denominator != self.high:
            return None, after
        return value, after

    def _closes_statement(self, index: int) -> bool:
        token, previous = self.at(index), self.at(index - 1)
        if token is None or previous is None or token.line != previous.line:
            return True
        return token.text in CLOSING_MARKS or token.lower in _STATEMENT_CLOSERS

    def _is_statement(self, index: int) -> bool:
        """Whether the number at ``index`` is introduced as the judge's score (see the module docs)."""
        return self._follows_score_word(index) or self._follows_label(index) or self._follows_is_a(index)

    def _follows_is_a(self, index: int) -> bool:
        """``It is a 4.``, ``I think it's a 3``."""
        article, copula = self.at(index - 1), self.at(index - 2)
        return article is not None and article.lower in ("a", "an") and copula is not None and copula.lower in COPULAS

    def _follows_score_word(self, index: int) -> bool:
        """``Score: 4``, ``score (1-5): 4``, ``I would give this summary a 4``; ``Score:`` may end its line."""
        words = 0
        for position in range(index - 1, max(index - 1 - _STATEMENT_REACH, -1), -1):
            token = self.tokens[position]
            if token.line != self.tokens[position + 1].line and token.text not in (":", "*"):
                return False
            if token.lower in _SCORE_WORDS:
                return not self.negated(position)
            if token.is_word:
                words += token.lower not in _UNCOUNTED_WORDS
                if words > _STATEMENT_WORDS:
                    return False
            elif token.text not in _GAP_MARKS and position not in self.scale_ranges:
                return False
        return False

    def _follows_label(self, index: int) -> bool:
        """``Coherence: 4`` or ``**Answer Quality:** 4``: a short label that opens its line, then a colon."""
        position = self._skip_back(index - 1, _EMPHASIS)
        colon = self.at(position)
        if colon is None or colon.text != ":":
            return False
        position = self._skip_back(position - 1, _EMPHASIS)
        words = 0
        while (word := self.at(position)) is not None and word.is_word and word.line == colon.line:
            words += 1
            position -= 1
        if not 1 <= words <= _LABEL_WORDS:
            return False
        position = self._skip_back(position, LEADING_MARKS)
        if position - 1 in self.list_markers:
            position -= 2
        previous = self.at(position)
        return previous is None or previous.line != colon.line

    def _skip_back(self, index: int, marks: frozenset[str]) -> int:
        while (token := self.at(index)) is not None and token.text in marks:
            index -= 1
        return index

    def bracketed_scores(self) -> Iterator[float | None]:
        for value in self.bracket_values():
            yield value if isinstance(value, float) else None

    def statements(self) -> Iterator[float | None]:
        for index, token in enumerate(self.tokens):
            if token.is_number and self.number(index) is not None and self._is_statement(index):
                value, after = self._on_scale(index)
                if self._closes_statement(after):
                    yield value

    def fractions(self) -> Iterator[float | None]:
        for index, token in enumerate(self.tokens):
            if token.is_number and self._denominator(index)[0] is not None:
                yield self._on_scale(index)[0]

    def bare_numbers(self) -> Iterator[float | None]:
        """Lines that hold only a number, the number opening the answer (``4 - ...``) and the one closing it."""
        lines = self.lines()
        for number, line in enumerate(lines):
            content = self._strip_marks(line)
            if len(content) == 1:
                yield self.number(content[0])
            elif number == 0 and len(content) > 2:
                opening, mark = self.tokens[content[0]], self.tokens[content[1]]
                if mark.text in ".:,)" or mark.text in DASHES | {"("} and not attached(opening, mark):
                    yield self.number(content[0])
        if lines:
            yield self._closing_number(lines[-1])

    def _strip_marks(self, line: list[int]) -> list[int]:
        start, end = 0, len(line)
        while start < end and self._leading_mark(line[start]):
            start += 1
        if start < end and line[start] in self.list_markers:
            start += 2
        while start < end and self.tokens[line[end - 1]].text in _TRAILING_MARKS:
            end -= 1
        return line[start:end]

    def _leading_mark(self, index: int) -> bool:
        token, following = self.tokens[index], self.at(index + 1)
        if token.text in DASHES and following is not None and attached(token, following):
            return False
        return token.text in LEADING_MARKS

    def _closing_number(self, line: list[int]) -> float | None:
        content = self._strip_marks(line)
        if not content:
            return None
        last = content[-1]
        previous = self.at(last - 1)
        if previous is None or previous.line != self.tokens[last].line or previous.text in CLOSING_MARKS | {":"}:
            return self.number(last)
        return None


def parse_rating(answer: str, low: float = 1, high: float = 5, prompt: str | None = None) -> float | None:
    """The judge's rating in ``answer`` on the ``low``-``high`` scale, else ``None`` (rules: module docs).

    ``prompt``, the prompt the judge answered, tells copies of its instructions from the judge's own statements.
    """
    rating = _Rating(answer, high, prompt)
    for rule in (rating.bracketed_scores, rating.statements, rating.fractions, rating.bare_numbers):
        on_scale = [value for value in rule() if value is not None and low <= value <= high]
        if on_scale:
            return on_scale[-1]
    return None
