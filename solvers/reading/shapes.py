"""Reading ratings, pairwise verdicts and yes/no checks out of a judge's answer.

Judges reason before and after their answer, quote the judged text (numbers, dates, "rated PG-13",
"3 of 4 steps") and sometimes echo the prompt's instructions, so neither the last number nor the last
keyword is a safe rule. The answer is cut into tokens (numbers, words, single marks) in one linear
pass, and rules that look only a few tokens around each token read it, so every answer is parsed in
linear time. The rules are tried in order; the first that finds an answer decides. Within a rule the
last statement wins: prompts ask the judge to end with its answer, and a judge that revises itself
("I first thought 3 ... Score: 4") states its final answer last. The rules were designed on the answers
real judges wrote (``tests/data/judge_answers/``), not on a hand-made table.

**Echoes.** The parsers take the prompt the judge answered. A passage of the answer that stands word for
word in one place of the prompt (4 tokens or more) is an echo of the instructions when it holds two
different answer values (``[[A]] if answer A is better, [[B]] if ...``, ``from 1 to 10``, ``Output (a) or
Output (b)``) or a placeholder (``[[n]]``, ``[[rating]]``): instructions list options, an answer states
one. A copied passage with one value is the judge's answer in the prompt's words (``Final verdict: [[C]]
for a tie``, ``Rating: [[8]]``) and is read. Without the prompt, and for instructions the judge rephrased,
a sentence holding a placeholder, or several different bracketed answers one of which is followed by
``if``, is an echo.

Ratings (``parse_rating``):

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

Never counted: echoes (above), scale ranges (``1-5``, ``from 1 (worst) to 5 (best)``), numbers inside a
token (``PG-13``, ``3rd``, ``2019-03-04``, ``10:30``, ``85%``), numbers with a leading zero (``04``), quoted
passages (three or more words
between double quotes), numbered list and rubric markers, and off-scale values: outside ``low``-``high``,
negative, or over a denominator other than ``high`` (``3 out of 10 key points``; ``Score: 5/10`` on a 1-5
scale). An off-scale value is skipped like any other mention, so it neither wins its rule nor blocks a
later one.

Verdicts (``parse_verdict``), an answer named ``A``/``B``, ``(a)``/``(b)`` (``Output (a)``) or ``1``/``2``
after ``answer``, ``response``, ``output`` ... (``Response 2``), the first shown being A:

1. ``[[A]]``, ``[[B]]``, ``[[C]]`` (C is a tie), and Arena-Hard's ``[[A>>B]]``, ``[[A>B]]``, ``[[A=B]]``
   (a tie), ``[[B>A]]``, ``[[B>>A]]``;
2. a verdict statement (``Verdict: B``, ``My verdict: a clear win for B``, ``The better answer is B``,
   ``The final decision is Response 1``), and a JSON object's ``"verdict": "B"`` or ``"C"`` (a tie);
3. an answer that is only a verdict (``B``, ``tie``, ``Output (b)``, ``Response 2``);
4. a preference or tie statement (``Output (a) is better``, ``I prefer B``, ``It's a tie``); negated (``It
   is not a tie``), conditional (``if answer A is better``) and ``more`` comparisons (``Output (b) is more
   verbose``: a fault as often as a merit) do not count;
5. a first or last line that names one answer and nothing else but an aside in parentheses (``Output (a)
   (as it follows the instruction)``); a line ending in ``:`` is a heading.

A verdict no prompt of this project offers, ``D`` (``[[D]]``, ``Verdict: D``, ``"verdict": "D"``; FBI's
authors offer it for "both answers are unacceptable"), is an answer too: when it is what the deciding rule
finds last, the answer is unparsable, rather than read as the preference its reasoning may state.

Yes/no (``parse_yes_no``): ``[[YES]]`` / ``[[NO]]``, else a JSON object's ``"answer": "yes"``, else a yes or
no that opens the answer.

Anything else is *unparsable* (``None``): the caller counts it and leaves it out; it is never
replaced by a default. :func:`read_answer` reads an answer of either answer format: a ``json`` answer by
its field, falling back to these rules (and saying so) when it is not a JSON object with that field (an
unescaped quote in the reasoning, a trailing comma, prose around it: the rules above read its field).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

_TOKEN = re.compile(r"[0-9]+(?:\.[0-9]+)?|[^\W\d_]+|\S")
"""A number, a run of letters, or any other single non-space character."""

_SENTENCE_ENDS = frozenset(".!?")
_QUOTES = frozenset('"“”')
_KEY_QUOTES = frozenset("\"'")
"""The quotes around a key or value of a JSON object, or of a Python dict a judge writes instead."""
_DASHES = frozenset("-–—−")


class _Token(NamedTuple):
    text: str
    lower: str
    is_number: bool
    is_word: bool
    start: int
    end: int
    line: int
    sentence: int
    quoted: bool = False


def _attached(left: _Token, right: _Token) -> bool:
    return left.end == right.start


def _tokenise(answer: str) -> list[_Token]:
    """Tokens with their line and sentence; a sentence ends at ``.``, ``!``, ``?`` or a line break.

    A ``.`` right after a number that opens its line is a list marker (``1.``), not a sentence end.
    """
    tokens: list[_Token] = []
    sentence = 0
    offset = 0
    for line, text in enumerate(answer.split("\n")):
        line_start = len(tokens)
        for match in _TOKEN.finditer(text):
            word = match.group()
            start = offset + match.start()
            token = _Token(
                word, word.lower(), word[0] in "0123456789", word[0].isalpha(), start, start + len(word), line, sentence
            )
            tokens.append(token)
            if word in _SENTENCE_ENDS:
                marker = (
                    len(tokens) == line_start + 2
                    and tokens[line_start].is_number
                    and _attached(tokens[line_start], token)
                )
                if not marker:
                    sentence += 1
        offset += len(text) + 1
        sentence += 1
    return _mark_quotes(tokens)


def _mark_quotes(tokens: list[_Token]) -> list[_Token]:
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


_CHECK_LABELS = frozenset({"yes", "no"})
_NEGATIONS = frozenset({"not", "never", "t"})
"""``t`` is what is left of ``n't`` after tokenising."""
_BRACKET_TOKENS = 6
"""The most tokens a ``[[...]]`` answer holds (``[[A>>B]]`` holds four)."""
_COMPARISON = re.compile(r"([ab])(>>|>|=|<<|<)([ab])")
"""Arena-Hard's verdicts: ``[[A>>B]]``, ``[[A>B]]``, ``[[A=B]]``, ``[[B>A]]``, ``[[B>>A]]``."""
_ECHO_SPAN = 4
"""Tokens in a row that must also stand in a row in the prompt for a passage to count as copied from it."""
_ECHO_PLACES = 16

Value = float | str
"""An answer's value: a number, ``A``, ``B``, ``tie``, ``yes``, ``no``, :data:`NOT_OFFERED` or :data:`PLACEHOLDER`."""

PLACEHOLDER = "placeholder"
"""What a ``[[n]]``, ``[[rating]]`` or ``[[verdict]]`` of the instructions stands for: no answer."""

NOT_OFFERED = "not offered"
"""A verdict outside ``A``, ``B`` and a tie: ``D`` (FBI's authors offer ``[[D]]``, "both answers are unacceptable";
the prompts of this project do not). It is an answer, so it ends the reading, but one that cannot be counted as any
of the offered verdicts: the answer is unparsable rather than misread from its reasoning."""


class _Bracket(NamedTuple):
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
    if lower in _CHECK_LABELS:
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


def _brackets(tokens: Sequence[_Token]) -> dict[int, _Bracket]:
    """Every ``[[...]]`` on one line, by the index of its first ``[`` (each start looks at most a few tokens on)."""
    found: dict[int, _Bracket] = {}
    for index in range(len(tokens) - 4):
        first, second = tokens[index], tokens[index + 1]
        if first.text != "[" or second.text != "[" or not _attached(first, second):
            continue
        for close in range(index + 3, min(index + 3 + _BRACKET_TOKENS, len(tokens) - 1)):
            left, right = tokens[close], tokens[close + 1]
            if left.line != first.line or left.text == "[":
                break
            if left.text == "]" and right.text == "]" and _attached(left, right):
                text = "".join(token.text for token in tokens[index + 2 : close])
                found[index] = _Bracket(index, close + 2, text, _bracket_value(text))
                break
    return found


def _token_values(tokens: Sequence[_Token], brackets: Mapping[int, _Bracket]) -> dict[int, Value]:
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


def _copied_passages(tokens: Sequence[_Token], prompt: str) -> list[range]:
    """Runs of the answer's tokens that stand, in the same order, in one place of the prompt.

    From each answer token on, the longest run that also stands in a row in the prompt (at least
    :data:`_ECHO_SPAN` tokens) is one passage; the next search starts after it. Two copies from different places of
    the prompt that happen to follow each other in the answer (``Output (b) is better. Output (a) ...``) stay two
    passages. At most :data:`_ECHO_PLACES` places of the prompt are followed per run, so the search stays linear.
    An answer shorter than a span copies nothing, so the prompt (often a whole article) is not tokenised for it.
    """
    if len(tokens) < _ECHO_SPAN:
        return []
    words = [token.lower for token in _tokenise(prompt)]
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


def _whole_brackets(passage: range, enclosing: Mapping[int, _Bracket]) -> range:
    """A copied passage without the part of a ``[[...]]`` it cuts through: ``Rating: [[`` copied from the prompt's
    ``Rating: [[n]]`` leaves the judge's own ``[[7]]`` whole."""
    start, stop = passage.start, passage.stop
    if start in enclosing and enclosing[start].start < start:
        start = enclosing[start].end
    if stop - 1 in enclosing and enclosing[stop - 1].end > stop:
        stop = enclosing[stop - 1].start
    return range(start, max(start, stop))


def _echoes(tokens: Sequence[_Token], prompt: str | None) -> set[int]:
    """Indices of tokens that repeat the prompt's answer instructions instead of answering.

    An answer states one value; instructions list several or name a placeholder. So a passage copied from the
    prompt (:func:`_copied_passages`) that holds two different values, or a placeholder, is an echo; a copied
    passage holding one value (``[[C]] for a tie``, ``Rating: [[8]]``) is the judge's answer in the prompt's
    words. Without the prompt, and for instructions the judge rephrased, a sentence holding a placeholder, or
    several different bracketed answers one of which is followed by ``if``, is an echo.
    """
    brackets = _brackets(tokens)
    values = _token_values(tokens, brackets)
    enclosing = {index: bracket for bracket in brackets.values() for index in range(bracket.start, bracket.end)}
    echoes: set[int] = set()
    for copied in _copied_passages(tokens, prompt) if prompt else ():
        passage = _whole_brackets(copied, enclosing)
        copied_values = {values[index] for index in passage if index in values}
        if PLACEHOLDER in copied_values or len(copied_values) > 1:
            echoes.update(passage)
    by_sentence: dict[int, list[_Bracket]] = {}
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


class _Answer:
    """A judge's answer as tokens, with its echoes of the prompt's answer instructions left out."""

    def __init__(self, answer: str, prompt: str | None = None):
        tokens = _tokenise(answer)
        echoes = _echoes(tokens, prompt)
        self.tokens = [token for index, token in enumerate(tokens) if index not in echoes]
        self.bracket_at = _brackets(self.tokens)

    def at(self, index: int) -> _Token | None:
        return self.tokens[index] if 0 <= index < len(self.tokens) else None

    def negated(self, index: int) -> bool:
        """Whether ``not``, ``never`` or ``n't`` stands in the two tokens before ``index``."""
        return any((word := self.at(index - back)) is not None and word.lower in _NEGATIONS for back in (1, 2))

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
            if before.text in _KEY_QUOTES and after.text in _KEY_QUOTES and _attached(before, token):
                opening = self.at(index + 3)
                value = self.at(index + 4) if opening is not None and opening.text in _KEY_QUOTES else opening
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


# ---- ratings ----

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
_GAP_MARKS = frozenset(":=*()#'’,[\"“”") | _DASHES
_STATEMENT_CLOSERS = frozenset(
    {"because", "as", "since", "for", "to", "given", "which", "and", "but", "so", "overall", "here", "due", "on"}
)
"""Words that may follow a score (``4 because ...``, ``4 on a 1-5 scale``, ``5 to this answer``); others may not."""
_CLOSING_MARKS = frozenset(".,;!?)]}*\"'’”(") | _DASHES
"""Marks that may follow a score and end its statement: ``Score: 4.``, ``(4)``, ``"score": 4}`` (a JSON object)."""
_LEADING_MARKS = frozenset("*#>_`•") | _DASHES
_TRAILING_MARKS = frozenset("*._`!")
_LIST_MARKS = frozenset(".):")
_EMPHASIS = frozenset("*_")


class _Rating(_Answer):
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
            if connector.text in _DASHES or connector.lower == "to" or between:
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
                if mark.text in _LIST_MARKS and _attached(first, mark):
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
        if before is not None and _attached(before, token):
            ahead = self.at(index - 2)
            if before.text in _DASHES:
                if ahead is not None and _attached(ahead, before) and ahead.text not in _NUMBER_OPENERS:
                    return None
                value = -value
            elif before.text not in _NUMBER_OPENERS:
                return None
        after, beyond = self.at(index + 1), self.at(index + 2)
        if after is not None and _attached(token, after):
            if after.is_word or after.text in _UNIT_MARKS:
                return None
            joins_next = beyond is not None and _attached(after, beyond) and (beyond.is_word or beyond.is_number)
            if after.text in _DASHES | {":", ",", "."} and joins_next:
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
        if following is not None and _attached(denominator, following) and following.text not in _CLOSING_MARKS:
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
        return token.text in _CLOSING_MARKS or token.lower in _STATEMENT_CLOSERS

    def _is_statement(self, index: int) -> bool:
        """Whether the number at ``index`` is introduced as the judge's score (see the module docs)."""
        return self._follows_score_word(index) or self._follows_label(index) or self._follows_is_a(index)

    def _follows_is_a(self, index: int) -> bool:
        """``It is a 4.``, ``I think it's a 3``."""
        article, copula = self.at(index - 1), self.at(index - 2)
        return article is not None and article.lower in ("a", "an") and copula is not None and copula.lower in _COPULAS

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
        position = self._skip_back(position, _LEADING_MARKS)
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
                if mark.text in ".:,)" or mark.text in _DASHES | {"("} and not _attached(opening, mark):
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
        if token.text in _DASHES and following is not None and _attached(token, following):
            return False
        return token.text in _LEADING_MARKS

    def _closing_number(self, line: list[int]) -> float | None:
        content = self._strip_marks(line)
        if not content:
            return None
        last = content[-1]
        previous = self.at(last - 1)
        if previous is None or previous.line != self.tokens[last].line or previous.text in _CLOSING_MARKS | {":"}:
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


# ---- pairwise verdicts ----

Verdict = Literal["A", "B", "tie"]

_VERDICT_WORDS = frozenset({"verdict", "winner", "choice", "decision", "preference"})
_VERDICT_LINKS = frozenset({":", "=", "is", "was", "*"}) | _DASHES
_VERDICT_REACH = 8
"""A verdict statement names its answer within this many tokens of ``verdict:`` / ``verdict is``."""
_RANKED = frozenset({"better", "best", "preferred", "stronger", "winning", "final"})
"""Words that make ``answer`` / ``response`` name the verdict: ``the better answer is B``, ``final answer: A``."""
_SUBJECTS = frozenset({"answer", "response", "assistant", "output", "option", "candidate"})
_COPULAS = frozenset({"is", "was", "seems", "appears", "looks", "s"})
_MODIFIERS = frozenset(
    {"clearly", "slightly", "much", "far", "significantly", "somewhat", "overall", "definitely", "the", "a", "bit"}
)
_BETTER = frozenset({"better", "superior", "preferable", "preferred", "stronger", "best", "winner"})
"""Not ``more`` (``Output (b) is more verbose``): what follows it may be a fault as well as a merit."""
_WORSE = frozenset({"worse", "inferior", "weaker", "less", "worst"})
_CONDITIONS = frozenset({"if", "whether", "unless", "when", "only"})
_TIE_COPULAS = frozenset({"is", "s", "was", "be", "it"})
"""``is a tie``, ``it's a tie``, ``call it a tie``; ``not a tie`` and ``call a tie only when`` do not match."""
_CHOOSING = frozenset({"prefer", "choose", "pick", "favour", "favor"})
_IN_FAVOUR = frozenset({("win", "for"), ("victory", "for"), ("favour", "of"), ("favor", "of")})
_EQUALLY = frozenset({"good", "bad", "strong", "weak", "helpful", "accurate", "well", "correct", "poor"})
_BARE_MARKS = frozenset(".*[]:!`'\"")
_READ_VERDICTS = frozenset({"A", "B", "tie", NOT_OFFERED})
"""What a ``[[...]]`` may say in a pairwise answer: an offered verdict, or one not offered (``[[D]]``)."""
_LETTER_FOLLOWERS = frozenset({"is", "was", "wins", "won", "because", "since", "as", "for", "overall", "clearly"})
"""Words after a capital ``A`` that make it the answer's letter rather than the article."""


def _other(letter: Verdict) -> Verdict:
    return "B" if letter == "A" else "A"


class _Verdict(_Answer):
    def __init__(self, answer: str, prompt: str | None):
        super().__init__(answer, prompt)
        self.named = self._named_answers()

    def _named_answers(self) -> dict[int, tuple[Verdict, int]]:
        """Where the answer names one of the two judged answers: ``{first index: (letter, index after it)}``.

        ``A`` / ``B`` (``A clear win`` opens with an article), ``(a)`` / ``(b)`` (``Output (a)``), and ``1`` /
        ``2`` right after ``answer``, ``response``, ``output`` ... (``Response 2``), the first shown being A.
        """
        named: dict[int, tuple[Verdict, int]] = {}
        for index, token in enumerate(self.tokens):
            if token.quoted:
                continue
            before, after = self.at(index - 1), self.at(index + 1)
            if token.text in ("A", "B") and self._capital_names(index):
                named[index] = (token.text, index + 1)  # type: ignore[assignment]
            elif token.text == "(" and after is not None and after.lower in ("a", "b"):
                close = self.at(index + 2)
                if close is not None and close.text == ")" and _attached(token, after) and _attached(after, close):
                    named[index] = (after.lower.upper(), index + 3)  # type: ignore[assignment]
            elif token.text in ("1", "2") and before is not None and before.lower in _SUBJECTS:
                joined = after is not None and _attached(token, after) and after.text not in _CLOSING_MARKS | {":"}
                if before.line == token.line and not joined:
                    named[index] = ("A" if token.text == "1" else "B", index + 1)
        return named

    def _capital_names(self, index: int) -> bool:
        """Whether a capital ``A`` or ``B`` names an answer rather than opening a phrase (``A clear win``)."""
        token = self.tokens[index]
        after, before = self.at(index + 1), self.at(index - 1)
        named = before is not None and before.lower in _SUBJECTS
        if token.text == "A" and not named and after is not None and after.line == token.line and after.is_word:
            return after.lower in _LETTER_FOLLOWERS
        return True

    def _tie_at(self, index: int) -> bool:
        """``tie`` after ``is a``, ``it's a``, ``call it a``: negated (``not a tie``) forms are left out."""
        token = self.tokens[index]
        if token.lower == "tied":
            return not self.negated(index)
        article, copula = self.at(index - 1), self.at(index - 2)
        return (
            token.lower == "tie"
            and article is not None
            and article.lower == "a"
            and copula is not None
            and copula.lower in _TIE_COPULAS
        )

    def brackets(self) -> Iterator[str | None]:
        for value in self.bracket_values():
            yield value if value in _READ_VERDICTS else None  # type: ignore[misc]

    def statements(self) -> Iterator[str | None]:
        """``verdict: B``, ``the verdict is a tie``, ``my verdict: a clear win for B``, ``the better answer is B``,
        and a JSON object's ``"verdict": "B"``."""
        for index, token in enumerate(self.tokens):
            link, previous = self.at(index + 1), self.at(index - 1)
            if link is not None and link.text in _KEY_QUOTES and _attached(token, link):
                index, link = index + 1, self.at(index + 2)  # the key of a JSON object: "verdict": ...
            named = token.lower in _SUBJECTS and previous is not None and previous.lower in _RANKED
            if not (token.lower in _VERDICT_WORDS or named) or link is None or link.lower not in _VERDICT_LINKS:
                continue
            for position in range(index + 2, index + 2 + _VERDICT_REACH):
                candidate = self.at(position)
                if candidate is None or candidate.sentence != token.sentence:
                    break
                letter = self._quoted_letter(position)
                if candidate.lower in ("tie", "draw", "neither") or candidate.text == "C" or letter == "c":
                    yield "tie"
                    break
                if candidate.text == "D" or letter == "d":
                    yield NOT_OFFERED
                    break
                if letter in ("a", "b"):
                    yield letter.upper()
                    break
                if position in self.named:
                    yield self.named[position][0]
                    break

    def _quoted_letter(self, index: int) -> str | None:
        """A lower-case letter standing alone between quotes (a JSON value, ``"b"``), else ``None``."""
        token, before, after = self.tokens[index], self.at(index - 1), self.at(index + 1)
        if len(token.text) != 1 or not token.is_word or before is None or after is None:
            return None
        quoted = before.text in _KEY_QUOTES and after.text in _KEY_QUOTES
        return token.lower if quoted and _attached(before, token) and _attached(token, after) else None

    def bare(self) -> Iterator[str | None]:
        """An answer that is only a verdict: ``B``, ``tie``, ``(A)``, ``Output (a)``, ``Response 2``."""
        content = [index for index, token in enumerate(self.tokens) if token.text not in _BARE_MARKS]
        if len(content) == 1:
            token = self.tokens[content[0]]
            if token.text in ("A", "B", "C") or token.lower == "tie":
                yield _verdict(token.text)
                return
            if token.text == "D":
                yield NOT_OFFERED
                return
        if content and self.tokens[content[0]].lower in _SUBJECTS:
            content = content[1:]
        if content and content[0] in self.named:
            letter, end = self.named[content[0]]
            if all(index < end for index in content):
                yield letter

    def verdict_lines(self) -> Iterator[str | None]:
        """A first or last line that names one answer and nothing else but an aside in parentheses:
        ``Output (a) (as it follows the instruction)``. A line ending in ``:`` is a heading, not a verdict."""
        lines = self.lines()
        for line in [lines[0], lines[-1]] if len(lines) > 1 else lines:
            content = [index for index in line if self.tokens[index].text not in _BARE_MARKS - {":"}]
            if not content or self.tokens[content[-1]].text == ":":
                continue
            if self.tokens[content[0]].lower in _SUBJECTS:
                content = content[1:]
            if not content or content[0] not in self.named:
                continue
            letter, end = self.named[content[0]]
            rest = [index for index in content if index >= end]
            aside = bool(rest) and self.tokens[rest[0]].text == "(" and self.tokens[rest[-1]].text == ")"
            if not rest or aside:
                yield letter

    def preferences(self) -> Iterator[str | None]:
        """``Response A is clearly better``, ``B is worse``, ``I prefer B``, ``It's a tie``, ``equally good``."""
        for index, token in enumerate(self.tokens):
            if self._tie_at(index):
                yield "tie"
            elif token.lower == "equally" and (word := self.at(index + 1)) and word.lower in _EQUALLY:
                if not self.negated(index):
                    yield "tie"
            elif token.lower == "neither" and self._compares(index + 1, index) is not None:
                yield "tie"
            elif index in self.named:
                letter, end = self.named[index]
                comparison = self._compares(end, index)
                if comparison is not None:
                    yield letter if comparison else _other(letter)
                elif self._chosen(index):
                    yield letter

    def _chosen(self, index: int) -> bool:
        """``I prefer (answer) B``, ``a clear win for B``, ``in favour of response A``."""
        position = index - 1
        subject = self.at(position)
        if subject is not None and subject.lower in _SUBJECTS:
            position -= 1
        verb, preposition = self.at(position - 1), self.at(position)
        if preposition is None or self.negated(position):
            return False
        if preposition.lower in _CHOOSING:
            return True
        return verb is not None and (verb.lower, preposition.lower) in _IN_FAVOUR

    def _compares(self, index: int, subject: int) -> bool | None:
        """After a subject: ``True`` for ``is (clearly) better``, ``False`` for ``is worse``, else ``None``."""
        position = index
        word = self.at(position)
        if word is not None and word.lower in _SUBJECTS:
            position += 1
        opener = self.at(subject - 1)
        if opener is not None and opener.lower in _SUBJECTS:
            opener = self.at(subject - 2)
        if opener is not None and opener.lower in _CONDITIONS:
            return None
        word = self.at(position)
        if word is not None and word.text == "'":
            position += 1
        word = self.at(position)
        if word is None or word.lower not in _COPULAS | {"wins"}:
            return None
        if word.lower == "wins":
            return True
        for ahead in range(position + 1, position + 4):
            word = self.at(ahead)
            if word is None or word.lower in _NEGATIONS:
                return None
            if word.lower in _BETTER:
                return True
            if word.lower in _WORSE:
                return False
            if word.lower not in _MODIFIERS:
                return None
        return None


def parse_verdict(answer: str, prompt: str | None = None) -> Verdict | None:
    """A pairwise verdict: ``A``, ``B`` or ``tie`` (``C`` means a tie), else ``None``; a verdict that is not one
    of these (``[[D]]``, :data:`NOT_OFFERED`) is ``None`` too, never a verdict read from the reasoning instead.

    ``prompt``, the prompt the judge answered, tells copies of its instructions from the judge's own verdict.
    """
    verdict = _Verdict(answer, prompt)
    for rule in (verdict.brackets, verdict.statements, verdict.bare, verdict.preferences, verdict.verdict_lines):
        found = [value for value in rule() if value is not None]
        if found:
            return None if found[-1] == NOT_OFFERED else found[-1]  # type: ignore[return-value]
    return None


def _verdict(token: str) -> Verdict:
    token = token.upper()
    return "tie" if token in ("C", "TIE") else token  # type: ignore[return-value]


# ---- yes/no checks ----


def parse_yes_no(answer: str, prompt: str | None = None) -> bool | None:
    """``[[YES]]`` / ``[[NO]]`` (the last one), or a yes or no that opens the answer, as a boolean, else ``None``.

    ``prompt``, the prompt the judge answered, tells copies of its instructions from the judge's own answer.
    """
    check = _Answer(answer, prompt)
    bracketed = [value for value in check.bracket_values() if value in _CHECK_LABELS]
    if bracketed:
        return bracketed[-1] == "yes"
    fields = list(check.json_fields(JSON_FIELDS["yes_no"], _CHECK_LABELS))
    if fields:
        return fields[-1] == "yes"
    opening = next((token for token in check.tokens if token.text not in _LEADING_MARKS), None)
    if opening is not None and opening.lower in _CHECK_LABELS:
        return opening.lower == "yes"
    return None


# ---- one reader for every kind of answer, in either answer format ----

AnswerFormat = Literal["text", "json"]
ANSWER_FORMATS: tuple[AnswerFormat, ...] = ("text", "json")
"""``text``: the papers' free-text answers, read by the rules above; ``json``: an object whose last field holds the
answer (a provider that enforces the schema can return nothing else), read by its field."""

AnswerKind = Literal["rating", "verdict", "yes_no"]

JSON_FIELDS: dict[AnswerKind, str] = {"rating": "score", "verdict": "verdict", "yes_no": "answer"}
"""The field of a JSON answer that holds the answer; ``reasoning`` comes before it."""

VERDICT_VALUES = ("A", "B", "tie")
YES_NO_VALUES = ("yes", "no")

_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.DOTALL)
_JSON_BRACKETS = re.compile(r"(?:\[\[\s*)?(\w+)(?:\s*\]\])?")
_JSON_VERDICTS = {"a": "A", "b": "B", "tie": "tie", "c": "tie"}
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
            said = _JSON_BRACKETS.fullmatch(value.strip().lower())
            word = said.group(1) if said else ""
            if self.kind == "verdict" and word in _JSON_VERDICTS:
                return _JSON_VERDICTS[word]
            if self.kind == "yes_no" and word in _CHECK_LABELS:
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
