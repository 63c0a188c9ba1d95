"""DHP (Discernment of Hierarchical Perturbation) tasks for inspect-ai.

Wang et al., "DHP Benchmark: Are LLMs Good NLG Evaluators?", NAACL Findings 2025. A judge rates good
reference texts and perturbed copies of them, G-Eval style, on each quality metric; the discernment
score says how significantly it rates the perturbed copies lower.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any, Literal, get_args

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.scorer import Scorer
from inspect_ai.solver import Solver

from dhp_tasks.datasets import DATASETS, DhpDataset, load_pool, select_items
from dhp_tasks.perturbations import (
    KIND_PERTURBATIONS,
    PERTURBATIONS,
    Item,
    Perturbation,
    select_perturbations,
)
from dhp_tasks.prompts import TEXT_KINDS, TextKind
from dhp_tasks.suite import all_perturbations, read_suite, rule_variants
from judge_data import DataError, OptionError, id_field, names_option, optional_text_field, read_jsonl, text_field
from judge_data.options import check_at_least
from scorers.answer_parsing import AnswerFormat
from scorers.dhp import dhp_discernment, mean_ratings
from scorers.discernment import Combination
from scorers.likelihood import DEFAULT_NORMALIZATION, Normalization, check_normalization, likelihood_scores
from solvers.answer_format import check_answer_format
from solvers.geval import Criterion, rate_criteria
from solvers.likelihood import score_likelihood
from solvers.logprob_scoring import DEFAULT_MIN_MASS, check_rating_scoring

logger = logging.getLogger(__name__)

Scoring = Literal["sample", "logprobs", "perplexity"]
SCORINGS: tuple[Scoring, ...] = ("sample", "logprobs", "perplexity")
LIKELIHOOD = "likelihood"
"""The one "metric" of ``scoring=perplexity``: the judge's log-likelihood of the text, per token or per byte."""

DEFAULT_EXPERT_WEIGHTS = "expert_weights.json"

DHP_TASK_VERSION = 3
"""inspect's task version of every DHP task, also in the task metadata. Bump it whenever prompts, answer
parsing or statistics change, so that results computed differently are never compared silently.

1: answers parsed in the scorer; D is NaN (not 0) without pairs; metrics without pairs are left out
of the p-value combination; parse-failure counts and rates live in the score value.
3: answers read against their prompt (copied instructions are told from the judge's statements) with the rules
designed on real judges' answers; ``answer_format=json``."""

ALL_PERTURBATIONS = "all"


def load_expert_weights(
    kind: TextKind, perturbations: Sequence[Perturbation], path: str | Path | None = None
) -> dict[str, dict[str, float]]:
    """Weights per perturbation id for this kind of text, from ``path`` or the bundled default table.

    The file maps kind -> perturbation family (or full id, which wins) -> metric -> votes.
    """
    if path is None:
        source = f"dhp_tasks/{DEFAULT_EXPERT_WEIGHTS}"
        table = json.loads(resources.files("dhp_tasks").joinpath(DEFAULT_EXPERT_WEIGHTS).read_text(encoding="utf-8"))
    else:
        source = str(path)
        try:
            table = json.loads(Path(path).expanduser().read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as error:
            raise DataError(f"expert weights file {source}: {error}") from error
    kind_table = table.get(kind.name) if isinstance(table, Mapping) else None
    if not isinstance(kind_table, Mapping):
        raise DataError(f"expert weights file {source}: no table for kind of text {kind.name!r}")
    metric_names = [criterion.name for criterion in kind.criteria]
    weights: dict[str, dict[str, float]] = {}
    for perturbation in perturbations:
        entry_name = perturbation.id if perturbation.id in kind_table else perturbation.family
        entry = kind_table.get(entry_name)
        if not isinstance(entry, Mapping):
            raise DataError(
                f"expert weights file {source}: {kind.name} has no weights for {perturbation.id!r} "
                f"(or its family {perturbation.family!r})"
            )
        unknown = set(entry) - set(metric_names)
        if unknown:
            raise DataError(
                f"expert weights file {source}: {kind.name}.{entry_name}: unknown metric(s) {sorted(unknown)}"
            )
        for name, votes in entry.items():
            if isinstance(votes, bool) or not isinstance(votes, (int, float)) or not 0 <= votes < float("inf"):
                raise DataError(
                    f"expert weights file {source}: {kind.name}.{entry_name}.{name}: "
                    f"weights must be non-negative numbers, got {votes!r}"
                )
        weights[perturbation.id] = {name: float(entry.get(name, 0.0)) for name in metric_names}
    return weights


def build_samples(
    items: Sequence[Item],
    variants: Mapping[str, Mapping[str, str]],
    perturbations: Sequence[Perturbation],
    dataset: str,
) -> list[Sample]:
    """The original and every available perturbed variant of each item, item by item.

    Keeping an item's variants together lets engines with prefix caching reuse its context.
    """
    samples: list[Sample] = []
    for item in items:
        samples.append(_sample(item, item.text, None, dataset))
        samples.extend(
            _sample(item, variants[item.id][perturbation.id], perturbation, dataset)
            for perturbation in perturbations
            if perturbation.id in variants.get(item.id, {})
        )
    return samples


def _sample(item: Item, text: str, perturbation: Perturbation | None, dataset: str) -> Sample:
    variant = "original" if perturbation is None else perturbation.id
    return Sample(
        id=f"{item.id}:{variant}",
        input=text,
        metadata={
            "dataset": dataset,
            "item_id": item.id,
            "perturbation": variant,
            "level": None if perturbation is None else perturbation.level,
            "degree": None if perturbation is None else perturbation.degree,
            "method": None if perturbation is None else perturbation.method,
            "k": None if perturbation is None else perturbation.k,
            "context": item.context,
            "response": text,
        },
    )


def dhp_task(
    name: str,
    kind: TextKind,
    items: Sequence[Item],
    variants: Mapping[str, Mapping[str, str]],
    chosen: Sequence[Perturbation],
    *,
    metrics: Sequence[str] | None = None,
    seed: int,
    repeats: int,
    temperature: float,
    expert_weights: str | None,
    combine: Combination,
    metadata: Mapping[str, Any],
    scoring: Scoring = "sample",
    min_mass: float = DEFAULT_MIN_MASS,
    normalize: Normalization = DEFAULT_NORMALIZATION,
    answer_format: AnswerFormat = "text",
) -> Task:
    """Assemble a DHP task from items and their variants: samples, the judge, the discernment metric.

    ``scoring="sample"`` rates each text with G-Eval prompts per metric, ``repeats`` answers averaged;
    ``scoring="logprobs"`` asks the same prompts once and takes the expected rating over the top
    log-probabilities of the answer (a parse failure below ``min_mass``); ``scoring="perplexity"``
    scores it by the judge's log-likelihood given its context, with no prompt, divided by the scored tokens
    or (``normalize="byte"``, lm-eval's convention) by the text's UTF-8 bytes (one "metric",
    ``likelihood``; expert weights do not apply). ``answer_format="json"`` asks for the rating as a JSON object
    (sampled ratings only).
    """
    if scoring == "perplexity":
        return _task(
            name,
            items,
            variants,
            chosen,
            score_likelihood(),
            likelihood_scores([LIKELIHOOD], normalize),
            [LIKELIHOOD],
            {p.id: {LIKELIHOOD: 1.0} for p in chosen},
            combine,
            {**metadata, "kind": kind.name, "seed": seed, "scoring": scoring, "normalize": normalize},
        )
    criteria = chosen_criteria(kind, metrics)
    metric_names = [criterion.name for criterion in criteria]
    weights = load_expert_weights(kind, chosen, expert_weights)
    weights = {pid: {m: w for m, w in entry.items() if m in metric_names} for pid, entry in weights.items()}
    unweighted = sorted(pid for pid, entry in weights.items() if sum(entry.values()) <= 0)
    if unweighted:
        raise OptionError(
            f"the expert weights of {unweighted} give no weight to the chosen metrics {metric_names}; "
            "choose other metrics or pass -T expert_weights=<file>"
        )
    return _task(
        name,
        items,
        variants,
        chosen,
        rate_criteria(
            kind.prompt,
            criteria,
            repeats=repeats,
            temperature=temperature,
            scoring=scoring,
            answer_format=answer_format,
        ),
        mean_ratings(min_mass, answer_format),
        metric_names,
        weights,
        combine,
        {
            **metadata,
            "kind": kind.name,
            "seed": seed,
            "scoring": scoring,
            "answer_format": answer_format,
            "repeats": 1 if scoring == "logprobs" else repeats,
            "temperature": temperature,
            **({"min_mass": min_mass} if scoring == "logprobs" else {}),
        },
    )


def _task(
    name: str,
    items: Sequence[Item],
    variants: Mapping[str, Mapping[str, str]],
    chosen: Sequence[Perturbation],
    solver: Solver,
    scorer: Scorer,
    metric_names: Sequence[str],
    weights: Mapping[str, Mapping[str, float]],
    combine: Combination,
    metadata: Mapping[str, Any],
) -> Task:
    return Task(
        dataset=MemoryDataset(build_samples(items, variants, chosen, name), name=f"dhp_{name}"),
        solver=solver,
        scorer=scorer,
        metrics=[dhp_discernment(metric_names, weights, combine)],
        name=f"dhp_{name}",
        version=DHP_TASK_VERSION,
        metadata={
            **metadata,
            "task_version": DHP_TASK_VERSION,
            "metrics": list(metric_names),
            "perturbations": {
                p.id: {"level": p.level, "degree": p.degree, "method": p.method, "k": p.k} for p in chosen
            },
            "expert_weights": weights,
            "combine": combine,
        },
    )


def chosen_criteria(kind: TextKind, metrics: Sequence[str] | None) -> list[Criterion]:
    """The kind's criteria that ``metrics`` names (all of them for ``None``); an unknown name is an option error."""
    criteria = [criterion for criterion in kind.criteria if metrics is None or criterion.name in metrics]
    if metrics is not None and len(criteria) != len(metrics):
        unknown = sorted(set(metrics) - {criterion.name for criterion in kind.criteria})
        raise OptionError(f"unknown metric(s) {unknown} for {kind.name}; choose from {[c.name for c in kind.criteria]}")
    return criteria


def check_options(
    *,
    n: int | None,
    repeats: int,
    combine: str,
    scoring: str,
    min_mass: float,
    normalize: str,
    answer_format: str,
) -> None:
    """Every option a DHP task takes that needs no data, checked before any data is read or downloaded."""
    check_at_least("n", n, 1)
    check_at_least("repeats", repeats, 1)
    if combine not in get_args(Combination):
        raise OptionError(f"unknown combine {combine!r}; choose from {list(get_args(Combination))}")
    check_rating_scoring(scoring, min_mass, SCORINGS)
    check_answer_format(answer_format, scoring)
    check_normalization(normalize)
    if normalize != DEFAULT_NORMALIZATION and scoring != "perplexity":
        raise OptionError(f"normalize={normalize} applies to scoring=perplexity, not scoring={scoring}")


def requested_perturbations(value: str | Sequence[str] | None) -> list[str] | None:
    """The perturbation ids of ``-T perturbations=``: ``None`` for ``all``; selecting nothing is an error."""
    names = names_option(value)
    if not names:
        raise OptionError(
            "perturbations selects nothing: pass comma-separated perturbation ids, or 'all' (the default)"
        )
    return None if names == [ALL_PERTURBATIONS] else names


def choose_perturbations(available: Sequence[Perturbation], names: list[str] | None) -> list[Perturbation]:
    """``select_perturbations`` with an unknown id reported as an option error."""
    try:
        return select_perturbations(available, names)
    except ValueError as error:
        raise OptionError(str(error)) from error


def perturbations_without_suite(dataset_name: str, names: list[str] | None) -> list[Perturbation]:
    """Without a suite: the ids asked for, or for ``all`` every rule-based row, saying which rows need a suite."""
    if names is not None:
        return choose_perturbations(all_perturbations(dataset_name), names)
    llm_rows = [p.id for p in all_perturbations(dataset_name) if p.method == "llm"]
    if llm_rows:
        logger.warning(
            "%s: without a suite only the rule-based perturbations are judged; the LLM-based ones %s need a suite "
            "(build one with dhp-build and pass -T suite=<file>)",
            dataset_name,
            llm_rows,
        )
    return list(PERTURBATIONS[dataset_name])


def generated_variants(
    items: Sequence[Item], pool: Sequence[Item], chosen: Sequence[Perturbation], seed: int, name: str
) -> dict[str, dict[str, str]]:
    """Rule-based variants made at task time; LLM-based ones only come from a suite file."""
    llm_rows = [p.id for p in chosen if p.method == "llm"]
    if llm_rows:
        raise OptionError(
            f"LLM-based perturbations {llm_rows} come from a suite: build one with dhp-build and pass -T suite=<file>"
        )
    variants, skipped = rule_variants(items, pool, chosen, seed)
    for perturbation_id, count in skipped.items():
        logger.warning(
            "%s: %s could not be applied to %d of %d items; they are left out", name, perturbation_id, count, len(items)
        )
    return variants


def paper_dataset_task(
    dataset: DhpDataset,
    data_dir: str | None,
    n: int,
    seed: int,
    perturbations: str | list[str] | None,
    repeats: int,
    temperature: float,
    expert_weights: str | None,
    combine: Combination,
    suite: str | None = None,
    scoring: Scoring = "sample",
    min_mass: float = DEFAULT_MIN_MASS,
    normalize: Normalization = DEFAULT_NORMALIZATION,
    answer_format: AnswerFormat = "text",
) -> Task:
    """A DHP task on one of the paper's datasets, from its public source, a local folder or a built suite."""
    check_options(
        n=n,
        repeats=repeats,
        combine=combine,
        scoring=scoring,
        min_mass=min_mass,
        normalize=normalize,
        answer_format=answer_format,
    )
    names = requested_perturbations(perturbations)
    if suite is not None:
        built = read_suite(suite)
        if built.header["dataset"] != dataset.name:
            raise OptionError(f"suite {suite} was built for {built.header['dataset']!r}, not {dataset.name!r}")
        items, variants = built.items, built.variants
        chosen = choose_perturbations(built.perturbations(), names)
        metadata = {
            "source": f"suite {suite}",
            "suite": built.header["provenance"],
            "suite_report": built.header["report"],
        }
    else:
        if names is not None:
            choose_perturbations(all_perturbations(dataset.name), names)  # unknown ids fail before any download
        pool = load_pool(dataset, data_dir, n, seed)
        items = select_items(pool, n, seed, dataset.name)
        chosen = perturbations_without_suite(dataset.name, names)
        variants = generated_variants(items, pool, chosen, seed, dataset.name)
        metadata = {"source": str(data_dir) if data_dir else "public source", "n_requested": n, "n_eligible": len(pool)}
    return dhp_task(
        dataset.name,
        TEXT_KINDS[dataset.kind],
        items,
        variants,
        chosen,
        seed=seed,
        repeats=repeats,
        temperature=temperature,
        expert_weights=expert_weights,
        combine=combine,
        metadata={**metadata, "description": dataset.description, "n_items": len(items)},
        scoring=scoring,
        min_mass=min_mass,
        normalize=normalize,
        answer_format=answer_format,
    )


def _dataset_task(dataset_name: str):
    dataset = DATASETS[dataset_name]

    def dataset_task(
        data_dir: str | None = None,
        n: int = 100,
        seed: int = 0,
        perturbations: str | list[str] | None = ALL_PERTURBATIONS,
        repeats: int = 5,
        temperature: float = 0.0,
        expert_weights: str | None = None,
        combine: Combination = "hmp",
        suite: str | None = None,
        scoring: Scoring = "sample",
        min_mass: float = DEFAULT_MIN_MASS,
        normalize: Normalization = DEFAULT_NORMALIZATION,
        answer_format: AnswerFormat = "text",
    ) -> Task:
        return paper_dataset_task(
            dataset,
            data_dir,
            n,
            seed,
            perturbations,
            repeats,
            temperature,
            expert_weights,
            combine,
            suite,
            scoring,
            min_mass,
            normalize,
            answer_format,
        )

    dataset_task.__name__ = dataset_name
    dataset_task.__qualname__ = dataset_name
    dataset_task.__doc__ = (
        f"DHP discernment on {dataset.description}.\n\n"
        "Args:\n"
        "    data_dir: local folder in the layout of shared/data/dhp/<dataset>/ (default: the public source)\n"
        "    n: number of reference texts (default 100, as in the paper)\n"
        "    seed: seed for item selection and rule-based perturbations\n"
        "    perturbations: comma-separated perturbation ids, or 'all' (default): every rule-based row, and\n"
        "        with a suite every row it holds\n"
        "    repeats: ratings per metric, averaged (default 5, as in the paper)\n"
        "    temperature: judge sampling temperature (default 0, as in the paper)\n"
        "    expert_weights: JSON file of expert weights (default: the bundled table)\n"
        "    combine: p-value combination: 'hmp' (harmonic mean, default), 'paper' (DHP's printed\n"
        "        formula) or 'wilson'\n"
        "    suite: suite file from dhp-build; its texts are judged as they are (data_dir, n and seed\n"
        "        are then unused)\n"
        "    scoring: 'sample' (G-Eval ratings, repeats answers averaged; default), 'logprobs' (one answer\n"
        "        per metric, the expected rating over its top log-probabilities) or 'perplexity' (the judge's\n"
        "        log-likelihood of each text given its context, no prompt)\n"
        f"    min_mass: with scoring=logprobs, the least probability on on-scale ratings for a rating to\n"
        f"        count (default {DEFAULT_MIN_MASS}); below it the answer is a parse failure\n"
        "    normalize: with scoring=perplexity, the summed log-likelihood per scored 'token' (default) or per\n"
        "        UTF-8 'byte' of the text (what lm-eval's dhp_*_perplexity tasks compute)\n"
        "    answer_format: 'text' (the paper's free-text ratings, default) or 'json' (a JSON object, reasoning\n"
        "        then score, with its schema passed to the provider; scoring=sample only)\n"
    )
    return task(name=dataset_name)(dataset_task)


summeval = _dataset_task("summeval")
sumpubmed = _dataset_task("sumpubmed")
storycloze = _dataset_task("storycloze")
answer_equivalence = _dataset_task("answer_equivalence")
wmt22_de_en = _dataset_task("wmt22_de_en")
wmt22_zh_en = _dataset_task("wmt22_zh_en")


def load_custom_items(path: str | Path) -> list[Item]:
    """A user's JSONL of ``{"id", "text", "context"?}`` rows."""
    source = Path(path).expanduser()
    if not source.is_file():
        raise DataError(f"custom data file {source} does not exist")
    items = []
    seen: set[str] = set()
    for n, row in read_jsonl(source):
        item_id = id_field(row, "id", source, n)
        if item_id in seen:
            raise DataError(f"{source}, row {n}: duplicate id {item_id!r}")
        seen.add(item_id)
        context = optional_text_field(row, "context", source, n)
        items.append(Item(item_id, text_field(row, "text", source, n).strip(), context))
    if not items:
        raise DataError(f"custom data file {source} has no rows")
    return items


@task
def custom(
    data: str,
    kind: str = "summarization",
    metrics: str | list[str] | None = None,
    n: int | None = None,
    seed: int = 0,
    perturbations: str | list[str] | None = ALL_PERTURBATIONS,
    repeats: int = 5,
    temperature: float = 0.0,
    expert_weights: str | None = None,
    combine: Combination = "hmp",
    scoring: Scoring = "sample",
    min_mass: float = DEFAULT_MIN_MASS,
    normalize: Normalization = DEFAULT_NORMALIZATION,
    answer_format: AnswerFormat = "text",
) -> Task:
    """DHP discernment on your own reference texts.

    Args:
        data: JSONL file with one ``{"id", "text", "context"?}`` object per line
        kind: kind of text, which sets the metrics, prompts and perturbations:
            summarization, story, qa or translation
        metrics: comma-separated subset of the kind's metrics (default: all)
        n: number of texts to draw (default: all)
        seed, perturbations, repeats, temperature, expert_weights, combine, scoring, min_mass, normalize,
            answer_format: as for the paper datasets
    """
    if kind not in TEXT_KINDS:
        raise OptionError(f"unknown kind {kind!r}; choose from {sorted(TEXT_KINDS)}")
    check_options(
        n=n,
        repeats=repeats,
        combine=combine,
        scoring=scoring,
        min_mass=min_mass,
        normalize=normalize,
        answer_format=answer_format,
    )
    chosen_criteria(TEXT_KINDS[kind], names_option(metrics))
    chosen = choose_perturbations(KIND_PERTURBATIONS[kind], requested_perturbations(perturbations))
    pool = load_custom_items(data)
    items = select_items(pool, n or len(pool), seed, "custom")
    return dhp_task(
        "custom",
        TEXT_KINDS[kind],
        items,
        generated_variants(items, pool, chosen, seed, "custom"),
        chosen,
        metrics=names_option(metrics),
        seed=seed,
        repeats=repeats,
        temperature=temperature,
        expert_weights=expert_weights,
        combine=combine,
        metadata={"source": str(data), "n_items": len(items), "n_eligible": len(pool)},
        scoring=scoring,
        min_mass=min_mass,
        normalize=normalize,
        answer_format=answer_format,
    )
