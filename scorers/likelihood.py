"""inspect-ai scorer for likelihood scoring: the judge's mean token log-likelihood of the response as its score."""

from __future__ import annotations

import math
from collections.abc import Sequence

from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState

from scorers.values import as_float
from solvers.likelihood import STORE_KEY


@scorer(metrics=[])
def likelihood_scores(names: Sequence[str]) -> Scorer:
    """Score a sample by the mean token log-likelihood that ``score_likelihood`` stored, under every name.

    Numbers only, like the rating scorers, so epochs reduce key by key: per name the score,
    ``answers/<name>`` (1) and ``parse_failures/<name>``, and ``parse_failures`` for the sample (one
    likelihood is computed, whatever the number of names). A response with no scorable token is NaN and
    counts as a failure.
    """

    async def score(state: TaskState, target: Target) -> Score:
        likelihood = state.store.get(STORE_KEY) or {}
        return Score(
            value=likelihood_value(names, as_float(likelihood.get("mean_logprob"))),
            answer=state.output.completion,
            metadata={"n_tokens": likelihood.get("n_tokens"), "truncated": likelihood.get("truncated_context_tokens")},
        )

    return score


def likelihood_value(names: Sequence[str], mean_logprob: float) -> dict[str, float]:
    """A sample's score value from its likelihood score (NaN: nothing scorable, counted as a failure)."""
    failed = float(math.isnan(mean_logprob))
    value = {name: mean_logprob for name in names}
    for name in names:
        value[f"answers/{name}"] = 1.0
        value[f"parse_failures/{name}"] = failed
    value["parse_failures"] = failed
    return value
