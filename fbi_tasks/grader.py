"""FBI with your grader: any inspect scorer as the judge under test on FBI's items.

Each item's gold answer and its perturbed copy are submitted, one after the other, to the scorer a user runs in their
own evals (``model_graded_fact`` with their template and grader model, or their own scorer), with the question as the
input and the gold answer as the target; a failure is the perturbed answer not graded below the gold one.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset
from inspect_ai.scorer import Target
from inspect_ai.solver import TaskState

from fbi_tasks.definition import FBI_GRADER
from fbi_tasks.fbi import JUDGMENTS, item_ids, item_places, item_sample, select_items
from judge_data.recorded import Columns, RecordedJudgments
from scorers.grader import grader_blind_spot_rates, grader_blind_spots
from solvers.grader import grade_submissions, grader_metadata, grader_under_test, scorer_arguments
from solvers.recorded import recorded_judgments

DEFAULTS = FBI_GRADER.task_defaults("grader")

GRADES = Columns("grade", keys={"judgment": JUDGMENTS["grader"]}, answers=False)
"""What ``fbi_tasks/grader`` reads from recorded grades: a grade per item and submission (``gold``, ``perturbed``)."""


def _submissions(state: TaskState) -> Mapping[str, str]:
    return {"gold": state.metadata["gold"], "perturbed": state.metadata["perturbed"]}


def _gold_target(state: TaskState) -> Target:
    return Target(state.metadata["gold"])


def _no_target(state: TaskState) -> Target:
    return Target("")


@task
@FBI_GRADER.takes("grader")
def grader(
    scorer: str | None = DEFAULTS["scorer"],
    scorer_args: str | dict[str, Any] | None = DEFAULTS["scorer_args"],
    target: str = DEFAULTS["target"],
    data_dir: str | None = DEFAULTS["data_dir"],
    abilities: str | list[str] | None = DEFAULTS["abilities"],
    categories: str | list[str] | None = DEFAULTS["categories"],
    per_category: int | None = DEFAULTS["per_category"],
    seed: int = DEFAULTS["seed"],
    include_extra: bool = DEFAULTS["include_extra"],
    hub_revision: str | None = DEFAULTS["hub_revision"],
    keep_identical: bool = DEFAULTS["keep_identical"],
    suite: str | None = DEFAULTS["suite"],
    judgments: str | None = DEFAULTS["judgments"],
    judge: str | None = DEFAULTS["judge"],
    prompt: str | None = DEFAULTS["prompt"],
) -> Task:
    """FBI with your grader: any inspect scorer grades the gold and the perturbed answer of each item (or its grades,
    recorded: ``judgments``)."""
    options = FBI_GRADER.arguments("grader", locals())
    arguments = scorer_arguments(scorer_args)
    under_test = grader_under_test(options, arguments, GRADES)
    selection, source = select_items(options)
    if isinstance(under_test, RecordedJudgments):
        recorded = under_test.for_items(item_ids(selection.items), "fbi_tasks/grader")
        solver = recorded_judgments(recorded, partial(item_places, JUDGMENTS["grader"]))
    else:
        solver = grade_submissions(_submissions, under_test, _gold_target if target == "gold" else _no_target)
    return Task(
        dataset=MemoryDataset([item_sample(item) for item in selection.items], name="fbi_grader"),
        solver=solver,
        scorer=grader_blind_spots(),
        metrics=[grader_blind_spot_rates()],
        name="fbi_grader",
        version=FBI_GRADER.version,
        metadata={
            "task_version": FBI_GRADER.version,
            "paradigm": "grader",
            **(
                {"recorded": under_test.metadata()}
                if isinstance(under_test, RecordedJudgments)
                else {"grader": grader_metadata(str(scorer), arguments)}
            ),
            "target": target,
            "n_items": len(selection.items),
            **source,
            "keep_identical": keep_identical,
            "left_out_identical": [f"{item.category}/{item.id}" for item in selection.unchanged],
        },
    )
