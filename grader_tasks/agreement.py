"""Your grader against your labels: any inspect scorer grades outputs your annotators labelled, and its grades are
compared with the labels (accuracy, kappa, balanced F1, correlations), with itself across epochs, and, given your
eval's grades of unlabelled outputs, turned into a pass rate corrected for the grader's errors.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.scorer import Target
from inspect_ai.solver import TaskState

from grader_tasks.definition import GRADER_AGREEMENT
from grader_tasks.labels import check_targets, read_labels, read_unlabelled
from judge_data.recorded import Columns, Place, RecordedJudgments
from scorers.consistency import grade_consistency
from scorers.grader import GRADE, grader_grades
from scorers.labels import LABELS_KEY, label_agreement, label_scale
from solvers.grader import (
    check_template,
    grade_submissions,
    grader_metadata,
    grader_under_test,
    scorer_arguments,
    shared_metadata,
)
from solvers.recorded import recorded_judgments

DEFAULTS = GRADER_AGREEMENT.task_defaults("agreement")

OUTPUT_KEY = "output"
"""Sample metadata: the labelled output, graded as the submission."""


GRADES = Columns("grade", answers=False)
"""What the labels task reads from recorded grades: one grade per labelled output."""


def _submission(state: TaskState) -> Mapping[str, str]:
    return {GRADE: state.metadata[OUTPUT_KEY]}


def _row_target(state: TaskState) -> Target:
    return state.target


def _no_target(state: TaskState) -> Target:
    return Target("")


def _place(state: TaskState) -> dict[str, Place]:
    return {GRADE: (str(state.sample_id), None, ())}


@task
@GRADER_AGREEMENT.takes("agreement")
def agreement(
    labels: str,
    scorer: str | None = DEFAULTS["scorer"],
    scorer_args: str | dict[str, Any] | None = DEFAULTS["scorer_args"],
    target: str = DEFAULTS["target"],
    unlabelled: str | None = DEFAULTS["unlabelled"],
    judgments: str | None = DEFAULTS["judgments"],
    judge: str | None = DEFAULTS["judge"],
    prompt: str | None = DEFAULTS["prompt"],
) -> Task:
    """Your grader against your labels: any inspect scorer grades each labelled output (or its grades, recorded:
    ``judgments``)."""
    options = GRADER_AGREEMENT.arguments("agreement", locals())
    arguments = scorer_arguments(scorer_args)
    under_test = grader_under_test(options, arguments, GRADES)
    outputs, checksum = read_labels(labels)
    if target == "gold":
        check_targets(outputs, labels)
    samples = [
        Sample(
            id=output.id,
            input=output.input,
            target=output.target or "",
            metadata={OUTPUT_KEY: output.output, LABELS_KEY: output.labels},
        )
        for output in outputs
    ]
    check_template(str(scorer), arguments, shared_metadata(samples))
    scale = label_scale([label for output in outputs for label in output.labels.values()])
    others = read_unlabelled(unlabelled, str(scorer), {output.id for output in outputs})
    summary = None if others is None else others.grades
    if isinstance(under_test, RecordedJudgments):
        recorded = under_test.for_items({output.id: output.id for output in outputs}, "grader_tasks/agreement")
        solver = recorded_judgments(recorded, _place)
    else:
        solver = grade_submissions(_submission, under_test, _row_target if target == "gold" else _no_target)
    return Task(
        dataset=MemoryDataset(samples, name="grader_agreement"),
        solver=solver,
        scorer=grader_grades(),
        metrics=[
            label_agreement(
                scale,
                0 if summary is None else summary.n,
                None if summary is None else summary.mean,
                None if summary is None else summary.variance,
            ),
            grade_consistency([GRADE]),
        ],
        name="grader_agreement",
        version=GRADER_AGREEMENT.version,
        metadata={
            "task_version": GRADER_AGREEMENT.version,
            "paradigm": "grader",
            **(
                {"recorded": under_test.metadata()}
                if isinstance(under_test, RecordedJudgments)
                else {"grader": grader_metadata(str(scorer), arguments)}
            ),
            "target": target,
            "labels": checksum[:12],
            "labels_file": labels,
            "n_items": len(outputs),
            "annotators": sorted({name for output in outputs for name in output.labels}),
            "scale": scale,
            **({} if others is None else {"unlabelled": others.metadata}),
        },
    )
