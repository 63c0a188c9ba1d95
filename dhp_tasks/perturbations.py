"""DHP's rule-based perturbations (the paper's Table 2) and the table that says which dataset gets which.

Each perturbation is a row: id, level (character / word / sentence), degree (minor / major, or none
where the paper has one variant), method (rule / llm), k, and the function that degrades a text.
Randomness comes from a generator seeded by (seed, item, perturbation), so a variant never depends on
which other items or perturbations are in the run. LLM-based perturbations are added as rows whose
``method`` is ``llm``; they are produced by a perturber model outside this module.
"""

from __future__ import annotations

import functools
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

import typo

from judge_data import names_option

Level = Literal["character", "word", "sentence"]
Degree = Literal["minor", "major"]
Method = Literal["rule", "llm"]


@dataclass(frozen=True)
class Item:
    """A reference text to be judged and degraded, with its context and any dataset-specific extras."""

    id: str
    text: str
    context: str | None = None
    wrong_text: str | None = None


class NotApplicable(Exception):
    """The perturbation cannot change this text (too short, a single sentence, no other items)."""


PerturbFunction = Callable[[Item, random.Random, Sequence[Item]], str]


@dataclass(frozen=True)
class Perturbation:
    """One row of the paper's perturbation table: which change, at which level and degree, and how it is made."""

    id: str
    family: str
    level: Level
    degree: Degree | None
    method: Method
    k: int | None
    apply: PerturbFunction | None = None

    def perturb(self, item: Item, seed: int, pool: Sequence[Item]) -> str:
        """The perturbed text; deterministic for (seed, item, perturbation) and always unlike the original."""
        if self.apply is None:
            raise NotApplicable(f"{self.id} is {self.method}-based and needs a perturber model")
        rng = random.Random(f"{seed}:{item.id}:{self.id}")
        perturbed = self.apply(item, rng, pool)
        if perturbed == item.text:
            raise NotApplicable(f"{self.id} left item {item.id} unchanged")
        return perturbed


_ALPHANUMERIC = re.compile(r"[^\W_]")
_WORD = re.compile(r"\S+")

TYPO_KINDS = (
    "char_swap",
    "missing_char",
    "extra_char",
    "nearby_char",
    "similar_char",
    "skipped_space",
    "random_space",
    "repeated_char",
)
"""The ``typo`` package's error kinds used for random typos (``unichar`` is left out: it can be a no-op)."""


def delete_characters(k: int) -> PerturbFunction:
    """Delete k alphanumeric characters at random positions."""

    def apply(item: Item, rng: random.Random, pool: Sequence[Item]) -> str:
        positions = [match.start() for match in _ALPHANUMERIC.finditer(item.text)]
        if len(positions) <= k:
            raise NotApplicable(f"item {item.id} has {len(positions)} alphanumeric characters, needs more than {k}")
        deleted = set(rng.sample(positions, k))
        return "".join(char for index, char in enumerate(item.text) if index not in deleted)

    return apply


def one_typo(text: str, kind: str, seed: int) -> str:
    """One typo of ``kind`` from the ``typo`` package, leaving the process's ``random`` state as it was.

    ``typo`` reseeds and draws from the ``random`` module's global generator on every call; saving
    and restoring its state keeps the plugin from changing what other code in the process draws.
    """
    state = random.getstate()
    try:
        return getattr(typo.StrErrer(text, seed=seed), kind)().result
    finally:
        random.setstate(state)


def add_typos(k: int) -> PerturbFunction:
    """Add k typos, one at a time, each of a random kind from the ``typo`` package; every one changes the text."""

    def apply(item: Item, rng: random.Random, pool: Sequence[Item]) -> str:
        text = item.text
        for _ in range(k):
            for _attempt in range(20):
                kind = rng.choice(TYPO_KINDS)
                changed = one_typo(text, kind, rng.randrange(2**32))
                if changed != text:
                    text = changed
                    break
            else:
                raise NotApplicable(f"no typo could be added to item {item.id}")
        return text

    return apply


def delete_word_span(k: int) -> PerturbFunction:
    """Delete k consecutive words starting at a random word."""

    def apply(item: Item, rng: random.Random, pool: Sequence[Item]) -> str:
        words = list(_WORD.finditer(item.text))
        if len(words) <= k:
            raise NotApplicable(f"item {item.id} has {len(words)} words, needs more than {k}")
        first = rng.randrange(len(words) - k + 1)
        start = words[first].start()
        end = words[first + k].start() if first + k < len(words) else len(item.text)
        return (item.text[:start] + item.text[end:]).rstrip()

    return apply


@functools.cache
def _sentence_tokenizer():
    """Punkt with its untrained rules (no NLTK data download), imported on first use: importing nltk takes
    most of a second, which every ``inspect eval`` start-up would pay for tasks that never split sentences."""
    from nltk.tokenize.punkt import PunktSentenceTokenizer

    return PunktSentenceTokenizer()


def split_sentences(text: str) -> list[str]:
    """Sentences by Punkt's untrained rules: no NLTK data download is needed."""
    return _sentence_tokenizer().tokenize(text)


def shuffle_sentences(k: int | None) -> PerturbFunction:
    """Move k randomly chosen sentences (all when k is None) into a new order that differs from the old.

    Only the sentences move: the text between them (a space, a line break, a blank line) stays in its
    place, so a reordered text keeps its layout.
    """

    def apply(item: Item, rng: random.Random, pool: Sequence[Item]) -> str:
        spans = list(_sentence_tokenizer().span_tokenize(item.text))
        sentences = [item.text[start:end] for start, end in spans]
        count = len(sentences) if k is None else k
        if len(sentences) < 2 or len(sentences) < count or len(set(sentences)) < 2:
            raise NotApplicable(f"item {item.id} has {len(sentences)} sentence(s), needs at least {max(count, 2)}")
        for _attempt in range(100):
            chosen = sorted(rng.sample(range(len(sentences)), count))
            order = chosen[:]
            rng.shuffle(order)
            reordered = sentences[:]
            for slot, source in zip(chosen, order, strict=True):
                reordered[slot] = sentences[source]
            if reordered != sentences:
                return _fill_slots(item.text, spans, reordered)
        raise NotApplicable(f"no new sentence order found for item {item.id}")

    return apply


def _fill_slots(text: str, spans: Sequence[tuple[int, int]], sentences: Sequence[str]) -> str:
    """``text`` with the sentence at each span replaced by the matching one of ``sentences``."""
    parts = [text[: spans[0][0]]]
    for index, ((_, end), sentence) in enumerate(zip(spans, sentences, strict=True)):
        following = spans[index + 1][0] if index + 1 < len(spans) else len(text)
        parts += [sentence, text[end:following]]
    return "".join(parts)


def text_from_another_item(item: Item, rng: random.Random, pool: Sequence[Item]) -> str:
    """The text of a random other item: another story's ending, another question's answer."""
    others = sorted({other.text for other in pool if other.id != item.id and other.text != item.text})
    if not others:
        raise NotApplicable(f"no other item to borrow a text from for item {item.id}")
    return rng.choice(others)


def wrong_text(item: Item, rng: random.Random, pool: Sequence[Item]) -> str:
    """The dataset's own wrong alternative (Story Cloze's wrong ending)."""
    if not item.wrong_text:
        raise NotApplicable(f"item {item.id} has no wrong alternative")
    return item.wrong_text


def _pair(
    family: str, level: Level, make: Callable[[int], PerturbFunction], minor: int, major: int
) -> list[Perturbation]:
    return [
        Perturbation(f"{family}_minor", family, level, "minor", "rule", minor, make(minor)),
        Perturbation(f"{family}_major", family, level, "major", "rule", major, make(major)),
    ]


def _single(family: str, level: Level, k: int | None, apply: PerturbFunction) -> Perturbation:
    return Perturbation(family, family, level, None, "rule", k, apply)


def summarization_perturbations(k_minor: int, k_major: int) -> list[Perturbation]:
    """The summarization rows of the table, with the minor and major counts of a dataset."""
    return [
        *_pair("char_deletion", "character", delete_characters, k_minor, k_major),
        *_pair("typos", "character", add_typos, k_minor, k_major),
        Perturbation(
            "sentence_reorder_minor", "sentence_reorder", "sentence", "minor", "rule", 2, shuffle_sentences(2)
        ),
        Perturbation(
            "sentence_reorder_major", "sentence_reorder", "sentence", "major", "rule", None, shuffle_sentences(None)
        ),
    ]


STORY_PERTURBATIONS = [
    _single("char_deletion", "character", 5, delete_characters(5)),
    _single("typos", "character", 5, add_typos(5)),
    _single("random_ending", "sentence", None, text_from_another_item),
    _single("wrong_ending", "sentence", None, wrong_text),
]

QA_PERTURBATIONS = [
    *_pair("char_deletion", "character", delete_characters, 5, 25),
    *_pair("typos", "character", add_typos, 5, 25),
    _single("random_answer", "sentence", None, text_from_another_item),
]

TRANSLATION_PERTURBATIONS = [
    *_pair("char_deletion", "character", delete_characters, 10, 50),
    *_pair("typos", "character", add_typos, 10, 50),
    *_pair("word_deletion", "word", delete_word_span, 5, 25),
]

PERTURBATIONS: dict[str, list[Perturbation]] = {
    "summeval": summarization_perturbations(10, 50),
    "sumpubmed": summarization_perturbations(20, 100),
    "storycloze": STORY_PERTURBATIONS,
    "answer_equivalence": QA_PERTURBATIONS,
    "wmt22_de_en": TRANSLATION_PERTURBATIONS,
    "wmt22_zh_en": TRANSLATION_PERTURBATIONS,
}
"""Perturbations per dataset, with the paper's k values (Table 2; Story Cloze deletions from the NAACL version)."""


def select_perturbations(
    available: Sequence[Perturbation], requested: str | Sequence[str] | None
) -> list[Perturbation]:
    """The requested perturbations (comma list or sequence of ids), or all available ones."""
    names = names_option(requested)
    if names is None or names == ["all"]:
        return list(available)
    by_id = {perturbation.id: perturbation for perturbation in available}
    unknown = [name for name in names if name not in by_id]
    if unknown:
        raise ValueError(f"unknown perturbation(s) {unknown}; this dataset has {sorted(by_id)}")
    return [by_id[name] for name in names]


KIND_PERTURBATIONS: dict[str, list[Perturbation]] = {
    "summarization": PERTURBATIONS["summeval"],
    "story": [p for p in STORY_PERTURBATIONS if p.id != "wrong_ending"],
    "qa": QA_PERTURBATIONS,
    "translation": TRANSLATION_PERTURBATIONS,
}
"""Perturbations for a user's own texts (the ``custom`` task), with the k values of the kind's paper dataset."""
