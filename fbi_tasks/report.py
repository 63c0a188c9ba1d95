"""What the report shows of FBI and of FBI with the user's grader: the failure rate per category, and
``error_rate`` item by item with the references of a judge that cannot read (random, always the first, the longer)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from fbi_tasks.definition import FBI, FBI_GRADER
from judge_data.views import (
    ItemHeadline,
    PaperTable,
    Run,
    Sample,
    SuiteView,
    item_key,
    matching_metrics,
    present_metrics,
)
from scorers.paired import ItemStatistic, weighted_mean
from scorers.references import Reference, fbi_error_rate_references
from scorers.values import as_float


def _fbi_cells(run: Run) -> list[tuple[str, str, str]]:
    categories = matching_metrics(run, r"error_rate/[a-z_]+/[a-z_]+")
    return [(name.removeprefix("error_rate/"), run.task, name) for name in categories] + [
        ("score_invariant", run.task, name) for name in present_metrics(run, ("si_error_rate",))
    ]


def fbi_error_rate(run: Run, samples: Sequence[Sample]) -> ItemStatistic:
    """``error_rate``: the mean failure over the perturbed (not score-invariant) items; 0/1 per item unless
    averaged over epochs or read from log-probabilities."""
    kept = [sample for sample in samples if "ability" in sample.metadata and not sample.metadata.get("invariant")]
    failures = np.array([as_float(sample.value.get("failure")) for sample in kept])
    keys = tuple(item_key(run, s.id, "fbi") for s in kept)
    return ItemStatistic(keys, weighted_mean(failures), failures, np.isfinite(failures))


def error_rate_references(runs: Sequence[Run], samples: Sequence[Sequence[Sample]]) -> list[Reference]:
    """``error_rate``'s judges that cannot read: random, always one answer, always the longer one."""
    paradigm = str(runs[0].setting("paradigm"))
    perturbed = [[s for s in task if "ability" in s.metadata and not s.metadata.get("invariant")] for task in samples]
    longer = [
        [
            float(len(str(s.metadata.get("perturbed", ""))) >= len(str(s.metadata.get("gold", ""))))
            for s in task
            if "gold" in s.metadata
        ]
        for task in perturbed
    ]
    return fbi_error_rate_references(
        paradigm, [run.setting("scale") for run in runs], [len(task) for task in perturbed], longer
    )


FBI_VIEW = SuiteView(
    FBI,
    title="FBI blind spots (error rate: lower is better)",
    task_prefixes=("fbi_",),
    answers_per_sample=lambda run: 1.0 if run.setting("paradigm") == "reference" else 2.0,
    kind_on=("paradigm",),
    paper_tables=(
        PaperTable("fbi_failure_rate_by_category", "FBI: failure rate per category", _fbi_cells, "category", "column"),
    ),
    hub_dataset=lambda run: "ai4bharat/FBI",
    item_headlines={"error_rate": ItemHeadline(fbi_error_rate, error_rate_references)},
)


FBI_GRADER_VIEW = SuiteView(
    FBI_GRADER,
    title="FBI with your grader: an inspect scorer as the judge (error rate: lower is better)",
    task_prefixes=("fbi_grader",),
    answers_per_sample=lambda run: 2.0,
    paper_tables=(
        PaperTable(
            "fbi_grader_failure_rate_by_category",
            "FBI with your grader: failure rate per category",
            _fbi_cells,
            "category",
            "column",
        ),
    ),
    item_headlines={"error_rate": ItemHeadline(fbi_error_rate, error_rate_references)},
)

VIEWS = (FBI_VIEW, FBI_GRADER_VIEW)
"""What the report shows of each of the suite's definitions."""
