"""Per-item values of a run, read from its inspect log's samples, and each leaderboard headline item by item as its
suite declares it (:class:`judge_data.views.ItemHeadline`): what pooled intervals, paired comparisons of judges and
the references need.

An item has the same key in every run that judged it (:func:`judge_data.views.item_key`): the FBI sample id
(category/item, the same under every paradigm and strategy), a DHP reference text (dataset and item id, with all its
perturbed copies), a human-scored response (dataset and item id) or a CoEval task description (dataset and id).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from judge_data.views import ItemHeadline, Run, Sample
from judge_report.suites import VIEWS
from scorers.paired import ItemStatistic
from scorers.references import Reference
from scorers.values import as_float

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


def item_headline(suite: str, metric: str) -> ItemHeadline | None:
    """The per-item form of suite ``suite``'s headline ``metric``, as its view declares it, ``None`` where it has
    none."""
    view = next((view for view in VIEWS if view.name == suite), None)
    return None if view is None else view.item_headlines.get(metric)


def headline_statistic(run: Run, suite: str, metric: str, reader: ItemReader) -> ItemStatistic | str:
    """The run's headline as an :class:`ItemStatistic`, or why there is none."""
    headline = item_headline(suite, metric)
    if headline is None:
        return f"the report has no per-item form of {suite} {metric}"
    samples = reader(run)
    if isinstance(samples, str):
        return samples
    statistic = headline.statistic(run, samples)
    if not statistic.items:
        return "its log holds no item this headline is computed on"
    return statistic


def column_references(suite: str, metric: str, runs: Sequence[Run], reader: ItemReader) -> list[Reference] | str:
    """The yardsticks of one headline over these runs (one per task of a column, of one judge), from the data their
    logs hold, never from a model (:mod:`scorers.references` computes each); or why there are none."""
    headline = item_headline(suite, metric)
    if headline is None or headline.references is None:
        return f"the report has no references for {suite} {metric}"
    if not headline.references_read_items:
        return headline.references(runs, [])
    read = [reader(run) for run in runs]
    missing = [why for why in read if isinstance(why, str)]
    if missing:
        return missing[0]
    return headline.references(runs, [task for task in read if not isinstance(task, str)])
