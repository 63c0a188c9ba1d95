"""What each inspect model provider can give, told from its name alone (no model is loaded): one place for the
capability checks that task creation, the solvers and the one command's plan make."""

from __future__ import annotations

from judge_data.inspect_private import PrerequisiteError, active_model

NO_LOGPROBS_PROVIDERS = frozenset({"anthropic", "bedrock", "mistral", "mockllm", "none"})
"""inspect providers whose APIs return no log-probabilities: ``scoring=logprobs`` is refused at task creation."""

LIKELIHOOD_PROVIDERS = ("hf", "vllm-completions", "openai-api-completions")
"""Providers whose APIs give prompt log-likelihoods (:data:`solvers.likelihood.SUPPORTED_PROVIDERS` says how)."""

NUM_CHOICES_PROVIDERS = frozenset(
    {
        "openai", "openai-api", "openai-api-completions", "vllm", "vllm-completions", "sglang", "together", "groq",
        "google", "fireworks", "deepseek", "openrouter", "ollama", "llama-cpp-python", "litellm-proxy", "sambanova",
        "moonshot", "meta", "perplexity", "cloudflare", "hf-inference-providers", "sagemaker",
    }
)  # fmt: skip
"""Providers whose inspect API asks for several answers in one call (``num_choices``, OpenAI's ``n``); others
(``hf/``, ``anthropic/``, ...) answer once per call, and the judge solvers ask again for the rest."""


def provider(model: str) -> str:
    """The provider of a model named ``provider/...``."""
    return model.split("/", 1)[0]


def gives_logprobs(model: str) -> bool:
    """Whether a model named ``provider/...`` may return top log-probabilities."""
    return provider(model) not in NO_LOGPROBS_PROVIDERS


def gives_likelihoods(model: str) -> bool:
    """Whether a model named ``provider/...`` can be scored by likelihood: for planning runs before any model
    exists."""
    return provider(model) in LIKELIHOOD_PROVIDERS


def answers_several_choices(model: str) -> bool:
    """Whether a model named ``provider/...`` gives several answers to one request."""
    return provider(model) in NUM_CHOICES_PROVIDERS


def check_logprobs_provider() -> None:
    """At task creation: refuse ``scoring=logprobs`` for a provider known to return no log-probabilities.

    Other providers are checked on their first answer (:func:`solvers.logprobs.generate_with_logprobs`).
    """
    model = active_model()
    if model is not None and not gives_logprobs(str(model)):
        raise PrerequisiteError(no_logprobs_message(str(model)))


def no_logprobs_message(model: str) -> str:
    """What a run asking ``model`` for log-probabilities it does not give is told."""
    return (
        f"scoring=logprobs needs top log-probabilities, but {model} returns none. Use a provider that "
        "returns them (vllm/, openai/, hf/, llama-cpp-python/, or an OpenAI-compatible server that "
        "supports top_logprobs), or scoring=sample."
    )


def check_rating_scoring(scoring: str) -> None:
    """At task creation, with ``scoring="logprobs"``: refuse a provider known to return no log-probabilities (the
    suite definitions check the mode and ``min_mass`` themselves)."""
    if scoring == "logprobs":
        check_logprobs_provider()
