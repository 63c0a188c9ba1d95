"""The table of lm-eval tasks: one per suite, dataset and prompt-changing option, with the metrics each reports.

The committed YAML files are generated from this table (``python -m lm_eval_tasks.generate``), and the hook
functions in ``utils.py`` read it back, so a task's name, its data and its metric list have one source.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from adherence_tasks.data import DATASETS as ADHERENCE_DATASETS
from adherence_tasks.data import criteria_file
from adherence_tasks.definition import ADHERENCE
from adherence_tasks.prompts import PERPLEXITY_SETTING, SETTINGS
from coeval_tasks.data import DATASETS as COEVAL_DATASETS
from coeval_tasks.definition import COEVAL_CRITERIA, COEVAL_SCORING
from dhp_tasks.data import DATASETS as DHP_DATASETS
from dhp_tasks.definition import DHP
from dhp_tasks.dhp import LIKELIHOOD
from dhp_tasks.prompts import TEXT_KINDS
from dhp_tasks.suite import all_perturbations
from fbi_tasks.data import ABILITIES, CATEGORIES, SCORE_INVARIANT
from fbi_tasks.definition import FBI
from fbi_tasks.prompts import STRATEGIES
from judge_data.human import GROUPS
from scorers.agreement import ALPHA_ANNOTATORS, ALPHA_WITH_JUDGE, pair_alpha_name, rater_pairs
from scorers.coeval import OVERALL
from scorers.criteria_consistency import VALUE_KEYS as CRITERIA_LIST_KEYS
from scorers.discernment import interval_names
from scorers.fbi import OUTCOME_METRICS
from scorers.likelihood import Normalization
from scorers.values import JSON_FALLBACKS

Suite = Literal["dhp", "fbi", "adherence", "coeval"]

ADHERENCE_SETTINGS = (PERPLEXITY_SETTING, *SETTINGS)
"""The adherence tasks per dataset: the likelihood one (inspect's ``scoring=perplexity``) and each prompted
setting."""
OutputType = Literal["generate_until", "loglikelihood"]


@dataclass(frozen=True)
class LmEvalTask:
    """One lm-eval task: which suite builds its documents, on which dataset, in which variant."""

    name: str
    suite: Suite
    dataset: str
    variant: str
    """Which of the suite's kinds of task on the dataset this is (the option that changes the prompts, or what is
    asked): DHP: the scoring, ``sample`` or ``perplexity``; FBI: ``<paradigm>/<strategy>``, or ``explanations``
    (the explanation check); adherence: the setting (``generic``, ``criterion``, ``rubric``) or ``perplexity``;
    CoEval: ``criteria`` (criteria generation) or the scoring mode (``direct``)."""
    version: int
    metrics: tuple[str, ...]
    """The metrics the YAML file lists. A ``custom`` task lists those every dataset has; the ones its data
    names (per perturbation, criterion, group, annotator) are added when its documents are built."""
    group: str | None
    """The lm-eval group the task is in; None for tasks that need the user's files (``custom``, explanations)."""

    @property
    def output_type(self) -> OutputType:
        """lm-eval's request type: log-likelihoods for the perplexity tasks, generations otherwise."""
        return "loglikelihood" if self.variant == "perplexity" else "generate_until"


LM_EVAL_SCORINGS = ("sample", "perplexity")
"""DHP scoring modes lm-eval can run: sampled ratings and native loglikelihood requests. ``logprobs`` needs
the top log-probabilities of generated tokens, which lm-eval's generate_until requests do not return."""


LIKELIHOOD_NORMALIZATION: Normalization = "byte"
"""How the ``*_perplexity`` tasks normalise the continuation's summed log-likelihood: per UTF-8 byte of the response.
lm-eval's ``loglikelihood`` requests return the sum without the number of tokens, so per byte is the only
normalisation it can compute; inspect's tasks give the same numbers with ``-T normalize=byte``."""


CUSTOM = "custom"
"""The dataset of the tasks on the user's own data (the inspect ``custom`` tasks)."""

EXPLANATIONS = "explanations"
"""The variant of the FBI task that checks the explanations of an earlier run's judgments."""


def dhp_metric_names(scoring: str, perturbations: Sequence[str], criteria: Sequence[str]) -> tuple[str, ...]:
    """What a DHP task reports for these perturbation ids and (with ``scoring="sample"``) quality metrics."""
    if scoring == "perplexity":
        metric_names = [LIKELIHOOD]
        summaries, counts = ["D_avg", "D_min"], ["n_undefined"]
        per_perturbation = [f"D/{p}" for p in perturbations]
    else:
        metric_names = list(criteria)
        summaries, counts = ["D_avg", "D_min", "D_avg_EW", "D_min_EW"], ["n_undefined", "n_undefined_EW"]
        per_perturbation = [f"{d}/{p}" for p in perturbations for d in ("D", "D_EW")]
    bounds = [bound for name in (*summaries, *per_perturbation) for bound in interval_names(name)]
    failures = [f"{kind}/{name}" for name in metric_names for kind in ("parse_failures", "parse_failure_rate")]
    answers = [] if scoring == "perplexity" else [JSON_FALLBACKS]
    return (
        *summaries, *counts, *per_perturbation, *bounds, *answers, "parse_failures", "parse_failure_rate", *failures,
    )  # fmt: skip


def _rate_names(prefix: str) -> list[str]:
    return [prefix, f"{prefix}_ci_low", f"{prefix}_ci_high"]


def _fbi_metrics(paradigm: str) -> tuple[str, ...]:
    names = [*_rate_names("error_rate"), *_rate_names("si_error_rate")]
    names += [f"error_rate/{ability}" for ability in ABILITIES]
    names += [f"error_rate/{c.ability}/{c.id}" for c in CATEGORIES if c.ability != SCORE_INVARIANT]
    if paradigm == "pairwise":
        names += [f"{prefix}{name}" for prefix in ("", "si_") for name in OUTCOME_METRICS.values()]
        names += ["flip_rate_ci_low", "flip_rate_ci_high", "first_position_rate", "tie_rate"]
        names += [*_rate_names("error_rate_gold_first"), *_rate_names("error_rate_gold_second")]
    return (*names, JSON_FALLBACKS, "parse_failures")


def adherence_criteria(dataset: str) -> list[dict]:
    """The packaged criteria of an adherence dataset (name, group, ...), in file order."""
    return json.loads(criteria_file(dataset).read_text(encoding="utf-8"))["criteria"]


def adherence_metric_names(criteria: Sequence[tuple[str, str]], setting: str) -> tuple[str, ...]:
    """What an adherence task reports for these ``(name, group)`` criteria under a setting."""
    groups = [group for group in GROUPS if any(criterion_group == group for _, criterion_group in criteria)]
    names = ["pearson", "pearson_ci_low", "pearson_ci_high", *(f"pearson/group/{group}" for group in groups)]
    names += ["undefined", *([] if setting == PERPLEXITY_SETTING else [JSON_FALLBACKS]), "parse_failures"]
    names += ["system_tau", "system_tau_ci_low", "system_tau_ci_high", "n_systems"]
    for name, _ in criteria:
        names += [f"{method}/{name}" for method in ("pearson", "spearman", "kendall")]
        names += [f"pearson_ci_low/{name}", f"pearson_ci_high/{name}", f"n/{name}", f"system_tau/{name}"]
    return tuple(names)


LM_EVAL_COEVAL_MODES = ("direct",)
"""CoEval scoring modes lm-eval can run. ``step_by_step`` is inspect-only: each of its questions carries the
judge's own earlier answers, and lm-eval 0.4.13 builds every request of a task before it calls the model once
per request type, so no request can hold another's answer. Independent per-criterion prompts would be a
different protocol, so they are not offered under that name."""


def coeval_metric_names(annotator_ids: Sequence[str]) -> tuple[str, ...]:
    """What a CoEval direct-scoring task reports for data scored by these annotators."""
    correlations = [f"{name}/{OVERALL}" for method in ("pearson", "spearman") for name in _rate_names(method)]
    annotator_pairs = [pair_alpha_name(*pair) for pair in rater_pairs(annotator_ids, with_judge=False)]
    annotators = [ALPHA_ANNOTATORS, *interval_names(ALPHA_ANNOTATORS)]
    names = [*correlations, f"n/{OVERALL}", *annotators, "pearson/annotator_pairs", *annotator_pairs]
    with_judge = [*annotators, "pearson/annotator_pairs", ALPHA_WITH_JUDGE, *interval_names(ALPHA_WITH_JUDGE)]
    with_judge += [f"pearson/annotator/{annotator}" for annotator in annotator_ids]
    with_judge += ["pearson/judge_vs_annotators"]
    with_judge += [pair_alpha_name(*pair) for pair in rater_pairs(annotator_ids, with_judge=True)]
    names += [f"{name}/{OVERALL}" for name in with_judge]
    return (*names, JSON_FALLBACKS, "parse_failures")


def _explanation_metric_names() -> tuple[str, ...]:
    names = ["explanation_caught_rate", *(f"explanation_caught_rate/{a}" for a in ABILITIES if a != SCORE_INVARIANT)]
    names += [f"explanation_caught_rate/{c.ability}/{c.id}" for c in CATEGORIES if c.ability != SCORE_INVARIANT]
    return (*names, JSON_FALLBACKS, "explanation_unparsed")


def _custom_tasks() -> list[LmEvalTask]:
    """The tasks on the user's data, listing the metrics that exist for any data (empty perturbations,
    criteria and annotators name none of the others), and FBI's explanation check of an earlier run."""
    tasks = [
        LmEvalTask(
            f"dhp_{CUSTOM}" + ("" if scoring == "sample" else f"_{scoring}"),
            "dhp",
            CUSTOM,
            scoring,
            DHP.version,
            dhp_metric_names(scoring, (), ()),
            None,
        )
        for scoring in LM_EVAL_SCORINGS
    ]
    tasks += [
        LmEvalTask(
            f"adherence_{CUSTOM}_{setting}",
            "adherence",
            CUSTOM,
            setting,
            ADHERENCE.version,
            adherence_metric_names((), setting),
            None,
        )
        for setting in ADHERENCE_SETTINGS
    ]
    tasks += [
        LmEvalTask(
            f"coeval_{CUSTOM}_{mode}", "coeval", CUSTOM, mode, COEVAL_SCORING.version, coeval_metric_names(()), None
        )
        for mode in LM_EVAL_COEVAL_MODES
    ]
    metrics = _explanation_metric_names()
    tasks.append(LmEvalTask(f"fbi_{EXPLANATIONS}", "fbi", "fbi", EXPLANATIONS, FBI.version, metrics, None))
    return tasks


def _build_table() -> dict[str, LmEvalTask]:
    tasks: list[LmEvalTask] = []
    for dataset in DHP_DATASETS:
        perturbations = [p.id for p in all_perturbations(dataset)]
        criteria = [criterion.name for criterion in TEXT_KINDS[DHP_DATASETS[dataset].kind].criteria]
        for scoring in LM_EVAL_SCORINGS:
            suffix = "" if scoring == "sample" else f"_{scoring}"
            group = "dhp" if scoring == "sample" else f"dhp_{scoring}"
            metrics = dhp_metric_names(scoring, perturbations, criteria)
            tasks.append(LmEvalTask(f"dhp_{dataset}{suffix}", "dhp", dataset, scoring, DHP.version, metrics, group))
    for paradigm, strategies in STRATEGIES.items():
        for strategy in strategies:
            name = (
                f"fbi_{paradigm}" if strategy == paradigm else f"fbi_{paradigm}_{strategy.removeprefix(paradigm + '_')}"
            )
            metrics = _fbi_metrics(paradigm)
            tasks.append(LmEvalTask(name, "fbi", "fbi", f"{paradigm}/{strategy}", FBI.version, metrics, "fbi"))
    for human_scored in ADHERENCE_DATASETS.values():
        if not human_scored.has_public_scores:
            continue
        for setting in ADHERENCE_SETTINGS:
            group = "adherence_perplexity" if setting == PERPLEXITY_SETTING else "adherence"
            named = [(c["name"], c["group"]) for c in adherence_criteria(human_scored.name)]
            metrics = adherence_metric_names(named, setting)
            name = f"adherence_{human_scored.name}_{setting}"
            tasks.append(LmEvalTask(name, "adherence", human_scored.name, setting, ADHERENCE.version, metrics, group))
    for dataset in COEVAL_DATASETS:
        metrics = CRITERIA_LIST_KEYS
        tasks.append(
            LmEvalTask(
                f"coeval_criteria_{dataset}", "coeval", dataset, "criteria", COEVAL_CRITERIA.version, metrics, "coeval"
            )
        )
    for dataset in COEVAL_DATASETS:
        for mode in LM_EVAL_COEVAL_MODES:
            metrics = coeval_metric_names(COEVAL_DATASETS[dataset].annotator_ids)
            tasks.append(
                LmEvalTask(
                    f"coeval_{dataset}_{mode}", "coeval", dataset, mode, COEVAL_SCORING.version, metrics, "coeval"
                )
            )
    tasks += _custom_tasks()
    return {task.name: task for task in tasks}


TASKS: dict[str, LmEvalTask] = _build_table()


def aggregation_name(metric: str) -> str:
    """The name of the ``utils.py`` aggregation that reports ``metric`` (a Python identifier)."""
    return "agg_" + re.sub(r"[^0-9A-Za-z_]", "_", metric.replace("/", "__"))
