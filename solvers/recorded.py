"""Recorded judgments in place of the judge (``-T judgments=``): the solver puts each sample's recorded answers and
values where the suite's scorer reads them, and calls no model.

The scorer reads them as it reads a live judge's answers (:mod:`solvers.reading.recorded`): an answer against the
prompt the suite would have sent, which this solver stores as a live solver does, a value on the task's scale.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from inspect_ai.model import ModelOutput
from inspect_ai.solver import Generate, Solver, TaskState, solver

from judge_data.recorded import Place, RecordedJudgments
from solvers.judge import PROMPTS_STORE_KEY
from solvers.reading.recorded import shown

RECORDED_STORE_KEY = "recorded_judgments"
"""Where :func:`recorded_judgments` leaves ``{judgment name: {"row", "answer"} or {"row", "value"}, or None}``: every
judgment the task makes of the sample, ``None`` where the file has no row for it (counted as unanswered)."""

RECORDED_MODEL = "recorded"
"""The model name of the sample's output: no model answered."""


@solver
def recorded_judgments(
    judgments: RecordedJudgments,
    places: Callable[[TaskState], Mapping[str, Place]],
    prompts: Callable[[TaskState], Mapping[str, str]] | None = None,
) -> Solver:
    """Store the recorded judgment of each named judgment of the sample (``places``: name -> where it is in the file),
    and, for those recorded as raw answers, the prompt each answers (``prompts``: name -> the prompt the suite would
    have sent), under the store key the suite's live solver uses for its prompts."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        found = {name: judgments.get(*place) for name, place in places(state).items()}
        stored = {name: None if judgment is None else judgment.stored() for name, judgment in found.items()}
        state.store.set(RECORDED_STORE_KEY, stored)
        answered = [name for name, judgment in found.items() if judgment is not None and judgment.answer is not None]
        if prompts is not None and answered:
            asked = prompts(state)
            state.store.set(PROMPTS_STORE_KEY, {name: asked[name] for name in answered})
        text = "\n".join(
            f"[{name}] {'no recorded judgment' if judgment is None else shown(judgment)}"
            for name, judgment in stored.items()
        )
        state.output = ModelOutput.from_content(model=RECORDED_MODEL, content=text)
        return state

    return solve
