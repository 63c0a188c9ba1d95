"""What the report shows of the user's grader against the user's labels: ``kappa`` and ``pearson`` item by item
(every epoch's grade paired with every label of its item), with the references of a random and a constant grader
and the annotators' own agreement."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from grader_tasks.definition import GRADER_AGREEMENT
from judge_data.views import ItemHeadline, Run, Sample, SuiteView, item_key
from scorers.labels import (
    LabelledItems,
    bootstrap,
    item_resamples,
    kappa,
    labelled_items,
    leave_one_out_statistic,
    leave_one_out_tables,
    table_statistic,
)
from scorers.paired import ItemStatistic, pearson_sums
from scorers.references import HUMAN, Reference, label_references, leave_one_out, pearson_agreement, pearson_references


def grader_labels(run: Run, samples: Sequence[Sample]) -> tuple[tuple[str, ...], LabelledItems]:
    """The item keys and each item's grades (one per epoch) and labels, of a ``grader_tasks/agreement`` run."""
    ids, items = labelled_items((s.id, s.metadata, value) for s in samples for value in s.epochs or (s.value,))
    return tuple(item_key(run, item, "grader_agreement") for item in ids), items


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


def kappa_references(runs: Sequence[Run], samples: Sequence[Sequence[Sample]]) -> list[Reference]:
    """``kappa``'s random and constant graders, and the annotators' kappa with each other."""
    labelled = [grader_labels(run, task)[1] for run, task in zip(runs, samples, strict=True)]
    by_task = [label_references(items.labels, [len(grades) for grades in items.grades]) for items in labelled]
    references = [
        Reference(
            first.reference,
            float(np.mean([task[index].value for task in by_task])),
            float(np.mean([task[index].low for task in by_task])),
            float(np.mean([task[index].high for task in by_task])),
            first.note,
        )
        for index, first in enumerate(by_task[0])
    ]
    if any(len(items.annotators) < 2 for items in labelled):
        references.append(Reference(HUMAN, math.nan, math.nan, math.nan, "no human ceiling: one annotator per output"))
        return references
    ceilings = []
    for items in labelled:
        levels = items.levels
        humans = leave_one_out_statistic(leave_one_out_tables(items, levels).annotator, levels, kappa)
        ceilings.append(bootstrap(humans, item_resamples(len(items.grades))))
    references.append(
        Reference(
            HUMAN,
            float(np.mean([ceiling.value for ceiling in ceilings])),
            float(np.mean([ceiling.low for ceiling in ceilings])),
            float(np.mean([ceiling.high for ceiling in ceilings])),
            "kappa/humans: each annotator's kappa with the other annotators' labels (pairs pooled), averaged over "
            "annotators, item-bootstrap interval; a grader's kappa/grader_same_footing (its kappa with the same "
            "labels on the same items) is the number to set beside it",
        )
    )
    return references


def pearson_references_of(runs: Sequence[Run], samples: Sequence[Sequence[Sample]]) -> list[Reference]:
    """``pearson``'s random and constant graders on the labels' scale, and the annotators' own agreement."""
    labelled = [grader_labels(run, task)[1] for run, task in zip(runs, samples, strict=True)]
    humans = [items.mean_labels()[np.isfinite(items.mean_labels())] for items in labelled]
    scales = [(float(np.min(human)), float(np.max(human)), False) for human in humans]
    references = pearson_references(humans, scales)
    ceilings = [
        leave_one_out(items.labels, pearson_agreement).annotators for items in labelled if len(items.annotators) >= 2
    ]
    if len(ceilings) == len(labelled):
        references.append(
            Reference(
                HUMAN,
                float(np.mean(ceilings)),
                math.nan,
                math.nan,
                "each annotator's Pearson with the mean of the others, averaged over annotators",
            )
        )
    return references


GRADER_AGREEMENT_VIEW = SuiteView(
    GRADER_AGREEMENT,
    title="Your grader against your labels (kappa, Pearson: higher is better)",
    task_prefixes=("grader_agreement",),
    answers_per_sample=lambda run: 1.0,
    item_headlines={
        "kappa": ItemHeadline(grader_kappa, kappa_references),
        "pearson": ItemHeadline(grader_pearson, pearson_references_of),
    },
)

VIEWS = (GRADER_AGREEMENT_VIEW,)
"""What the report shows of the suite's definition."""
