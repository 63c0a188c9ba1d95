"""inspect-ai scorer for likelihood scoring: the judge's normalised log-likelihood of the response as its score."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal, get_args

from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState

from judge_data import OptionError
from scorers.values import as_float
from solvers.likelihood import STORE_KEY

Normalization = Literal["token", "byte"]
NORMALIZATIONS: tuple[Normalization, ...] = get_args(Normalization)
DEFAULT_NORMALIZATION: Normalization = "token"
"""inspect's default: the mean per token, the perplexity of the papers. lm-eval can only do ``byte``: its
``loglikelihood`` requests return the summed log-probability without the number of tokens."""


def check_normalization(normalize: str) -> Normalization:
    """``normalize`` as given, or an :class:`OptionError` naming the choices."""
    if normalize not in NORMALIZATIONS:
        raise OptionError(f"unknown normalize {normalize!r}; choose from {list(NORMALIZATIONS)}")
    return normalize  # type: ignore[return-value]


def normalized_logprob(
    total_logprob: float, normalize: Normalization, *, n_tokens: int | None = None, n_bytes: int | None = None
) -> float:
    """The summed log-likelihood per scored token (``token``) or per UTF-8 byte of the response (``byte``,
    lm-eval's convention, as for its ``bits_per_byte``); NaN when the count is zero.

    Both harnesses call this: inspect with both counts, lm-eval (which never learns the token count) with the
    bytes only."""
    count = {"token": n_tokens, "byte": n_bytes}[normalize]
    if count is None:
        raise ValueError(f"normalize={normalize} needs the {'n_tokens' if normalize == 'token' else 'n_bytes'} count")
    return total_logprob / count if count else math.nan


@scorer(metrics=[])
def likelihood_scores(names: Sequence[str], normalize: Normalization = DEFAULT_NORMALIZATION) -> Scorer:
    """Score a sample by the normalised log-likelihood that ``score_likelihood`` stored, under every name.

    Numbers only, like the rating scorers, so epochs reduce key by key: per name the score,
    ``answers/<name>`` (1) and ``parse_failures/<name>``, and ``parse_failures`` for the sample (one
    likelihood is computed, whatever the number of names). A response with no scorable token is NaN and
    counts as a failure. The score's metadata says which normalisation and holds both counts.
    """
    check_normalization(normalize)

    async def score(state: TaskState, target: Target) -> Score:
        likelihood = state.store.get(STORE_KEY) or {}
        n_tokens, n_bytes = likelihood.get("n_tokens") or 0, likelihood.get("n_bytes") or 0
        total = as_float(likelihood.get("total_logprob"))
        value = normalized_logprob(total, normalize, n_tokens=n_tokens, n_bytes=n_bytes) if n_tokens else math.nan
        return Score(
            value=likelihood_value(names, value),
            answer=state.output.completion,
            metadata={
                "normalize": normalize,
                "total_logprob": total,
                "n_tokens": n_tokens,
                "n_bytes": n_bytes,
                "truncated": likelihood.get("truncated_context_tokens"),
            },
        )

    return score


def likelihood_value(names: Sequence[str], logprob: float) -> dict[str, float]:
    """A sample's score value from its normalised log-likelihood (NaN: nothing scorable, counted as a failure)."""
    failed = float(math.isnan(logprob))
    value = {name: logprob for name in names}
    for name in names:
        value[f"answers/{name}"] = 1.0
        value[f"parse_failures/{name}"] = failed
    value["parse_failures"] = failed
    return value
