"""FBI's lm-eval hooks: its options, documents, judge prompts and blind-spot metrics.

The explanation check, a run of its own on an earlier judge run's answers, is in :mod:`lm_eval_tasks.explanations`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from fbi_tasks.definition import FBI
from fbi_tasks.fbi import fbi_task, judge_prompts
from fbi_tasks.prompts import judged_strategy
from lm_eval_tasks import JUDGMENTS_OPTION, explanations
from lm_eval_tasks.documents import (
    SampleAnswers,
    SuiteHooks,
    doc_metadata,
    doc_settings,
    documents,
    task_metadata,
    warn_on_unparsed,
)
from lm_eval_tasks.tasks import EXPLANATIONS, TASKS, LmEvalTask
from scorers.fbi import EXPLANATION_KEYS, blind_spot_metrics, judgments

OPTIONS = FBI.lm_eval_defaults("single")
"""The options of the judge tasks, with their defaults (FBI has no ``custom`` task; the pairwise tasks leave
``scale`` unused)."""


def build_documents(task: LmEvalTask, options: dict[str, Any]) -> list[dict[str, str]]:
    """One document per judge prompt of every item (gold and perturbed, or both orders of a pair), or, in the
    explanation check, per judgment to check."""
    if task.variant == EXPLANATIONS:
        return explanations.explanation_documents(options[JUDGMENTS_OPTION])
    paradigm: Any
    paradigm, strategy_name = task.variant.split("/")
    chosen = {
        **options,
        "strategy": strategy_name,
        "seed": int(options["seed"]),
        "include_extra": bool(options["include_extra"]),
        "keep_identical": bool(options["keep_identical"]),
        "temperature": 0.0,
    }
    built = fbi_task(paradigm, FBI.arguments(paradigm, chosen))
    settings = {
        "task": task.name,
        "paradigm": paradigm,
        "strategy": strategy_name,
        "scale": task_metadata(built)["scale"],
        "answer_format": task_metadata(built)["answer_format"],
    }
    samples = list(built.dataset)
    first = (samples[0].metadata or {}) if samples else None
    strategy, scale = judged_strategy(settings)
    names = list(judge_prompts(strategy, scale, first)) if first is not None else []
    return documents(samples, names, settings)


def fbi_prompt(doc: Mapping[str, str]) -> str:
    """One of an item's FBI prompts (gold / perturbed, or the two orders of a pair)."""
    settings = doc_settings(doc)
    strategy, scale = judged_strategy(settings)
    prompts = judge_prompts(strategy, scale, doc_metadata(doc), answer_format=settings["answer_format"])
    return prompts[doc["prompt"]]


def answered_prompt(doc: Mapping[str, str]) -> str:
    """The prompt the judge answered, or in the explanation check the checker."""
    if TASKS[doc_settings(doc)["task"]].variant == EXPLANATIONS:
        return explanations.explanation_check(doc)
    return fbi_prompt(doc)


def metrics(settings: Mapping[str, Any], samples: Sequence[SampleAnswers]) -> dict[str, float]:
    """The blind-spot metrics from the judge's first answer to each prompt, or the explanation check's."""
    if TASKS[settings["task"]].variant == EXPLANATIONS:
        return explanations.metrics(settings, samples)
    paradigm, (_, scale) = settings["paradigm"], judged_strategy(settings)
    values, read = [], []
    for meta, answers, prompts in samples:
        first = {name: texts[0] for name, texts in answers.items()}
        value, parsed = judgments(paradigm, first, scale, meta["invariant"], None, prompts, settings["answer_format"])
        values.append((meta, {**value, **dict.fromkeys(EXPLANATION_KEYS, math.nan)}))
        read += [(text, None if name in parsed["unparsed"] else text) for name, text in first.items()]
    warn_on_unparsed(settings, read)
    return blind_spot_metrics(paradigm, values)


HOOKS = SuiteHooks(OPTIONS, {}, build_documents, answered_prompt, metrics)
"""FBI's part of the hooks."""
