"""A test-only task for ``inspect eval tests/support/likelihood_task.py@likelihood_check``: likelihood scoring end to end."""

from inspect_ai import Task, task
from inspect_ai.dataset import Sample
from inspect_ai.scorer import Score, Target, mean, scorer
from inspect_ai.solver import TaskState

from solvers.likelihood import STORE_KEY, score_likelihood

SAMPLES = [
    {"id": "with-context", "context": "Tom ran.", "response": "He fell down."},
    {"id": "no-context", "context": None, "response": "He fell down."},
]


@scorer(metrics=[mean()])
def stored_likelihood():
    async def score(state: TaskState, target: Target) -> Score:
        return Score(value=state.store.get(STORE_KEY)["mean_logprob"])

    return score


@task
def likelihood_check() -> Task:
    return Task(
        dataset=[Sample(id=row["id"], input=row["response"], metadata=row) for row in SAMPLES],
        solver=score_likelihood(),
        scorer=stored_likelihood(),
    )
