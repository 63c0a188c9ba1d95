"""What the report shows of instruction adherence: the paper's Pearson tables per dataset, criterion and taxonomy
group, ``pearson`` item by item with its references, and the human ceiling (annotators left out one at a time)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from adherence_tasks.definition import ADHERENCE
from judge_data.views import Contribution, ItemHeadline, PaperTable, Run, Sample, SuiteView, item_key, matching_metrics
from scorers.paired import ItemStatistic, ItemSums, pearson_sums, signed_mean_of_pearsons
from scorers.references import (
    HUMAN,
    Reference,
    leave_one_out,
    pearson_agreement,
    pearson_references,
    system_tau_agreement,
)
from scorers.system_agreement import few_systems_caveat
from scorers.values import as_float

if TYPE_CHECKING:
    from judge_data.human import HumanItem


def _adherence_dataset(run: Run) -> str:
    setting = run.setting("setting")
    return run.task.removeprefix("adherence_").removesuffix(f"_{setting}")


def _adherence_setting_cells(run: Run) -> list[tuple[str, str, str]]:
    return [(_adherence_dataset(run), str(run.setting("setting")), "pearson")] if "pearson" in run.metrics else []


def _adherence_criterion_cells(run: Run) -> list[tuple[str, str, str]]:
    criteria = run.metadata.get("criteria") or {}
    return [
        (f"{_adherence_dataset(run)}/{name}", str(run.setting("setting")), f"pearson/{name}")
        for name in criteria
        if f"pearson/{name}" in run.metrics
    ]


def _adherence_group_cells(run: Run) -> list[tuple[str, str, str]]:
    """Each dataset's own group means, one row per dataset and group."""
    return [
        (f"{_adherence_dataset(run)}/{name.removeprefix('pearson/group/')}", str(run.setting("setting")), name)
        for name in matching_metrics(run, r"pearson/group/.+")
    ]


POOLED_GROUP_ROW = "all datasets"


def _adherence_group_pool(runs: Sequence[Run]) -> tuple[list[tuple[str, str, list[Contribution]]], list[str]]:
    """The paper's per-group figure: per setting, the mean of ``sign * pearson`` over all of a group's criteria in
    every dataset the judge was run on (each criterion once; the cell says how many). A dataset run twice under one
    setting (two configs) would count twice, so that group mean is left out, with a note."""
    by_setting: dict[str, list[Run]] = {}
    for run in runs:
        by_setting.setdefault(str(run.setting("setting")), []).append(run)
    cells, notes = [], []
    for setting, setting_runs in by_setting.items():
        datasets = [_adherence_dataset(run) for run in setting_runs]
        repeated = sorted({dataset for dataset in datasets if datasets.count(dataset) > 1})
        if repeated:
            notes.append(
                f"adherence groups, setting {setting}: {setting_runs[0].judge} has several non-comparable runs of "
                f"{', '.join(repeated)}; the mean over all datasets is left out for this setting"
            )
            continue
        groups: dict[str, list[Contribution]] = {}
        for run in setting_runs:
            for name, info in (run.metadata.get("criteria") or {}).items():
                metric = f"pearson/{name}"
                if info.get("group") and not math.isnan(run.metrics.get(metric, math.nan)):
                    groups.setdefault(info["group"], []).append((run, metric, float(info.get("expected_sign", 1))))
        cells += [(f"{POOLED_GROUP_ROW}/{group}", setting, values) for group, values in sorted(groups.items())]
    return cells, notes


def _few_systems_notes(run: Run) -> list[str]:
    """A caveat on a run's ``system_tau`` where it ranks fewer than ``FEW_SYSTEMS`` systems."""
    caveat = few_systems_caveat(int(run.metrics.get("n_systems", 0) or 0))
    if caveat is None or math.isnan(run.metrics.get("system_tau", math.nan)):
        return []
    return [f"{run.task}: system_tau is coarse {caveat}"]


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
    keys = tuple(item_key(run, sample.id, "adherence") for sample in samples)
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


ONLY_MEANS = "no human ceiling: the data holds only the annotators' mean score per item"


def pearson_references_of(runs: Sequence[Run], samples: Sequence[Sequence[Sample]]) -> list[Reference]:
    """``pearson``'s random and constant judges on each criterion's scale, and the annotators' own agreement."""
    humans, scales = [], []
    for run, task in zip(runs, samples, strict=True):
        for name, info in (run.metadata.get("criteria") or {}).items():
            if not info.get("group"):
                continue
            human = np.array([as_float((s.metadata.get("human") or {}).get(name)) for s in task])
            low, high = info.get("range") or (1, 5)
            humans.append(human[np.isfinite(human)])
            scales.append((float(low), float(high), info.get("scale") == "binary"))
    references = pearson_references(humans, scales)
    footings = [human_footing(run, task) for run, task in zip(runs, samples, strict=True)]
    reasons = [footing for footing in footings if isinstance(footing, str)]
    if reasons:
        references.append(Reference(HUMAN, math.nan, math.nan, math.nan, reasons[0]))
    else:
        values = [footing.annotators["responses"] for footing in footings if not isinstance(footing, str)]
        references.append(
            Reference(
                HUMAN,
                float(np.mean(values)),
                math.nan,
                math.nan,
                "each annotator's Pearson with the mean of the others, per criterion over the run's items, averaged "
                "over annotators and then criteria (the annotators' scores read from the run's data_dir); a judge "
                "is scored against the mean of all annotators, a less noisy target, so compare it with the judges' "
                "values against the same leave-one-out means (the human ceiling table)",
            )
        )
    return references


FOOTING_LEVELS = ("responses", "systems")
"""The levels the human ceiling is compared at: agreement over responses (Pearson, as the headline) and over the
systems that wrote them (Kendall's tau-b of system means, as ``system_tau``)."""


@dataclass(frozen=True)
class HumanFooting:
    """One adherence run's agreement with leave-one-annotator-out means (:func:`scorers.references.leave_one_out`),
    per level of :data:`FOOTING_LEVELS`: the annotators' own and the judge's, each the mean over the criteria the
    headline averages (the judge's oriented by their signs); NaN where a level is undefined."""

    annotators: dict[str, float]
    judge: dict[str, float]


@lru_cache(maxsize=16)
def _annotated_items(folder: str) -> dict[str, HumanItem]:
    """A data folder's items by id (read once per report, whatever the number of judges)."""
    from judge_data.human import load_criteria, load_items

    criteria, _ = load_criteria(folder)
    return {item.id: item for item in load_items(folder, criteria)}


def human_footing(run: Run, samples: Sequence[Sample]) -> HumanFooting | str:
    """The annotators' and the judge's agreement with the same leave-one-annotator-out means, at the level of
    responses and of systems (where the samples name at least three), from the per-annotator scores in the run's
    data folder; or why there are none."""
    folder = run.setting("data_dir")
    if not folder or not (Path(str(folder)) / "items.jsonl").is_file():
        return "no human ceiling: the run names no data folder with items.jsonl to read the annotators' scores from"
    by_id = _annotated_items(str(folder))
    systems = [None if s.metadata.get("system") is None else str(s.metadata["system"]) for s in samples]
    agreements = {"responses": pearson_agreement, "systems": system_tau_agreement(systems)}
    annotators: dict[str, list[float]] = {level: [] for level in FOOTING_LEVELS}
    judge: dict[str, list[float]] = {level: [] for level in FOOTING_LEVELS}
    for name, info in (run.metadata.get("criteria") or {}).items():
        if not info.get("group"):
            continue
        rows = [list((by_id[s.id].annotator_scores or {}).get(name) or []) if s.id in by_id else [] for s in samples]
        width = max((len(row) for row in rows), default=0)
        if width < 2:
            return ONLY_MEANS
        matrix = np.array(
            [[math.nan if v is None else float(v) for v in row] + [math.nan] * (width - len(row)) for row in rows]
        ).T
        scores = np.array([as_float(s.value.get(name)) for s in samples])
        for level in FOOTING_LEVELS:
            found = leave_one_out(matrix, agreements[level], [scores])
            annotators[level].append(found.annotators)
            judge[level].append(int(info.get("expected_sign", 1)) * found.judges[0])
    return HumanFooting(
        {level: _mean_or_nan(values) for level, values in annotators.items()},
        {level: _mean_or_nan(values) for level, values in judge.items()},
    )


def _mean_or_nan(values: Sequence[float]) -> float:
    """The mean, NaN where any value is (a criterion undefined leaves the mean over the criteria undefined)."""
    return float(np.mean(values)) if values and not any(math.isnan(value) for value in values) else math.nan


ADHERENCE_VIEW = SuiteView(
    ADHERENCE,
    title="Instruction adherence (Pearson with the humans, oriented: higher is better)",
    task_prefixes=("adherence_",),
    answers_per_sample=lambda run: float(len(run.metadata.get("questions") or {}) * (run.setting("repeats") or 1)),
    kind_on=("setting",),
    run_notes=_few_systems_notes,
    paper_tables=(
        PaperTable(
            "adherence_table1",
            "Adherence Table 1/2: Pearson per dataset and setting",
            _adherence_setting_cells,
            "dataset",
        ),
        PaperTable(
            "adherence_table3",
            "Adherence Table 3: Pearson per criterion and setting",
            _adherence_criterion_cells,
            "criterion",
        ),
        PaperTable(
            "adherence_groups",
            "Adherence: Pearson per taxonomy group and setting (mean over its criteria; all datasets, then each)",
            _adherence_group_cells,
            "group",
            pooled=_adherence_group_pool,
        ),
    ),
    item_headlines={"pearson": ItemHeadline(adherence_pearson, pearson_references_of)},
)

VIEWS = (ADHERENCE_VIEW,)
"""What the report shows of the suite's definition."""
