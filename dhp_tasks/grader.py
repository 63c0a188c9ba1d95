"""DHP with your grader: any inspect scorer as the judge under test on DHP's texts.

Each reference text and each of its perturbed copies is submitted to the scorer a user runs in their own evals, with
the text's context (source article, story, question and paragraph, source text) as the input; the scorer's value is
the one rating, and DHP's discernment asks whether the originals are graded above their damaged copies.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any

from inspect_ai import Task, task
from inspect_ai.scorer import Target
from inspect_ai.solver import TaskState

from dhp_tasks.data import DATASETS
from dhp_tasks.definition import DHP_GRADER
from dhp_tasks.dhp import build_samples, discernment_task, judgment_columns, paper_dataset_items, text_places
from dhp_tasks.prompts import TEXT_KINDS
from judge_data.recorded import RecordedJudgments
from scorers.consistency import grade_consistency
from scorers.discernment import Combination
from scorers.grader import GRADE, grader_grades, scorer_error_count
from solvers.grader import (
    check_template,
    grade_submissions,
    grader_metadata,
    grader_under_test,
    scorer_arguments,
    shared_metadata,
)
from solvers.recorded import recorded_judgments

DEFAULTS = DHP_GRADER.task_defaults("grader")


def _submission(state: TaskState) -> Mapping[str, str]:
    return {GRADE: state.metadata["response"]}


def _context(state: TaskState) -> str:
    return state.metadata.get("context") or ""


def _no_input(state: TaskState) -> str:
    return ""


@task
@DHP_GRADER.takes("grader")
def grader(
    dataset: str = DEFAULTS["dataset"],
    scorer: str | None = DEFAULTS["scorer"],
    scorer_args: str | dict[str, Any] | None = DEFAULTS["scorer_args"],
    target: str = DEFAULTS["target"],
    input: str = DEFAULTS["input"],
    data_dir: str | None = DEFAULTS["data_dir"],
    n: int = DEFAULTS["n"],
    seed: int = DEFAULTS["seed"],
    perturbations: str | list[str] | None = DEFAULTS["perturbations"],
    combine: Combination = DEFAULTS["combine"],
    suite: str | None = DEFAULTS["suite"],
    judgments: str | None = DEFAULTS["judgments"],
    judge: str | None = DEFAULTS["judge"],
    prompt: str | None = DEFAULTS["prompt"],
) -> Task:
    """DHP with your grader: any inspect scorer grades each reference text and each perturbed copy (or its grades,
    recorded: ``judgments``)."""
    options = DHP_GRADER.arguments("grader", locals())
    dataset, target, input = options["dataset"], options["target"], options["input"]
    arguments = scorer_arguments(options["scorer_args"])
    chosen_dataset = DATASETS[dataset]
    under_test = grader_under_test(options, arguments, judgment_columns("grade", (), dataset, chosen_dataset.kind))
    items, variants, chosen, metadata = paper_dataset_items(
        chosen_dataset, options["data_dir"], options["n"], options["seed"], options["perturbations"], options["suite"]
    )
    criteria = "\n".join(f"{c.title}: {c.definition}" for c in TEXT_KINDS[chosen_dataset.kind].criteria)
    originals = {item.id: item.text for item in items}
    weights = {perturbation.id: {GRADE: 1.0} for perturbation in chosen}
    samples = build_samples(items, variants, chosen, f"grader_{dataset}", weights)
    check_template(str(options["scorer"]), arguments, shared_metadata(samples))

    def scorer_target(state: TaskState) -> Target:
        if target == "criteria":
            return Target(criteria)
        return Target(originals[state.metadata["item_id"]] if target == "reference" else "")

    if isinstance(under_test, RecordedJudgments):
        recorded = under_test.for_items({item.id: item.id for item in items}, "dhp_tasks/grader")
        solver = recorded_judgments(recorded, partial(text_places, {GRADE: None}))
    else:
        solver = grade_submissions(
            _submission, under_test, scorer_target, _context if input == "context" else _no_input
        )
    return discernment_task(
        f"grader_{dataset}",
        items,
        variants,
        chosen,
        solver,
        grader_grades(),
        [GRADE],
        weights,
        options["combine"],
        {
            **metadata,
            "dataset": dataset,
            "kind": chosen_dataset.kind,
            "seed": options["seed"],
            "paradigm": "grader",
            **(
                {"recorded": under_test.metadata()}
                if isinstance(under_test, RecordedJudgments)
                else {"grader": grader_metadata(str(options["scorer"]), arguments)}
            ),
            "target": target,
            "input": input,
        },
        version=DHP_GRADER.version,
        extra_metrics=[scorer_error_count(), grade_consistency([GRADE])],
    )
