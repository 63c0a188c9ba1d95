"""Every name this project takes from inspect-ai's private modules, in one place.

inspect-ai does not export these from its public API, and its private layout may change with any release: an
upgrade that moves one of them breaks here, in one import, and nowhere else. Import them from this module only.
"""

from __future__ import annotations

import sys
from typing import Any

from inspect_ai._eval.loader import scorer_from_spec
from inspect_ai._util.config import parse_cli_args
from inspect_ai._util.error import PrerequisiteError
from inspect_ai._util.registry import registry_lookup, registry_params
from inspect_ai.model._model import active_model
from inspect_ai.model._providers.openai_compatible import OpenAICompatibleAPI
from inspect_ai.model._providers.openai_compatible_completions import OpenAICompatibleCompletionsAPI
from inspect_ai.model._providers.vllm import VLLMAPI
from inspect_ai.model._providers.vllm_completions import VLLMCompletionsAPI
from inspect_ai.scorer._scorer import ScorerSpec

__all__ = [
    "VLLMAPI",
    "OpenAICompatibleAPI",
    "OpenAICompatibleCompletionsAPI",
    "PrerequisiteError",
    "ScorerSpec",
    "VLLMCompletionsAPI",
    "active_model",
    "batch_providers",
    "is_hf_api",
    "parse_cli_args",
    "registry_lookup",
    "registry_params",
    "scorer_from_spec",
]

_HF_MODULE = "inspect_ai.model._providers.hf"


def batch_providers() -> frozenset[str]:
    """The providers whose inspect API can send requests through the provider's batch API (``--batch``): those
    inspect ships a batcher module for, ``inspect_ai/model/_providers/_<provider>_batch.py``."""
    import pkgutil

    from inspect_ai.model import _providers

    names = (module.name for module in pkgutil.iter_modules(_providers.__path__))
    return frozenset(name[1 : -len("_batch")] for name in names if name.startswith("_") and name.endswith("_batch"))


def is_hf_api(api: Any) -> bool:
    """Whether ``api`` is inspect's ``hf/`` provider; its module imports torch and transformers, so it is only
    looked at when an ``hf/`` model has already loaded it."""
    if _HF_MODULE not in sys.modules:
        return False
    from inspect_ai.model._providers.hf import HuggingFaceAPI

    return isinstance(api, HuggingFaceAPI)
