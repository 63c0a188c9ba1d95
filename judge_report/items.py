"""Per-item values of a run, read from its inspect log's samples, and each leaderboard headline as a statistic of
item weights (:class:`scorers.paired.ItemStatistic`): what pooled intervals, paired comparisons of judges and the
references need.

An item has the same key in every run that judged it: the FBI sample id (category/item, the same under every
paradigm and strategy), a DHP reference text (dataset and item id, with all its perturbed copies), a human-scored
response (dataset and item id) or a CoEval task description (dataset and id).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from judge_report.runs import Run
from scorers.agreement import item_weighted_alpha
from scorers.discernment import LEVELS, item_bootstrap, rated_below
from scorers.labels import LabelledItems, kappa, labelled_items, table_statistic
from scorers.paired import ItemStatistic, ItemSums, pearson_sums, signed_mean_of_pearsons, weighted_mean
from scorers.values import as_float


@dataclass(frozen=True)
class Sample:
    """One scored sample: its id, metadata and score value (numbers averaged over epochs, as inspect's reducer
    does)."""

    id: str
    metadata: Mapping[str, Any]
    value: Mapping[str, Any]
    store: Mapping[str, Any]
    epochs: tuple[Mapping[str, Any], ...] = ()
    """Each epoch's score value, where a headline pairs judgments rather than averaging them (a grader's labels)."""


ItemReader = Callable[[Run], "list[Sample] | str"]
"""A run's scored samples, or why there are none to read."""


NOT_READ_LM_EVAL = (
    "lm-eval results hold no per-item values the report reads (its samples file holds the judge's raw answers); "
    "run the suite in inspect for a pooled interval and comparisons"
)


NOT_READ_FIELDS = {"events", "messages", "output", "attachments"}
"""Sample fields the report never reads, left unparsed: reading 20 logs of 1,005 samples takes half the time."""


def read_samples(run: Run) -> list[Sample] | str:
    """The run's scored samples from its inspect log (epochs averaged key by key, NaN left out), or the reason
    there are none."""
    if run.harness != "inspect":
        return NOT_READ_LM_EVAL
    from inspect_ai.log import read_eval_log

    try:
        log = read_eval_log(run.location, exclude_fields=NOT_READ_FIELDS)
    except Exception as error:
        return f"its log's samples cannot be read ({error})"
    by_id: dict[str, list[tuple[Mapping[str, Any], Mapping[str, Any], Mapping[str, Any]]]] = {}
    for sample in log.samples or []:
        score = next(iter((sample.scores or {}).values()), None)
        if score is not None and isinstance(score.value, Mapping):
            by_id.setdefault(str(sample.id), []).append((sample.metadata or {}, score.value, sample.store or {}))
    if not by_id:
        return "its log holds no scored samples"
    return [
        Sample(
            sample_id,
            epochs[0][0],
            _epoch_mean([value for _, value, _ in epochs]),
            epochs[0][2],
            tuple(value for _, value, _ in epochs),
        )
        for sample_id, epochs in by_id.items()
    ]


def _epoch_mean(values: Sequence[Mapping[str, Any]]) -> Mapping[str, Any]:
    if len(values) == 1:
        return values[0]
    merged: dict[str, Any] = {}
    for key in values[0]:
        numbers = [as_float(value.get(key)) for value in values]
        finite = [number for number in numbers if not math.isnan(number)]
        merged[key] = float(np.mean(finite)) if finite else math.nan
    return merged


class CachedReader:
    """Reads each log's samples once per report."""

    def __init__(self, reader: ItemReader = read_samples) -> None:
        self._reader = reader
        self._read: dict[str, list[Sample] | str] = {}

    def __call__(self, run: Run) -> list[Sample] | str:
        """The run's samples, read on the first call."""
        if run.location not in self._read:
            self._read[run.location] = self._reader(run)
        return self._read[run.location]


# The headlines as statistics of item weights --------------------------------------------------------------------------


def _key(run: Run, sample_id: str, suite: str) -> str:
    """The item's key: FBI ids are the same item under every paradigm and strategy; other suites' ids are unique
    within a dataset only."""
    if suite == "fbi":
        return f"fbi:{sample_id}"
    dataset = run.setting("dataset") or run.task
    return f"{suite}:{dataset}:{sample_id}"


def fbi_error_rate(run: Run, samples: Sequence[Sample]) -> ItemStatistic:
    """``error_rate``: the mean failure over the perturbed (not score-invariant) items; 0/1 per item unless
    averaged over epochs or read from log-probabilities."""
    kept = [sample for sample in samples if "ability" in sample.metadata and not sample.metadata.get("invariant")]
    failures = np.array([as_float(sample.value.get("failure")) for sample in kept])
    keys = tuple(_key(run, s.id, "fbi") for s in kept)
    return ItemStatistic(keys, weighted_mean(failures), failures, np.isfinite(failures))


def mean_of(key: str) -> Callable[[Run, Sequence[Sample]], ItemStatistic]:
    """A headline that is the mean over samples of one score-value key (CoEval's ``cc`` and ``icc``)."""

    def statistic(run: Run, samples: Sequence[Sample]) -> ItemStatistic:
        values = np.array([as_float(sample.value.get(key)) for sample in samples])
        keys = tuple(_key(run, s.id, "coeval") for s in samples)
        return ItemStatistic(keys, weighted_mean(values), answered=np.isfinite(values))

    return statistic


@dataclass(frozen=True)
class DhpItems:
    """A DHP run's original-minus-perturbed differences, ``(perturbation, metric, item)``, NaN where no pair."""

    items: tuple[str, ...]
    perturbations: tuple[str, ...]
    levels: tuple[str, ...]
    metrics: tuple[str, ...]
    differences: np.ndarray
    paired: np.ndarray
    """``(perturbation, item)``: whether the task holds the perturbed copy, judged or not."""


def dhp_items(run: Run, samples: Sequence[Sample]) -> DhpItems:
    """The pairs the suite's D is computed from, by item (dataset and item id)."""
    metrics = tuple(run.metadata.get("metrics") or ())
    originals: dict[str, Mapping[str, Any]] = {}
    perturbed: dict[str, dict[str, Mapping[str, Any]]] = {}
    levels: dict[str, str] = {}
    for sample in samples:
        item, variant = str(sample.metadata.get("item_id")), str(sample.metadata.get("perturbation"))
        if variant == "original":
            originals[item] = sample.value
        elif sample.metadata.get("level") in LEVELS:
            perturbed.setdefault(variant, {})[item] = sample.value
            levels[variant] = str(sample.metadata["level"])
    names = tuple(sorted(perturbed, key=lambda name: (LEVELS.index(levels[name]), name)))
    items = sorted(originals)
    differences = np.full((len(names), len(metrics), len(items)), np.nan)
    paired = np.zeros((len(names), len(items)), dtype=bool)
    for k, name in enumerate(names):
        for i, item in enumerate(items):
            if item in perturbed[name]:
                paired[k, i] = True
                for j, metric in enumerate(metrics):
                    differences[k, j, i] = as_float(originals[item].get(metric)) - as_float(
                        perturbed[name][item].get(metric)
                    )
    keys = tuple(_key(run, item, "dhp") for item in items)
    return DhpItems(keys, names, tuple(levels[name] for name in names), metrics, differences, paired)


def dhp_statistic(data: DhpItems, combine: str, metric: str = "D_avg") -> Callable[[np.ndarray], np.ndarray]:
    """``D_avg`` (or another discernment score) on item weights, through the suite's own :func:`item_bootstrap`:
    each weight row becomes the draws it stands for, padded with an item without pairs."""
    padded = np.concatenate([data.differences, np.full((*data.differences.shape[:2], 1), np.nan)], axis=2)
    empty = data.differences.shape[-1]
    metric_weights = np.ones((len(data.perturbations), len(data.metrics)))

    def compute(weights: np.ndarray) -> np.ndarray:
        counts = np.rint(weights).astype(int)
        width = max(int(counts.sum(axis=1).max()), 1)
        draws = np.full((len(counts), width), empty)
        for row, row_counts in enumerate(counts):
            drawn = np.repeat(np.arange(empty), row_counts)
            draws[row, : drawn.size] = drawn
        return item_bootstrap(padded, data.perturbations, data.levels, metric_weights, combine, draws)[metric]  # type: ignore[arg-type]

    return compute


def dhp_d_avg(run: Run, samples: Sequence[Sample]) -> ItemStatistic:
    """``D_avg``: recomputed from the pairs on every draw of items, as the suite's own bootstrap does."""
    data = dhp_items(run, samples)
    answered = np.isfinite(data.differences).any(axis=(0, 1))
    return ItemStatistic(data.items, dhp_statistic(data, str(run.setting("combine") or "hmp")), answered=answered)


def dhp_rated_below(run: Run, samples: Sequence[Sample]) -> ItemStatistic:
    """The probability that a damaged copy is rated below its original (:func:`scorers.discernment.rated_below`),
    the effect size the report shows beside ``D_avg``."""
    data = dhp_items(run, samples)
    answered = np.isfinite(data.differences).any(axis=(0, 1))

    def compute(weights: np.ndarray) -> np.ndarray:
        return rated_below(data.differences, data.levels, weights)

    return ItemStatistic(data.items, compute, answered=answered)


@dataclass(frozen=True)
class CriterionPairs:
    """One criterion's judge and human scores, item by item, and the sign agreement shows with."""

    name: str
    sign: int
    judge: np.ndarray
    human: np.ndarray


def adherence_pairs(run: Run, samples: Sequence[Sample]) -> tuple[tuple[str, ...], list[CriterionPairs]]:
    """The item keys and, per criterion of a taxonomy group (those the ``pearson`` headline averages), the judge's
    and the humans' scores."""
    criteria = run.metadata.get("criteria") or {}
    keys = tuple(_key(run, sample.id, "adherence") for sample in samples)
    pairs = [
        CriterionPairs(
            name,
            int(info.get("expected_sign", 1)),
            np.array([as_float(sample.value.get(name)) for sample in samples]),
            np.array([as_float((sample.metadata.get("human") or {}).get(name)) for sample in samples]),
        )
        for name, info in criteria.items()
        if info.get("group")
    ]
    return keys, pairs


def oriented_mean_pearson(pairs: Sequence[CriterionPairs]) -> ItemSums:
    """The mean of ``sign * r`` over the criteria defined on all items (those the headline averages); a weight row
    on which one of them is undefined is NaN, as in the suite's interval."""
    sums = [(criterion.sign, pearson_sums(criterion.judge, criterion.human)) for criterion in pairs]
    defined = [(sign, one) for sign, one in sums if np.isfinite(one(np.ones((1, len(one.values)))))[0]]
    return signed_mean_of_pearsons(defined, len(pairs[0].judge) if pairs else 0)


def adherence_pearson(run: Run, samples: Sequence[Sample]) -> ItemStatistic:
    """``pearson``: the oriented mean Pearson over the criteria, recomputed on every draw of responses."""
    keys, pairs = adherence_pairs(run, samples)
    answered = np.any([np.isfinite(criterion.judge) for criterion in pairs], axis=0) if pairs else None
    return ItemStatistic(keys, oriented_mean_pearson(pairs), answered=answered)


@dataclass(frozen=True)
class RatedUnits:
    """CoEval's (item, criterion) units: every rater's score (raters x units, NaN where missing) and each unit's
    item."""

    raters: np.ndarray
    unit_item: np.ndarray
    items: tuple[str, ...]


def coeval_units(run: Run, samples: Sequence[Sample], with_judge: bool = True) -> RatedUnits:
    """The annotators' (and the judge's, last) scores per (item, criterion), as the suite's α pools them."""
    criteria = list(run.metadata.get("criteria") or {})
    annotators = list(dict.fromkeys(a for s in samples for a in (s.metadata.get("annotator_ids") or [])))
    columns, unit_item = [], []
    for index, sample in enumerate(samples):
        ids = list(sample.metadata.get("annotator_ids") or [])
        scores = sample.metadata.get("annotators") or {}
        for criterion in criteria:
            given = dict(zip(ids, scores.get(criterion) or [None] * len(ids), strict=True))
            column = [as_float(given.get(annotator)) for annotator in annotators]
            if with_judge:
                column.append(as_float(sample.value.get(criterion)))
            columns.append(column)
            unit_item.append(index)
    raters = np.array(columns, dtype=float).T.reshape(len(annotators) + with_judge, len(columns))
    keys = tuple(_key(run, sample.id, "coeval") for sample in samples)
    return RatedUnits(raters, np.array(unit_item, dtype=int), keys)


def alpha_statistic(units: RatedUnits) -> Callable[[np.ndarray], np.ndarray]:
    """α of the units on item weights (each unit weighs what its item does)."""
    return item_weighted_alpha(units.raters, units.unit_item, len(units.items))


def coeval_alpha_with_judge(run: Run, samples: Sequence[Sample]) -> ItemStatistic:
    """``alpha/with_judge``: α of the annotators and the judge over the (item, criterion) units, items resampled."""
    units = coeval_units(run, samples)
    judged = np.bincount(units.unit_item, weights=np.isfinite(units.raters[-1]), minlength=len(units.items)) > 0
    return ItemStatistic(units.items, alpha_statistic(units), answered=judged)


def grader_labels(run: Run, samples: Sequence[Sample]) -> tuple[tuple[str, ...], LabelledItems]:
    """The item keys and each item's grades (one per epoch) and labels, of a ``grader_tasks/agreement`` run."""
    ids, items = labelled_items((s.id, s.metadata, value) for s in samples for value in s.epochs or (s.value,))
    return tuple(_key(run, item, "grader_agreement") for item in ids), items


def grader_kappa(run: Run, samples: Sequence[Sample]) -> ItemStatistic:
    """``kappa``: the grader's linear-weighted kappa with the labels, every epoch's grade paired with every label
    of its item, the pairs' table recomputed on every draw of items."""
    keys, items = grader_labels(run, samples)
    levels = items.levels
    graded = np.isfinite(items.mean_grades())
    return ItemStatistic(keys, table_statistic(items.grader_tables(levels), levels, kappa), answered=graded)


def grader_pearson(run: Run, samples: Sequence[Sample]) -> ItemStatistic:
    """``pearson``: the Pearson correlation of each item's mean grade with its mean label."""
    keys, items = grader_labels(run, samples)
    grades, labels = items.mean_grades(), items.mean_labels()
    return ItemStatistic(keys, pearson_sums(grades, labels), answered=np.isfinite(grades))


HEADLINE_STATISTICS: dict[tuple[str, str], Callable[[Run, Sequence[Sample]], ItemStatistic]] = {
    ("dhp", "D_avg"): dhp_d_avg,
    ("dhp_grader", "D_avg"): dhp_d_avg,
    ("fbi", "error_rate"): fbi_error_rate,
    ("fbi_grader", "error_rate"): fbi_error_rate,
    ("grader_agreement", "kappa"): grader_kappa,
    ("grader_agreement", "pearson"): grader_pearson,
    ("adherence", "pearson"): adherence_pearson,
    ("coeval_criteria", "cc"): mean_of("cc"),
    ("coeval_criteria", "icc"): mean_of("icc"),
    ("coeval_scoring", "alpha/with_judge"): coeval_alpha_with_judge,
}
"""Every leaderboard headline, by (suite, metric), as a statistic of item weights."""


def headline_statistic(run: Run, suite: str, metric: str, reader: ItemReader) -> ItemStatistic | str:
    """The run's headline as an :class:`ItemStatistic`, or why there is none."""
    build = HEADLINE_STATISTICS.get((suite, metric))
    if build is None:
        return f"the report has no per-item form of {suite} {metric}"
    samples = reader(run)
    if isinstance(samples, str):
        return samples
    statistic = build(run, samples)
    if not statistic.items:
        return "its log holds no item this headline is computed on"
    return statistic
