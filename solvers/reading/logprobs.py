"""Probability-weighted ratings (G-Eval): the expected score from the judge's next-token distribution.

One request, a few generated tokens with their top log-probabilities; the rating is
``sum(v * P(v)) / sum(P(v))`` over the on-scale values ``v``. What is computed, exactly:

- The generated answer is read along its **generated path**: ``content[i].top_logprobs`` is the
  distribution of token ``i`` given the tokens generated before it, so a branch that leaves the
  generated path can only be followed for one token.
- **Leading whitespace and markup.** Some tokenisers emit a space before the digit (SmolLM2 answers ``" "``
  then ``"4"``); others merge it (``" 4"``); judges also open with markup (``**4**``). A token that is only
  whitespace or markup (``*``, ``#``, ``_``, quotes, an opening bracket), when it is the generated token, moves
  the reading one position on, carrying its probability (``P("**") * P("4" | "**")``), so a rating rests on
  the mass of what the judge actually wrote, not only on the alternatives beside a token it did not write as
  a number; such alternatives that were not generated cannot be followed, and their probability is
  **unresolved**. Raw token strings as inspect's ``hf/`` provider reports them (``"Ġ4"``, ``"▁4"``,
  ``"Ċ"``) are read with their whitespace markers as whitespace.
- **An echo of the prompt's closing label.** A prompt that ends on a label line (``Coherence score:``,
  ``Score:``, ``Answer:``; :func:`closing_label`) is often answered with the label first (``Coherence score: 4``,
  ``Coherence: 4``, ``Score: 4``). Generated tokens that spell the label's words, some of them in order, then a
  colon, are read past like whitespace, with their probability; the request has room for them
  (:func:`label_room`), and the label is stored with the answer so a rescore reads it the same way.
- **A number ends at the first token that does not continue it with a digit** (a non-digit token,
  or a token whose digits are followed by other characters: ``"4."``). A digit token that cannot
  begin a longer on-scale number (``"4"`` on 1-5, ``"7"`` on 1-10) is taken as the whole number.
- **Multi-token numbers** (``"10"`` on a 1-10 scale written as ``"1"`` then ``"0"``): when ``"1"`` is the
  generated token, the next position's distribution splits its probability exactly:
  ``P(10) = P("1") * P("0" | "1")``, ``P(1) = P("1") * P(a non-digit token | "1")``, and a further digit
  (``"15"``) is off the scale. When the judge stopped by itself right after ``"1"`` (the answer is ``1``),
  it is 1. When ``"1"`` is a non-generated alternative (the judge said ``"7"``), or generation was cut
  off by the token limit right after ``"1"``, its probability is **undecided**: the split between 1 and
  10 is not known from one request. Renormalising it away would give P(10) = 0 to a judge that wrote
  ``"9"`` with P("1") = 0.45, where it may be up to 0.45 (FBI's ``reference`` failure is P(10)). So
  undecided probability above ``min_mass`` makes the rating a parse failure; up to ``min_mass`` it is left
  out and the rest renormalised (it can move a probability derived from the rating by at most
  ``min_mass``). Resolving it would take a second request that continues the answer after ``"1"``, which
  chat APIs do not offer in general (an assistant turn sent back is closed, not continued). The request asks
  for enough tokens (:func:`max_tokens_for`) that a cut rarely falls there. A tokeniser with a single
  ``"10"`` token (OpenAI's, Llama 3's) writes 10 in one token, so a ``"1"`` beside it is rarely 10;
  tokenisers that write numbers digit by digit (SmolLM2's, Qwen's, Llama 2's) make the case common.
- **Provider errors.** A positive log-probability, or the same token listed twice at one position, is not
  a distribution: the rating is a parse failure and ``error`` says why, rather than a sum of them.
- Tokens outside the reported top-k are unknown as well; they are not part of the **mass**, the
  probability of on-scale answers that could be resolved. The expectation is renormalised by it.
  When the mass is below ``min_mass`` the judge did not really answer with a number: the rating is a
  parse failure (``score is None``), counted like an unparsable sampled answer. Unresolved whitespace and
  markup alternatives are assumed to lead to the same ratings as the generated path (renormalised);
  undecided numbers are not (above).
- **Yes/no questions** (:func:`yes_no_rating`): the first non-whitespace position is read; tokens that
  are ``yes`` or ``no`` in any case and with any surrounding whitespace count, and the score is
  ``P(yes) / (P(yes) + P(no))``, with ``P(yes) + P(no)`` as the mass.

The solver (:func:`logprob_prompts`) stores the generated positions with their top log-probabilities as
plain dicts, so the scorer computes the rating and ``inspect score`` can recompute it (with another
``min_mass``, say) without asking the judge again.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from inspect_ai.model import ChatMessage, Logprob, Logprobs

from judge_data.options import OptionError
from judge_data.shared_options import DEFAULT_MIN_MASS

_YES_NO = {"yes": 1, "no": 0}

_WHITESPACE_MARKERS = str.maketrans({"Ġ": " ", "Ċ": "\n", "ĉ": "\t", "č": "\r", "▁": " "})
"""Byte-level BPE and SentencePiece spellings of whitespace in raw token strings (``hf/`` reports those)."""

_LEADING_DIGITS = re.compile(r"[0-9]+")
_MARKUP = re.compile(r"[*#_\"'`\[\]()“”‘’]")
_WORD = re.compile(r"[^\W\d_]+")
_LABEL_WORDS = 3
"""The most words of a closing label (``Overall score``, ``Answer Quality score``) whose echo is read past."""
_SKIPPED = re.compile(r"[\s*#_\"'`\[(“‘]*")
"""Generated tokens the reading moves past: whitespace and the markup judges put before a number."""
_LOGPROB_TOLERANCE = 1e-6
"""A log-probability above this is a provider error (rounding can leave a certain token at a hair above 0)."""


@dataclass(frozen=True)
class LogprobRating:
    """The probability-weighted rating of one answer and the probability it rests on.

    ``probabilities`` maps each on-scale value to its (not renormalised) probability; ``mass`` is
    their sum; ``unresolved_mass`` is probability on answer prefixes that one request cannot resolve
    (see the module docstring). ``score`` is ``None`` when ``mass < min_mass`` or ``undecided_mass > min_mass``:
    a parse failure.
    """

    score: float | None
    mass: float
    unresolved_mass: float
    probabilities: dict[int, float] = field(default_factory=dict)
    undecided_mass: float = 0.0
    """The part of ``unresolved_mass`` on a number that could still become more than one on-scale value (a ``"1"``
    that is 1 or 10); above ``min_mass`` the rating is a parse failure."""
    error: str | None = None
    """Why the log-probabilities could not be read (a provider error), where they could not."""

    @property
    def failed(self) -> bool:
        """Whether the rating is a parse failure (too little mass on the scale, too much of it undecided, or a
        provider error)."""
        return self.score is None


def max_tokens_for(high: int) -> int:
    """Generated tokens needed to read a rating up to ``high``: up to two leading tokens (a space, a newline,
    markup), then one per digit of ``high``.

    The position after the first digit is what splits ``"1"`` into 1 and 10 on a 1-10 scale; with two digits
    counted it is there even after two leading tokens.
    """
    return len(str(high)) + 2


def closing_label(prompt: str | Sequence[ChatMessage]) -> str | None:
    """The label a prompt ends on, which a judge may echo before its answer: ``Coherence score`` for a prompt whose
    last line is ``Coherence score:`` (at most :data:`_LABEL_WORDS` words), else ``None``."""
    text = prompt if isinstance(prompt, str) else next((m.text for m in reversed(prompt) if m.role == "user"), "")
    last = text.rstrip().rsplit("\n", 1)[-1].strip()
    words = last[:-1].split()
    if last.endswith(":") and 1 <= len(words) <= _LABEL_WORDS and all(_WORD.fullmatch(word) for word in words):
        return " ".join(words)
    return None


def label_room(label: str | None) -> int:
    """Tokens to allow for an echo of ``label`` before the answer: three per word (tokenisers split ``Coherence``
    into ``Co``, ``herence``), the colon and markup around it."""
    return 3 * len(label.split()) + 2 if label else 0


def _echo_forms(label: str | None) -> tuple[str, ...]:
    """What an echo of the label may say: its words, or some of them in order, then a colon (``Coherence score:``,
    ``Coherence:``, ``Score:``), lower case."""
    words = label.lower().split() if label else []
    picks = range(1, 2 ** len(words))
    return tuple(" ".join(w for bit, w in enumerate(words) if pick >> bit & 1) + ":" for pick in picks)


def _echo(said: str, text: str, forms: tuple[str, ...]) -> str | None:
    """The label echoed so far once the token ``text`` follows ``said``, or ``None`` when ``text`` does not
    continue an echo of the label (markup and spacing aside)."""
    echoed = " ".join(_MARKUP.sub("", said + text).lower().split())
    if echoed == said.rstrip() or not any(form.startswith(echoed) for form in forms):
        return None
    return echoed + (" " if text[-1:].isspace() else "")


def _text(token: str) -> str:
    return token.translate(_WHITESPACE_MARKERS)


def _unskipped(text: str) -> str:
    """The token's text after its leading whitespace and markup (``_SKIPPED`` matches every string, perhaps empty)."""
    return text[len(_SKIPPED.match(text)[0]) :]  # type: ignore[index]


class LogprobError(ValueError):
    """Log-probabilities that are not a distribution: a provider error."""


def _alternatives(position: Logprob) -> list[tuple[str, float, bool]]:
    """(token text, probability, is the generated token) for the top-k at one position.

    The generated token is added from its own log-probability when sampling picked one outside the top-k.
    Raises :class:`LogprobError` for a positive log-probability or a token listed twice.
    """
    generated = _text(position.token)
    alternatives = []
    seen_generated = False
    listed = [(top.token, top.logprob) for top in position.top_logprobs or []]
    if len(set(listed)) < len(listed):
        raise LogprobError(f"the token {position.token!r}'s position lists a token twice: {listed}")
    for token, logprob in [(position.token, position.logprob), *listed]:
        if logprob > _LOGPROB_TOLERANCE:
            raise LogprobError(f"log-probability {logprob} of {token!r} is above 0")
    for top in position.top_logprobs or []:
        text = _text(top.token)
        is_generated = not seen_generated and text == generated
        seen_generated = seen_generated or is_generated
        alternatives.append((text, math.exp(top.logprob), is_generated))
    if not seen_generated:
        alternatives.append((generated, math.exp(position.logprob), True))
    return alternatives


def rating_probabilities(
    content: list[Logprob], low: int, high: int, stopped: bool = False, label: str | None = None
) -> tuple[dict[int, float], float, float]:
    """Probability of each on-scale value read from the generated positions, the unresolved probability, and the
    part of it on numbers that could still grow into another on-scale value (undecided).

    ``stopped``: the judge ended its answer itself after the last position (not cut off by the token limit), so a
    number that could still grow there is complete (``"1"`` is 1). ``label``: the prompt's closing label
    (:func:`closing_label`), whose echo before the number is read past like whitespace.
    """
    values = range(low, high + 1)
    spellings = [str(value) for value in values]
    probabilities = dict.fromkeys(values, 0.0)
    forms = _echo_forms(label)
    unresolved = undecided = 0.0

    def can_grow(digits: str) -> bool:
        return any(len(spelling) > len(digits) and spelling.startswith(digits) for spelling in spellings)

    def complete(digits: str, probability: float) -> None:
        number = int(digits)
        if low <= number <= high and (digits == "0" or not digits.startswith("0")):
            probabilities[number] += probability

    def read(index: int, path_probability: float, digits: str, said: str) -> None:
        nonlocal unresolved, undecided
        if index == len(content):
            if digits and stopped:
                complete(digits, path_probability)
            else:
                # Generation was cut off where the reading still needed a position: the next token is unknown.
                unresolved += path_probability
                undecided += path_probability if digits else 0.0
            return
        for text, probability, is_generated in _alternatives(content[index]):
            branch = path_probability * probability
            start = text if digits else _unskipped(text)
            echo = None if digits or not start else _echo(said, text, forms)
            if not digits and (not start or echo is not None):
                if is_generated:
                    read(index + 1, branch, "", echo or said)
                else:
                    unresolved += branch
                continue
            match = _LEADING_DIGITS.match(start)
            if match is None:
                if digits:
                    complete(digits, branch)
                continue
            number = digits + match.group()
            if match.end() < len(start) or not can_grow(number):
                complete(number, branch)
            elif is_generated:
                read(index + 1, branch, number, said)
            else:
                unresolved += branch
                undecided += branch

    read(0, 1.0, "", "")
    return probabilities, unresolved, undecided


def expected_rating(
    logprobs: Logprobs | None,
    low: int,
    high: int,
    min_mass: float = DEFAULT_MIN_MASS,
    stopped: bool = False,
    label: str | None = None,
) -> LogprobRating:
    """The expected on-scale rating of one generated answer, renormalised over the resolved mass; ``stopped``: the
    judge ended the answer itself; ``label``: the prompt's closing label (see :func:`rating_probabilities`).

    A parse failure when the resolved mass is below ``min_mass``, or when more than ``min_mass`` is undecided
    between on-scale values (a ``"1"`` the judge did not write, on 1-10): renormalising would drop that part of the
    distribution, P(10) above all, whatever it holds.
    """
    content = logprobs.content if logprobs is not None else []
    try:
        probabilities, unresolved, undecided = rating_probabilities(content, low, high, stopped, label)
    except LogprobError as error:
        return LogprobRating(score=None, mass=0.0, unresolved_mass=0.0, error=str(error))
    mass = sum(probabilities.values())
    readable = mass >= min_mass and mass > 0 and undecided <= min_mass
    score = sum(value * p for value, p in probabilities.items()) / mass if readable else None
    return LogprobRating(
        score=score, mass=mass, unresolved_mass=unresolved, probabilities=probabilities, undecided_mass=undecided
    )


def yes_no_rating(
    logprobs: Logprobs | None, min_mass: float = DEFAULT_MIN_MASS, label: str | None = None
) -> LogprobRating:
    """``P(yes) / (P(yes) + P(no))`` at the first non-whitespace generated position (``probabilities``: 1 yes, 0 no).

    A generated token of whitespace or markup, or of an echo of the prompt's closing ``label`` (``Answer:``), moves
    the reading one position on, carrying its probability; such alternatives that were not generated are
    unresolved, as for numbers.
    """
    content = logprobs.content if logprobs is not None else []
    probabilities = {1: 0.0, 0: 0.0}
    forms = _echo_forms(label)
    unresolved = 0.0
    carried = 1.0
    said = ""
    for position in content:
        moved_on = False
        try:
            alternatives = _alternatives(position)
        except LogprobError as error:
            return LogprobRating(score=None, mass=0.0, unresolved_mass=0.0, error=str(error))
        for text, probability, is_generated in alternatives:
            start = _unskipped(text)
            word = start.strip().lower()
            echo = _echo(said, text, forms) if word else None
            if word in _YES_NO:
                probabilities[_YES_NO[word]] += carried * probability
            elif (not word or echo is not None) and is_generated:
                moved_on = True
                carried_next, said_next = carried * probability, echo or said
            elif not word or echo is not None:
                unresolved += carried * probability
        if not moved_on:
            break
        carried, said = carried_next, said_next
    else:
        unresolved += carried if content else 0.0
    mass = probabilities[1] + probabilities[0]
    score = probabilities[1] / mass if mass >= min_mass and mass > 0 else None
    return LogprobRating(score=score, mass=mass, unresolved_mass=unresolved, probabilities=probabilities)


def whole_number_scale(name: str, low: float, high: float) -> tuple[int, int]:
    """The ``low``-``high`` scale of the question ``name`` as whole numbers, the only ratings logprobs can read."""
    if not (float(low).is_integer() and float(high).is_integer()):
        raise OptionError(
            f"scoring=logprobs reads whole-number ratings; {name} scores on {low:g}-{high:g}. Use scoring=sample."
        )
    return int(low), int(high)


def stored_rating(
    entry: Mapping[str, Any], low: float, high: float, binary: bool = False, min_mass: float = DEFAULT_MIN_MASS
) -> LogprobRating:
    """The rating of one answer stored by :func:`logprob_prompts`: yes/no when ``binary``, else on ``low``-``high``."""
    logprobs = Logprobs.model_validate({"content": entry.get("logprobs") or []})
    label = entry.get("label")
    if binary:
        return yes_no_rating(logprobs, min_mass, label)
    return expected_rating(logprobs, int(low), int(high), min_mass, entry.get("stop_reason") == "stop", label)


def rating_details(rating: LogprobRating) -> dict[str, Any]:
    """A rating as the plain dict kept in score metadata."""
    return {
        "score": rating.score,
        "mass": rating.mass,
        "unresolved_mass": rating.unresolved_mass,
        "undecided_mass": rating.undecided_mass,
        "probabilities": rating.probabilities,
        **({"error": rating.error} if rating.error else {}),
    }
