"""DHP's lm-eval hooks: its options, documents, G-Eval prompts and discernment metrics."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from dhp_tasks.data import DATASETS
from dhp_tasks.definition import DHP
from dhp_tasks.dhp import custom, paper_dataset_task
from dhp_tasks.prompts import TEXT_KINDS
from lm_eval_tasks.documents import (
    LIKELIHOOD_PROMPT,
    METRIC_NAMES,
    SampleAnswers,
    SuiteHooks,
    as_int,
    doc_metadata,
    doc_settings,
    documents,
    task_metadata,
    warn_on_unparsed,
)
from lm_eval_tasks.tasks import CUSTOM, TASKS, LmEvalTask, dhp_metric_names
from scorers.dhp import discernment_metrics, rating_value
from scorers.likelihood import likelihood_value

logger = logging.getLogger(__name__)

OPTIONS = DHP.lm_eval_defaults("paper")
"""The options of the tasks on a paper dataset, with their defaults."""

CUSTOM_OPTIONS = DHP.lm_eval_defaults("custom")
"""The options of the ``custom`` tasks, with their defaults."""


def build_documents(task: LmEvalTask, options: dict[str, Any]) -> list[dict[str, str]]:
    """One document per quality metric of every text (gold and perturbed) the inspect task rates."""
    lm_eval_settings: dict[str, Any] = {
        "n": as_int(options["n"]),
        "seed": int(options["seed"]),
        "repeats": 1,
        "temperature": 0.0,
    }
    lm_eval_settings["scoring"] = task.variant
    if task.dataset == CUSTOM:
        built = custom(**DHP.arguments("custom", {**options, **lm_eval_settings}))
    else:
        built = paper_dataset_task(DATASETS[task.dataset], DHP.arguments("paper", {**options, **lm_eval_settings}))
    meta = task_metadata(built)
    kind = TEXT_KINDS[meta["kind"]]
    settings = {
        "task": task.name,
        "kind": kind.name,
        "metrics": meta["metrics"],
        "combine": meta["combine"],
        "low": kind.prompt.low,
        "high": kind.prompt.high,
        "answer_format": meta.get("answer_format", "text"),
    }
    if task.dataset == CUSTOM:
        criteria = [] if task.variant == "perplexity" else meta["metrics"]
        settings[METRIC_NAMES] = dhp_metric_names(task.variant, list(meta["perturbations"]), criteria)
    return documents(built.dataset, meta["metrics"], settings)


def dhp_prompt(doc: Mapping[str, str]) -> str:
    """The G-Eval prompt for one metric of one text (``JudgePrompt.render``, as the inspect solver renders it)."""
    settings = doc_settings(doc)
    meta, kind = doc_metadata(doc), TEXT_KINDS[settings["kind"]]
    criterion = next(criterion for criterion in kind.criteria if criterion.name == doc["prompt"])
    return kind.prompt.render(criterion, meta["response"], meta.get("context"), settings["answer_format"])


def metrics(settings: Mapping[str, Any], samples: Sequence[SampleAnswers]) -> dict[str, float]:
    """The discernment metrics, from the ratings (or the likelihoods) of every text."""
    names = settings["metrics"]
    if TASKS[settings["task"]].variant == "perplexity":
        values = [(meta, likelihood_value(names, answers[LIKELIHOOD_PROMPT])) for meta, answers, _ in samples]
    else:
        low, high, answer_format = settings["low"], settings["high"], settings["answer_format"]
        values, read = [], []
        for meta, answers, prompts in samples:
            value, ratings = rating_value(answers, low, high, prompts, answer_format)
            values.append((meta, value))
            read += [
                pair for rating in ratings.values() for pair in zip(rating["answers"], rating["scores"], strict=True)
            ]
        warn_on_unparsed(settings, read)
    report, notes = discernment_metrics(values, names, combine=settings["combine"])
    for note in notes:
        logger.warning("%s: %s", settings["task"], note)
    return report


HOOKS = SuiteHooks(OPTIONS, CUSTOM_OPTIONS, build_documents, dhp_prompt, metrics)
"""DHP's part of the hooks."""
