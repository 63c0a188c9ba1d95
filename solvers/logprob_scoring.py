"""Probability-weighted ratings (G-Eval): the expected score from the judge's next-token distribution.

One request, a few generated tokens with their top log-probabilities; the rating is
``sum(v * P(v)) / sum(P(v))`` over the on-scale values ``v``. What is computed, exactly:

- The generated answer is read along its **generated path**: ``content[i].top_logprobs`` is the
  distribution of token ``i`` given the tokens generated before it, so a branch that leaves the
  generated path can only be followed for one token.
- **Leading whitespace.** Some tokenisers emit a space before the digit (SmolLM2 answers ``" "`` then
  ``"4"``); others merge it (``" 4"``). A token that is only whitespace, when it is the generated
  token, moves the reading one position on, carrying its probability (``P(" ") * P("4" | " ")``);
  whitespace-only alternatives that were not generated cannot be followed, and their probability is
  **unresolved**. Raw token strings as inspect's ``hf/`` provider reports them (``"Ġ4"``, ``"▁4"``,
  ``"Ċ"``) are read with their whitespace markers as whitespace.
- **A number ends at the first token that does not continue it with a digit** (a non-digit token,
  or a token whose digits are followed by other characters: ``"4."``). A digit token that cannot
  begin a longer on-scale number (``"4"`` on 1-5, ``"7"`` on 1-10) is taken as the whole number.
- **Multi-token numbers** (``"10"`` on a 1-10 scale written as ``"1"`` then ``"0"``): when ``"1"`` is the
  generated token, the next position's distribution splits its probability exactly:
  ``P(10) = P("1") * P("0" | "1")``, ``P(1) = P("1") * P(a non-digit token | "1")``, and a further digit
  (``"15"``) is off the scale. When ``"1"`` is a non-generated alternative (the judge said ``"7"``),
  or generation stopped right after ``"1"`` without the next position, its probability is
  **unresolved**: the split between 1 and 10 is not known from one request, so it counts for neither
  value rather than being guessed. A tokeniser with a single ``"10"`` token needs no split.
- Tokens outside the reported top-k are unknown as well; they are not part of the **mass**, the
  probability of on-scale answers that could be resolved. The expectation is renormalised by it.
  When the mass is below ``min_mass`` the judge did not really answer with a number: the rating is a
  parse failure (``score is None``), counted like an unparsable sampled answer.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from inspect_ai._util.error import PrerequisiteError
from inspect_ai.model import ChatMessage, GenerateConfig, Logprob, Logprobs, Model, ModelOutput

DEFAULT_MIN_MASS = 0.1
"""Below this probability on resolved on-scale answers the rating counts as a parse failure."""

TOP_LOGPROBS = 20
"""The most alternatives OpenAI-compatible APIs return per position (vLLM's default server cap too)."""

_WHITESPACE_MARKERS = str.maketrans({"Ġ": " ", "Ċ": "\n", "ĉ": "\t", "č": "\r", "▁": " "})
"""Byte-level BPE and SentencePiece spellings of whitespace in raw token strings (``hf/`` reports those)."""

_LEADING_DIGITS = re.compile(r"\d+")


@dataclass(frozen=True)
class LogprobRating:
    """The probability-weighted rating of one answer and the probability it rests on.

    ``probabilities`` maps each on-scale value to its (not renormalised) probability; ``mass`` is
    their sum; ``unresolved_mass`` is probability on answer prefixes that one request cannot resolve
    (see the module docstring). ``score`` is ``None`` when ``mass < min_mass``: a parse failure.
    """

    score: float | None
    mass: float
    unresolved_mass: float
    probabilities: dict[int, float] = field(default_factory=dict)

    @property
    def failed(self) -> bool:
        return self.score is None


def max_tokens_for(high: int) -> int:
    """Generated tokens needed to read a rating up to ``high``: a leading space, then one per digit.

    The position after the first digit is what splits ``"1"`` into 1 and 10 on a 1-10 scale, so a
    scale whose top value has ``d`` digits needs ``d + 1`` positions (``d`` when no space is emitted).
    """
    return len(str(high)) + 1


def _text(token: str) -> str:
    return token.translate(_WHITESPACE_MARKERS)


def _alternatives(position: Logprob) -> list[tuple[str, float, bool]]:
    """(token text, probability, is the generated token) for the top-k at one position.

    The generated token is added from its own log-probability when sampling picked one outside the top-k.
    """
    generated = _text(position.token)
    alternatives = []
    seen_generated = False
    for top in position.top_logprobs or []:
        text = _text(top.token)
        is_generated = not seen_generated and text == generated
        seen_generated = seen_generated or is_generated
        alternatives.append((text, math.exp(top.logprob), is_generated))
    if not seen_generated:
        alternatives.append((generated, math.exp(position.logprob), True))
    return alternatives


def rating_probabilities(content: list[Logprob], low: int, high: int) -> tuple[dict[int, float], float]:
    """Probability of each on-scale value read from the generated positions, and the unresolved probability."""
    values = range(low, high + 1)
    spellings = [str(value) for value in values]
    probabilities = dict.fromkeys(values, 0.0)
    unresolved = 0.0

    def can_grow(digits: str) -> bool:
        return any(len(spelling) > len(digits) and spelling.startswith(digits) for spelling in spellings)

    def complete(digits: str, probability: float) -> None:
        number = int(digits)
        if low <= number <= high:
            probabilities[number] += probability

    def read(index: int, path_probability: float, digits: str) -> None:
        nonlocal unresolved
        if index == len(content):
            # Generation ended where the reading still needed a position: the next token is unknown.
            unresolved += path_probability
            return
        for text, probability, is_generated in _alternatives(content[index]):
            branch = path_probability * probability
            start = text if digits else text.lstrip()
            if not digits and not start:
                if is_generated:
                    read(index + 1, branch, "")
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
                read(index + 1, branch, number)
            else:
                unresolved += branch

    read(0, 1.0, "")
    return probabilities, unresolved


def expected_rating(
    logprobs: Logprobs | None, low: int, high: int, min_mass: float = DEFAULT_MIN_MASS
) -> LogprobRating:
    """The expected on-scale rating of one generated answer, renormalised over the resolved mass."""
    content = logprobs.content if logprobs is not None else []
    probabilities, unresolved = rating_probabilities(content, low, high)
    mass = sum(probabilities.values())
    score = sum(value * p for value, p in probabilities.items()) / mass if mass >= min_mass and mass > 0 else None
    return LogprobRating(score=score, mass=mass, unresolved_mass=unresolved, probabilities=probabilities)


async def rate_by_logprobs(
    model: Model,
    prompt: str | list[ChatMessage],
    low: int,
    high: int,
    min_mass: float = DEFAULT_MIN_MASS,
    config: GenerateConfig | None = None,
) -> tuple[LogprobRating, ModelOutput]:
    """Ask the judge once for a short answer with top log-probabilities; return its expected rating and the output.

    ``config`` (the task's temperature, for instance) is merged under the settings this needs.
    Raises ``PrerequisiteError`` when the provider returns no log-probabilities.
    """
    needed = GenerateConfig(max_tokens=max_tokens_for(high), logprobs=True, top_logprobs=TOP_LOGPROBS)
    output = await model.generate(prompt, config=(config or GenerateConfig()).merge(needed))
    logprobs = output.choices[0].logprobs if output.choices else None
    no_top_logprobs = logprobs is not None and logprobs.content and not any(p.top_logprobs for p in logprobs.content)
    if output.choices and (logprobs is None or no_top_logprobs):
        raise PrerequisiteError(
            f"scoring=logprobs needs top log-probabilities, but {model} returned none. Use a provider that "
            "returns them (vllm/, openai/, hf/, llama-cpp-python/, or an OpenAI-compatible server that "
            "supports top_logprobs), or scoring=sample."
        )
    return expected_rating(logprobs, low, high, min_mass), output
