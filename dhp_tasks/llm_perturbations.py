"""DHP's LLM-based perturbations (the paper's Table 2): prompts for a perturber model and checks on its replies.

A perturber model rewrites a reference text following numbered adjustment steps (Auto-CoT style).
Its reply is cleaned (preambles such as "Revised summary:" removed) and validated; a reply that is
empty, unchanged, an echo of the prompt, or far off the original's length is rejected and asked
for again, a bounded number of times. Rejections are counted per perturbation and reason. The asking,
retries, cache and counts are the shared builder's (``solvers/perturber.py``); this module gives its
prompts, its cleaning and its own reasons to refuse.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

from dhp_tasks.perturbations import Degree, Item, Level, Perturbation
from solvers import perturber as builder
from solvers.perturber import Generate, PerturberSettings, Request, unchanged_or_empty

PROMPT_VERSION = "dhp-llm-perturbation/1"
"""Changes whenever a perturber prompt changes, so suites record which prompts made them."""


@dataclass(frozen=True)
class TextNouns:
    """How prompts of one kind of text name the text and what it was written for."""

    text: str
    source: str


NOUNS = {
    "summarization": TextNouns("summary", "an article"),
    "story": TextNouns("story ending", "a short story"),
    "qa": TextNouns("answer", "a question about a paragraph"),
    "translation": TextNouns("translation", "a source text in another language"),
}


@dataclass(frozen=True)
class Change:
    """One LLM perturbation: what to change, the steps to do it, and the allowed length ratio of the result."""

    family: str
    level: Level
    instruction: str
    steps: tuple[str, ...]
    length_ratio: tuple[float, float]


def fictional_entities(count: str) -> Change:
    """The change that invents ``count`` entities the text does not contain (a consistency error)."""
    return Change(
        family="fictional_entities",
        level="word",
        instruction=f"Replace {count} of the key named entities in the {{text}} (names of people or organisations, "
        "places, specific numbers or dates, technical terms) with invented ones that do not exist.",
        steps=(
            f"Find {count} named entities that matter to the meaning of the {{text}}.",
            "Invent a fictional counterpart for each: a made-up name, place, number or term of the same type.",
            "Put each invented entity in place of the original, keeping the grammar correct.",
            "Change nothing else: every other word stays as it was.",
        ),
        length_ratio=(0.7, 1.4),
    )


def grammar_errors(count: str) -> Change:
    """The change that breaks the grammar of ``count`` sentences (a fluency error)."""
    return Change(
        family="grammar_errors",
        level="word",
        instruction=f"Introduce {count} grammatical errors into the {{text}}, such as subject-verb disagreement, "
        "noun-pronoun disagreement, a wrong verb tense, a misused preposition or a sentence fragment.",
        steps=(
            f"Choose {count} places in the {{text}} where a grammatical error can be made.",
            "Make one error at each place, using different kinds of error where you can.",
            "Keep the meaning and every fact of the {text} unchanged; do not fix or reword anything else.",
        ),
        length_ratio=(0.7, 1.4),
    )


def rewrite_and_insert(count: str) -> Change:
    """The change that inserts ``count`` rephrased copies of sentences (repeated content)."""
    return Change(
        family="rewrite_insert",
        level="sentence",
        instruction=f"Pick {count} of the {{text}} and, right after each picked sentence, insert a rephrased "
        "version of it, so that the content is repeated in other words.",
        steps=(
            f"Choose {count} of the {{text}}.",
            "Rewrite each chosen sentence so that it says the same thing in different words.",
            "Insert each rewritten sentence immediately after the sentence it rephrases.",
            "Leave all original sentences in place and unchanged.",
        ),
        length_ratio=(1.05, 3.0),
    )


def _llm_row(change: Change, degree: Degree | None) -> tuple[Perturbation, Change]:
    perturbation_id = change.family if degree is None else f"{change.family}_{degree}"
    return Perturbation(perturbation_id, change.family, change.level, degree, "llm", None), change


def _minor_major(make: Callable[[str], Change], minor: str, major: str) -> list[tuple[Perturbation, Change]]:
    return [_llm_row(make(minor), "minor"), _llm_row(make(major), "major")]


SUMMARIZATION_LLM = [
    *_minor_major(fictional_entities, "exactly one", "three or more"),
    *_minor_major(grammar_errors, "exactly one", "three or more"),
    *_minor_major(rewrite_and_insert, "exactly one sentence", "two or more sentences"),
]
WORD_LEVEL_LLM = [
    *_minor_major(fictional_entities, "exactly one", "three or more"),
    *_minor_major(grammar_errors, "exactly one", "three or more"),
]
STORY_LLM = [
    _llm_row(fictional_entities("exactly one"), None),
    _llm_row(grammar_errors("exactly one"), None),
]

LLM_PERTURBATIONS: dict[str, list[tuple[Perturbation, Change]]] = {
    "summeval": SUMMARIZATION_LLM,
    "sumpubmed": SUMMARIZATION_LLM,
    "storycloze": STORY_LLM,
    "answer_equivalence": WORD_LEVEL_LLM,
    "wmt22_de_en": WORD_LEVEL_LLM,
    "wmt22_zh_en": WORD_LEVEL_LLM,
}
"""LLM-based rows of Table 2 per dataset: minor changes one entity / error / sentence, major several."""


def perturber_prompt(change: Change, kind: str, text: str) -> str:
    """The Auto-CoT style prompt that asks the perturber for one changed text."""
    nouns = NOUNS[kind]
    steps = [step.replace("{text}", nouns.text) for step in change.steps]
    steps.append(f"Return only the changed {nouns.text}: no title, no explanation, no quotation marks.")
    numbered = "\n".join(f"{number}. {step}" for number, step in enumerate(steps, start=1))
    label = nouns.text[0].upper() + nouns.text[1:]
    return (
        f"You will be given a {nouns.text} written for {nouns.source}. Change it in one specific way and "
        f"return the changed {nouns.text}.\n\n"
        f"Change: {change.instruction.replace('{text}', nouns.text)}\n\n"
        f"Steps:\n{numbered}\n\n"
        f"{label}:\n{text}\n\n"
        f"Changed {nouns.text}:"
    )


_PREAMBLE = re.compile(
    r"^\s*(?:(?:here\s+is|here's|below\s+is)\b[^\n:]*:|(?:the\s+)?(?:revised|changed|modified|adjusted|new|perturbed|"
    r"rewritten|updated)\s+(?:summary|story\s+ending|ending|answer|translation|text|version)\s*:)\s*",
    re.IGNORECASE,
)
_FENCE = re.compile(r"^```[\w-]*\n(.*?)\n```$", re.DOTALL)
_ECHO_MARKERS = ("Change:", "Steps:\n1.", "Return only the changed")


def clean_reply(reply: str) -> str:
    """The perturbed text inside a perturber's reply: preamble, code fence and wrapping quotes removed."""
    text = reply.strip()
    while (stripped := _PREAMBLE.sub("", text, count=1).strip()) != text:
        text = stripped
    if fence := _FENCE.match(text):
        text = fence.group(1).strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        text = text[1:-1].strip()
    return text


def _own_refusal(original: str, change: Change, candidate: str) -> str | None:
    """DHP's reasons to refuse a reply beyond the shared ones: an echo of the prompt, a length off the bounds."""
    if any(marker in candidate for marker in _ECHO_MARKERS):
        return "prompt_echo"
    low, high = change.length_ratio
    ratio = len(candidate) / max(len(original), 1)
    if not low <= ratio <= high:
        return "too_short" if ratio < low else "too_long"
    return None


def rejection_reason(original: str, candidate: str, change: Change) -> str | None:
    """Why a cleaned reply is not a valid perturbed text, or ``None`` when it is."""
    return unchanged_or_empty(original, candidate) or _own_refusal(original, change, candidate)


class PerturberReport(builder.PerturberReport):
    """The builder's counts, in the layout of a DHP suite's report."""

    def as_dict(self) -> dict[str, object]:
        """Calls, rejected replies per perturbation and reason, and items given up per perturbation."""
        failed = Counter(perturbation_id for perturbation_id, _ in self.given_up)
        return {"calls": self.calls, "rejected": self.refused_by_change(), "failed_items": dict(sorted(failed.items()))}


def perturber_request(perturbation: Perturbation, change: Change, kind: str, text: str, item: str = "") -> Request:
    """What the builder asks the perturber for one text and one LLM-based perturbation."""
    return Request(
        perturbation.id, item, perturber_prompt(change, kind, text), text, partial(_own_refusal, text, change)
    )


async def perturb_with_model(
    perturbation: Perturbation,
    change: Change,
    kind: str,
    text: str,
    generate: Generate,
    report: PerturberReport,
    max_attempts: int = 3,
) -> str | None:
    """A validated perturbed text, or ``None`` after ``max_attempts`` rejected replies (counted in ``report``)."""
    request = perturber_request(perturbation, change, kind, text)
    return await builder.perturb_one(request, generate, report, max_attempts, clean=clean_reply)


async def llm_variants(
    dataset: str, kind: str, items: Sequence[Item], rows: Sequence[Perturbation], settings: PerturberSettings
) -> tuple[dict[tuple[str, str], str], PerturberReport]:
    """Each item's text perturbed by each LLM-based row, (perturbation id, item id) -> text, and the report; no
    rows, no model."""
    changes = {row.id: change for row, change in LLM_PERTURBATIONS[dataset]}
    requests = [perturber_request(row, changes[row.id], kind, item.text, item.id) for item in items for row in rows]
    report = PerturberReport()
    return await builder.perturb_all(requests, settings, report, clean=clean_reply), report
