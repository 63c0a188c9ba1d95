"""A pairwise verdict read out of a judge's answer (:func:`parse_verdict`).

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
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Literal

from solvers.reading.echoes import TokenisedAnswer
from solvers.reading.tokens import CLOSING_MARKS, COPULAS, DASHES, KEY_QUOTES, NEGATIONS, NOT_OFFERED, attached

Verdict = Literal["A", "B", "tie"]

_VERDICT_WORDS = frozenset({"verdict", "winner", "choice", "decision", "preference"})
_VERDICT_LINKS = frozenset({":", "=", "is", "was", "*"}) | DASHES
_VERDICT_REACH = 8
"""A verdict statement names its answer within this many tokens of ``verdict:`` / ``verdict is``."""
_RANKED = frozenset({"better", "best", "preferred", "stronger", "winning", "final"})
"""Words that make ``answer`` / ``response`` name the verdict: ``the better answer is B``, ``final answer: A``."""
_SUBJECTS = frozenset({"answer", "response", "assistant", "output", "option", "candidate"})
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


class _Verdict(TokenisedAnswer):
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
                if close is not None and close.text == ")" and attached(token, after) and attached(after, close):
                    named[index] = (after.lower.upper(), index + 3)  # type: ignore[assignment]
            elif token.text in ("1", "2") and before is not None and before.lower in _SUBJECTS:
                joined = after is not None and attached(token, after) and after.text not in CLOSING_MARKS | {":"}
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
            if link is not None and link.text in KEY_QUOTES and attached(token, link):
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
        quoted = before.text in KEY_QUOTES and after.text in KEY_QUOTES
        return token.lower if quoted and attached(before, token) and attached(token, after) else None

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
        if word is None or word.lower not in COPULAS | {"wins"}:
            return None
        if word.lower == "wins":
            return True
        for ahead in range(position + 1, position + 4):
            word = self.at(ahead)
            if word is None or word.lower in NEGATIONS:
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
