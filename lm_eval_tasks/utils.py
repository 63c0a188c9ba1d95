"""lm-eval hooks (``!function utils.<name>`` in the YAML files): documents, prompts, answers, aggregations.

Every task builds its items exactly as the inspect task does (it calls the inspect task's own builder and
reads its samples), one lm-eval document per prompt (a CoEval criteria document asks its one prompt at two
temperatures, through :class:`CriteriaListsTask`). ``doc_to_text`` calls the suites' prompt functions,
``process_results`` passes each document's raw answers on untouched, and the aggregations regroup the
answers per sample, parse them with the suites' parsers into the same score values inspect's scorers make,
and compute the same metrics with the same functions in ``scorers/``.

Options come from lm-eval's task metadata (``--metadata '{"data_dir": ..., "n": 5}'``), which lm-eval
passes, together with the model arguments, to ``custom_dataset``; names this task does not know are the
model's and are ignored. Options under a suite's or a task's name (``{"dhp_storycloze": {"n": 5}}``) apply
to that suite or task only.
"""

from __future__ import annotations

import functools
import json
import logging
import math
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple, cast

from datasets import Dataset, DatasetDict
from inspect_ai import Task
from lm_eval.api.instance import Instance
from lm_eval.api.task import ConfigurableTask

from adherence_tasks.adherence import adherence_task
from adherence_tasks.adherence import custom as adherence_custom
from adherence_tasks.definition import ADHERENCE
from adherence_tasks.prompts import PERPLEXITY_SETTING, Question, render
from coeval_tasks.criteria import criteria as criteria_task
from coeval_tasks.data import load_human_scores
from coeval_tasks.definition import COEVAL_CRITERIA, COEVAL_SCORING
from coeval_tasks.scoring import check_options as check_coeval_options
from coeval_tasks.scoring import custom as coeval_custom
from coeval_tasks.scoring import scoring_task
from dhp_tasks.datasets import DATASETS as DHP_DATASETS
from dhp_tasks.definition import DHP
from dhp_tasks.dhp import custom as dhp_custom
from dhp_tasks.dhp import paper_dataset_task
from dhp_tasks.prompts import TEXT_KINDS
from fbi_tasks.definition import FBI
from fbi_tasks.fbi import fbi_task, judge_prompts
from judge_data import OptionError
from lm_eval_tasks import JUDGMENTS_OPTION
from lm_eval_tasks.explanations import explanation_documents
from lm_eval_tasks.tasks import (
    CUSTOM,
    EXPLANATIONS,
    LIKELIHOOD_NORMALIZATION,
    TASKS,
    LmEvalTask,
    adherence_metric_names,
    aggregation_name,
    coeval_metric_names,
    dhp_metric_names,
    higher_is_better,
)
from scorers.adherence import CriterionSpec, ReadAnswer, agreement_metrics, criterion_value
from scorers.answer_parsing import YES_NO, read_answer
from scorers.coeval import OVERALL, coeval_report
from scorers.criteria_consistency import (
    criteria_lists_means,
    score_criteria_lists,
)
from scorers.dhp import discernment_metrics, rating_value
from scorers.fbi import EXPLANATION_KEYS, blind_spot_metrics, explanation_counts, explanation_metrics, judgments
from scorers.likelihood import likelihood_value, normalized_logprob
from scorers.unparsed import warn_if_many_unparsed
from solvers.criteria_lists import criteria_prompt
from solvers.likelihood import SEPARATOR, response_bytes
from solvers.stepwise import item_text, scoring_turns

logger = logging.getLogger(__name__)

TASK_KEY = "suite_task"
"""Task metadata key naming the row of :data:`TASKS` a YAML file stands for."""

OPTIONS: dict[str, dict[str, Any]] = {
    "dhp": DHP.defaults(
        ("data_dir", "n", "seed", "perturbations", "expert_weights", "combine", "suite", "answer_format")
    ),
    "fbi": FBI.defaults(
        (
            "data_dir",
            "abilities",
            "categories",
            "per_category",
            "seed",
            "scale",
            "include_extra",
            "hub_revision",
            "keep_identical",
            "answer_format",
        )
    ),
    "adherence": ADHERENCE.defaults(("data_dir", "criteria", "n", "seed", "answer_format", "groups")),
    "coeval": {
        **COEVAL_CRITERIA.defaults(
            ("data_dir", "n", "seed", "tasks_file", "samples", "temperature", "embedder", "match_threshold")
        ),
        **COEVAL_SCORING.defaults(("criteria", "answer_format")),
    },
}
"""Each suite's options (the inspect task's ``-T`` options that choose items) and their defaults.

Repeats and temperature are lm-eval's own settings (``repeats`` in the YAML, ``--gen_kwargs``), except in
CoEval's criteria tasks: there, as in inspect, ``samples`` and ``temperature`` set the sampled lists, and the
reference list is always asked at temperature 0 (``criteria`` and ``answer_format`` apply to the scoring tasks,
``tasks_file``, ``samples``, ``temperature``, ``embedder`` and ``match_threshold`` to the criteria tasks).
``answer_format=json`` changes the prompts and how answers are read, as in inspect; lm-eval has no setting its
backends share for passing a response schema, so the schema is not enforced here."""


CUSTOM_OPTIONS: dict[str, dict[str, Any]] = {
    "dhp": {
        **DHP.defaults(
            ("data_dir", "kind", "metrics", "seed", "perturbations", "expert_weights", "combine", "answer_format")
        ),
        "n": None,
    },
    "adherence": OPTIONS["adherence"],
    "coeval": COEVAL_SCORING.defaults(("data_dir", "criteria", "n", "seed", "answer_format")),
}
"""The options of the ``custom`` tasks: the inspect ``custom`` task's ``-T`` options that choose the items."""

USER_DATA = "data_dir"
"""The option that names the user's data folder in every suite's ``custom`` tasks (required)."""


def _option_defaults(task: LmEvalTask) -> dict[str, Any]:
    if task.dataset == CUSTOM:
        return CUSTOM_OPTIONS[task.suite]
    if task.setting == EXPLANATIONS:
        return {JUDGMENTS_OPTION: None}
    return OPTIONS[task.suite]


def _options(task: LmEvalTask, metadata: Mapping[str, Any]) -> dict[str, Any]:
    """The task's options: top-level metadata keys, overridden by those under the suite's name, then under the
    task's name (so one command can point every task at its own data)."""
    given = {**metadata, **(metadata.get(task.suite) or {}), **(metadata.get(task.name) or {})}
    options = {name: given.get(name, default) for name, default in _option_defaults(task).items()}
    if task.dataset == CUSTOM and not options[USER_DATA]:
        raise OptionError(
            f'{task.name} runs on your data: pass --metadata \'{{"{USER_DATA}": "<path>"}}\' '
            f"(the -T {USER_DATA}= option of inspect's {task.suite}_tasks/custom)"
        )
    return options


def docs(**metadata: Any) -> DatasetDict:
    """``custom_dataset``: one document per prompt of every sample the inspect task would judge."""
    task = TASKS[metadata[TASK_KEY]]
    if task.output_type == "loglikelihood" and metadata.get("normalize", LIKELIHOOD_NORMALIZATION) != "byte":
        raise OptionError(
            f"{task.name}: normalize={metadata['normalize']!r} cannot be computed by lm-eval, whose loglikelihood "
            "requests return no token count; its perplexity tasks normalise per UTF-8 byte of the response "
            "(normalize=byte; inspect's tasks compute the same with -T normalize=byte)"
        )
    options = _options(task, metadata)
    builders: dict[str, Callable[[LmEvalTask, dict[str, Any]], list[dict[str, str]]]] = {
        "dhp": _dhp_docs,
        "fbi": _fbi_docs,
        "adherence": _adherence_docs,
        "coeval": _coeval_docs,
    }
    return DatasetDict({"test": Dataset.from_list(builders[task.suite](task, options))})


def _task_metadata(task: Task) -> dict[str, Any]:
    """The task's metadata (every builder sets it)."""
    return dict(task.metadata or {})


def _documents(samples, prompt_names: Sequence[str], settings: Mapping[str, Any]) -> list[dict[str, str]]:
    """Each sample's prompts, one document each, the sample's metadata and the task's settings as JSON text."""
    shared = json.dumps(settings, sort_keys=True)
    return [
        {"sample_id": str(sample.id), "prompt": name, "metadata": json.dumps(sample.metadata), "settings": shared}
        for sample in samples
        for name in prompt_names
    ]


def _dhp_docs(task: LmEvalTask, options: dict[str, Any]) -> list[dict[str, str]]:
    if task.dataset == CUSTOM:
        built = dhp_custom(
            data_dir=options["data_dir"],
            kind=options["kind"],
            metrics=options["metrics"],
            n=None if options["n"] is None else int(options["n"]),
            seed=int(options["seed"]),
            perturbations=options["perturbations"],
            repeats=1,
            expert_weights=options["expert_weights"],
            combine=options["combine"],
            scoring=cast(Any, task.setting),
            answer_format=options["answer_format"],
        )
    else:
        built = paper_dataset_task(
            DHP_DATASETS[task.dataset],
            data_dir=options["data_dir"],
            n=int(options["n"]),
            seed=int(options["seed"]),
            perturbations=options["perturbations"],
            repeats=1,
            temperature=0.0,
            expert_weights=options["expert_weights"],
            combine=options["combine"],
            suite=options["suite"],
            scoring=cast(Any, task.setting),
            min_mass=DHP.default("min_mass"),
            normalize=DHP.default("normalize"),
            answer_format=options["answer_format"],
        )
    meta = _task_metadata(built)
    kind = TEXT_KINDS[meta["kind"]]
    settings = {
        "task": task.name,
        "kind": kind.name,
        "metrics": meta["metrics"],
        "expert_weights": meta["expert_weights"],
        "combine": meta["combine"],
        "low": kind.prompt.low,
        "high": kind.prompt.high,
        "answer_format": meta.get("answer_format", "text"),
    }
    if task.dataset == CUSTOM:
        criteria = [] if task.setting == "perplexity" else meta["metrics"]
        settings[METRIC_NAMES] = dhp_metric_names(task.setting, list(meta["perturbations"]), criteria)
    return _documents(built.dataset, meta["metrics"], settings)


def _fbi_docs(task: LmEvalTask, options: dict[str, Any]) -> list[dict[str, str]]:
    if task.setting == EXPLANATIONS:
        return explanation_documents(options[JUDGMENTS_OPTION])
    paradigm_name, strategy = task.setting.split("/")
    paradigm: Any = paradigm_name
    built = fbi_task(
        paradigm,
        strategy,
        data_dir=options["data_dir"],
        abilities=options["abilities"],
        categories=options["categories"],
        per_category=options["per_category"],
        seed=int(options["seed"]),
        scale=options["scale"],
        include_extra=bool(options["include_extra"]),
        temperature=0.0,
        hub_revision=options["hub_revision"],
        keep_identical=bool(options["keep_identical"]),
        answer_format=options["answer_format"],
    )
    settings = {
        "task": task.name,
        "paradigm": paradigm,
        "strategy": strategy,
        "scale": _task_metadata(built)["scale"],
        "answer_format": _task_metadata(built)["answer_format"],
    }
    samples = list(built.dataset)
    first = (samples[0].metadata or {}) if samples else None
    names = list(judge_prompts(paradigm, strategy, settings["scale"] or 10, first)) if first is not None else []
    return _documents(samples, names, settings)


def _adherence_docs(task: LmEvalTask, options: dict[str, Any]) -> list[dict[str, str]]:
    data_dir = options["data_dir"]
    likelihood = task.setting == PERPLEXITY_SETTING
    chosen: dict[str, Any] = {
        "setting": ADHERENCE.default("setting") if likelihood else task.setting,
        "scoring": "perplexity" if likelihood else "sample",
        "criteria": options["criteria"],
        "n": None if options["n"] is None else int(options["n"]),
        "seed": int(options["seed"]),
        "answer_format": options["answer_format"],
        "groups": options["groups"],
    }
    if task.dataset == CUSTOM:
        built = adherence_custom(data_dir, **chosen)
    else:
        built = adherence_task(
            task.dataset,
            folder=Path(data_dir).expanduser() if data_dir else None,
            metadata={"source": str(data_dir) if data_dir else "public source"},
            **chosen,
        )
    meta = _task_metadata(built)
    settings: dict[str, Any] = {
        "task": task.name,
        "setting": task.setting,
        "criteria": [[name, info["group"], info["expected_sign"]] for name, info in meta["criteria"].items()],
    }
    if task.dataset == CUSTOM:
        named = [(name, info["group"]) for name, info in meta["criteria"].items()]
        settings[METRIC_NAMES] = adherence_metric_names(named, task.setting)
    if likelihood:
        return _documents(built.dataset, [LIKELIHOOD_PROMPT], settings)
    settings["answer_format"] = meta["answer_format"]
    settings["task_description"] = meta["task_description"]
    settings["questions"] = {
        key: [*question["range"], question["binary"], question["ask"]] for key, question in meta["questions"].items()
    }
    settings["answered_by"] = meta["answered_by"]
    return _documents(built.dataset, list(meta["questions"]), settings)


METRIC_NAMES = "metric_names"
"""Settings key of a ``custom`` task: every metric it reports, named after the user's data."""

LIKELIHOOD_PROMPT = "likelihood"
"""The one "prompt" of a likelihood document: the response given its context."""

CRITERIA_PROMPT = "criteria"
"""The one "prompt" of a criteria document: the request for evaluation criteria."""


def _coeval_docs(task: LmEvalTask, options: dict[str, Any]) -> list[dict[str, str]]:
    n = None if options["n"] is None else int(options["n"])
    answer_format = options["answer_format"]
    if task.setting == CRITERIA_PROMPT:
        built = criteria_task(
            dataset=task.dataset,
            data_dir=options["data_dir"],
            tasks_file=options["tasks_file"],
            n=n,
            seed=int(options["seed"]),
            samples=int(options["samples"]),
            temperature=float(options["temperature"]),
            embedder=str(options["embedder"]),
            match_threshold=float(options["match_threshold"]),
        )
        keys = ("samples", "temperature", "embedder", "match_threshold")
        return _documents(
            built.dataset, [CRITERIA_PROMPT], {"task": task.name, **{k: _task_metadata(built)[k] for k in keys}}
        )
    chosen: dict[str, Any] = {
        "mode": task.setting,
        "criteria": options["criteria"],
        "n": n,
        "seed": int(options["seed"]),
        "answer_format": answer_format,
    }
    if task.dataset == CUSTOM:
        built = coeval_custom(options["data_dir"], **chosen)
    else:
        check_coeval_options(mode=task.setting, n=n, answer_format=answer_format)
        built = scoring_task(load_human_scores(task.dataset, options["data_dir"]), **chosen)
    low, high = _task_metadata(built)["overall_range"]
    settings = {
        "task": task.name,
        "mode": task.setting,
        "task_description": _task_metadata(built)["task_description"],
        "criteria": list(_task_metadata(built)["criteria"]),
        "low": low,
        "high": high,
        "answer_format": _task_metadata(built)["answer_format"],
    }
    if task.dataset == CUSTOM:
        annotators = dict.fromkeys(
            name for sample in built.dataset for name in (sample.metadata or {}).get("annotator_ids", [])
        )
        settings[METRIC_NAMES] = coeval_metric_names(list(annotators))
    return _documents(built.dataset, [OVERALL], settings)


def _meta(doc: Mapping[str, str]) -> dict[str, Any]:
    return json.loads(doc["metadata"])


def _settings(doc: Mapping[str, str]) -> dict[str, Any]:
    return json.loads(doc["settings"])


def dhp_prompt(doc: Mapping[str, str]) -> str:
    """The G-Eval prompt for one metric of one text (``JudgePrompt.render``, as the inspect solver renders it)."""
    settings = _settings(doc)
    meta, kind = _meta(doc), TEXT_KINDS[settings["kind"]]
    criterion = next(criterion for criterion in kind.criteria if criterion.name == doc["prompt"])
    return kind.prompt.render(criterion, meta["response"], meta.get("context"), settings["answer_format"])


def fbi_prompt(doc: Mapping[str, str]) -> str:
    """One of an item's FBI prompts (gold / perturbed, or the two orders of a pair)."""
    settings = _settings(doc)
    scale = settings["scale"] or 10
    prompts = judge_prompts(
        settings["paradigm"], settings["strategy"], scale, _meta(doc), answer_format=settings["answer_format"]
    )
    return prompts[doc["prompt"]]


def adherence_prompt(doc: Mapping[str, str]) -> str:
    """One question about one response, rendered as the inspect task renders it."""
    settings = _settings(doc)
    low, high, binary, ask = settings["questions"][doc["prompt"]]
    meta = _meta(doc)
    return render(
        Question(doc["prompt"], low, high, binary, ask), settings["task_description"], meta["task"], meta["response"]
    )


def _criteria_request(meta: Mapping[str, Any]) -> str:
    return criteria_prompt(meta["task"], meta["example_input"], meta["example_output"])


def criteria_lists_prompt(doc: Mapping[str, str]) -> str:
    """The request for evaluation criteria of one task description (``criteria_prompt``, as inspect asks it)."""
    return _criteria_request(_meta(doc))


def explanation_check(doc: Mapping[str, str]) -> str:
    """The checker's prompt about one judgment of the judge run (built when the documents are read)."""
    return doc["check"]


def coeval_prompt(doc: Mapping[str, str]) -> str:
    """The direct-mode question about one response (``scoring_turns``, as the inspect solver asks it; direct
    mode asks about no criterion)."""
    settings, meta = _settings(doc), _meta(doc)
    opening = item_text(settings["task_description"], meta["task"], meta["response"])
    [(_, question)] = scoring_turns(
        settings["mode"], opening, (), settings["low"], settings["high"], answer_format=settings["answer_format"]
    )
    return question


class CriteriaListsTask(ConfigurableTask):
    """A CoEval criteria task: per task description one request at temperature 0 (the reference list) and one
    repeated ``samples`` times at ``temperature``, the two settings of the inspect solver.

    lm-eval gives a task one set of generation settings; this class overrides ``construct_requests`` only,
    so the two requests start from the task's ``generation_kwargs`` (and ``--gen_kwargs``) and differ in
    temperature and sampling alone.
    """

    def __init__(self, config: Mapping[str, Any] | None = None) -> None:
        # lm-eval 0.4.13 passes the YAML's ``class`` key on to TaskConfig, which has no such field
        super().__init__(config={key: value for key, value in (config or {}).items() if key != "class"})

    def construct_requests(self, doc: dict, ctx: Any, **kwargs: Any) -> list[Instance]:
        """Two requests per document: the reference list at temperature 0 and the sampled lists."""
        kwargs.pop("apply_chat_template", None)
        kwargs.pop("chat_template", None)
        task_name, doc_id, _ = kwargs.pop("metadata")
        settings = _settings(doc)
        reference = {**self.config.generation_kwargs, "temperature": 0.0, "do_sample": False}
        sampled = {**self.config.generation_kwargs, "temperature": float(settings["temperature"]), "do_sample": True}
        return [
            Instance("generate_until", doc, (ctx, reference), 0, (task_name, doc_id, 1), **kwargs),
            Instance("generate_until", doc, (ctx, sampled), 1, (task_name, doc_id, int(settings["samples"])), **kwargs),
        ]


class UserDataTask(ConfigurableTask):
    """A task on the user's data (``*_custom*``): besides the metrics its YAML lists, those every dataset has,
    it reports the ones the data names (per perturbation, criterion, group or annotator), known once its
    documents are built, with the same aggregations and directions as the table's tasks."""

    def __init__(self, config: Mapping[str, Any] | None = None) -> None:
        # lm-eval 0.4.13 passes the YAML's ``class`` key on to TaskConfig, which has no such field
        super().__init__(config={key: value for key, value in (config or {}).items() if key != "class"})
        documents = self.test_docs()
        named = json.loads(documents[0]["settings"])[METRIC_NAMES] if len(documents) else []
        listed = super().aggregation()
        self.data_metrics = [name for name in named if name not in listed]

    def process_results(self, doc: dict, results: Sequence[Any]) -> dict[str, Any]:
        """The hook's record (the same for every metric) under every metric name, the data's included."""
        listed = super().process_results(doc, results)
        return {**listed, **dict.fromkeys(self.data_metrics, next(iter(listed.values())))}

    def aggregation(self) -> dict[str, Callable[[Sequence[tuple]], float]]:
        """The YAML's aggregations and one for each metric the user's data names."""
        return {**super().aggregation(), **{name: _aggregation(name) for name in self.data_metrics}}

    def higher_is_better(self) -> dict[str, bool]:
        """The YAML's directions and those of the metrics the user's data names."""
        return {**super().higher_is_better(), **{name: higher_is_better(name) for name in self.data_metrics}}


def every_answer(resps: Sequence[Sequence[str]], docs: Sequence[Mapping]) -> Sequence[Sequence[str]]:
    """Filter that keeps every answer of every request (the reference and all sampled lists)."""
    return resps


class Record(NamedTuple):
    """What ``process_results`` hands the aggregations for one document (the same under every metric name)."""

    settings: str
    sample_id: str
    metadata: str
    prompt: str
    """The prompt's name within its sample."""
    answers: Any
    """The raw answers, the criteria lists, or a likelihood."""
    prompt_text: str = ""
    """The prompt the judge answered (generation tasks), which its answers are read against."""


def collect_criteria_lists(doc: Mapping[str, str], results: Sequence[Any]) -> dict[str, tuple]:
    """``process_results`` of criteria tasks: the reference answer and the sampled answers, for every metric."""
    reference, sampled = results
    answers = (tuple(reference), tuple(sampled))
    record = Record(doc["settings"], doc["sample_id"], doc["metadata"], doc["prompt"], answers)
    return dict.fromkeys(TASKS[_settings(doc)["task"]].metrics, record)


def likelihood_context(doc: Mapping[str, str]) -> str:
    """The text the response is conditioned on (empty when there is none)."""
    return _meta(doc).get("context") or ""


def likelihood_continuation(doc: Mapping[str, str]) -> str:
    """The scored text: the response, after the same separator as the inspect likelihood solver's.

    lm-eval (``_encode_pair``) moves the context's trailing whitespace into the continuation and, for causal
    models, cuts the whole text's tokens after as many tokens as the context alone has; without context it
    conditions the response on BOS (EOS without one). ``solvers.likelihood.continuation_split`` scores exactly
    those tokens, so both harnesses sum the same log-probabilities: the separator's and the response's.
    """
    meta = _meta(doc)
    return SEPARATOR + meta["response"] if meta.get("context") else meta["response"]


def _prompt_text(doc: Mapping[str, str]) -> str:
    """The prompt the judge answered for this document (its answers are read against it)."""
    task = TASKS[_settings(doc)["task"]]
    if task.setting == EXPLANATIONS:
        return explanation_check(doc)
    prompts: dict[str, Callable[[Mapping[str, str]], str]] = {
        "dhp": dhp_prompt,
        "fbi": fbi_prompt,
        "adherence": adherence_prompt,
        "coeval": coeval_prompt,
    }
    return prompts[task.suite](doc)


def collect_answers(doc: Mapping[str, str], results: Sequence[Any]) -> dict[str, tuple]:
    """``process_results`` of generation tasks: the document's raw answers (all repeats) and its prompt, for every
    metric."""
    record = Record(
        doc["settings"], doc["sample_id"], doc["metadata"], doc["prompt"], tuple(results[0]), _prompt_text(doc)
    )
    return dict.fromkeys(TASKS[_settings(doc)["task"]].metrics, record)


def collect_likelihood(doc: Mapping[str, str], results: Sequence[Any]) -> dict[str, tuple]:
    """``process_results`` of likelihood tasks: the continuation's log-likelihood per UTF-8 byte of the response.

    lm-eval's ``loglikelihood`` returns the summed log-probability of the continuation's tokens and not
    their number, so the length normalisation is lm-eval's own (per byte, as ``acc_norm`` and
    ``bits_per_byte``): inspect's ``-T normalize=byte``, not its default mean per token.
    """
    log_likelihood, _ = results[0]
    score = normalized_logprob(log_likelihood, LIKELIHOOD_NORMALIZATION, n_bytes=response_bytes(_meta(doc)["response"]))
    record = Record(doc["settings"], doc["sample_id"], doc["metadata"], doc["prompt"], score)
    return dict.fromkeys(TASKS[_settings(doc)["task"]].metrics, record)


def _answers_per_sample(records: Sequence[Record]) -> list[tuple[dict[str, Any], dict[str, Any], dict[str, str]]]:
    """``(sample metadata, {prompt: answers}, {prompt: prompt text})`` per sample, in the order the samples first
    appear."""
    samples: dict[str, tuple[dict[str, Any], dict[str, Any], dict[str, str]]] = {}
    for record in records:
        sample = samples.setdefault(record.sample_id, (json.loads(record.metadata), {}, {}))
        sample[1][record.prompt] = record.answers
        sample[2][record.prompt] = record.prompt_text
    return list(samples.values())


def _dhp_metrics(settings: Mapping[str, Any], samples) -> dict[str, float]:
    metrics = settings["metrics"]
    if TASKS[settings["task"]].setting == "perplexity":
        values = [(meta, likelihood_value(metrics, answers[LIKELIHOOD_PROMPT])) for meta, answers, _ in samples]
    else:
        low, high, answer_format = settings["low"], settings["high"], settings["answer_format"]
        values, read = [], []
        for meta, answers, prompts in samples:
            value, ratings = rating_value(answers, low, high, prompts, answer_format)
            values.append((meta, value))
            read += [
                pair for rating in ratings.values() for pair in zip(rating["answers"], rating["scores"], strict=True)
            ]
        _warn_if_many_unparsed(settings, read)
    return discernment_metrics(values, metrics, settings["expert_weights"], settings["combine"])


def _warn_if_many_unparsed(settings: Mapping[str, Any], read: Sequence[tuple[str, Any]]) -> None:
    """The warning inspect's hook gives at the end of a task, from ``(answer, value read)`` pairs."""
    warn_if_many_unparsed(settings["task"], len(read), [answer for answer, value in read if value is None])


def _fbi_metrics(settings: Mapping[str, Any], samples) -> dict[str, float]:
    answer_format = settings["answer_format"]
    if TASKS[settings["task"]].setting == EXPLANATIONS:
        checked = []
        for meta, answers, prompts in samples:
            checks = {
                name: read_answer(texts[0], YES_NO, prompts[name], answer_format).value
                for name, texts in answers.items()
            }
            checked.append((meta, explanation_counts(checks)))
        return explanation_metrics(checked)
    paradigm, scale = settings["paradigm"], settings["scale"] or 10
    values, read = [], []
    for meta, answers, prompts in samples:
        first = {name: texts[0] for name, texts in answers.items()}
        value, parsed = judgments(paradigm, first, scale, meta["invariant"], None, prompts, answer_format)
        values.append((meta, {**value, **dict.fromkeys(EXPLANATION_KEYS, math.nan)}))
        read += [(text, None if name in parsed["unparsed"] else text) for name, text in first.items()]
    _warn_if_many_unparsed(settings, read)
    return blind_spot_metrics(paradigm, values)


def _adherence_metrics(settings: Mapping[str, Any], samples) -> dict[str, float]:
    specs = [CriterionSpec(name, group, sign) for name, group, sign in settings["criteria"]]
    if settings["setting"] == PERPLEXITY_SETTING:
        names = [spec.name for spec in specs]
        values = [(meta, likelihood_value(names, answers[LIKELIHOOD_PROMPT])) for meta, answers, _ in samples]
    else:
        questions, answer_format = settings["questions"], settings["answer_format"]
        readers = {
            criterion: ReadAnswer(key, *questions[key][:3]) for criterion, key in settings["answered_by"].items()
        }
        values, read = [], []
        for meta, answers, prompts in samples:
            value, parsed = criterion_value(readers, answers, prompts, answer_format)
            values.append((meta, value))
            read += [pair for key, numbers in parsed.items() for pair in zip(answers[key], numbers, strict=True)]
        _warn_if_many_unparsed(settings, read)
    report, _, notes = agreement_metrics(specs, values)
    for reason in notes.values():
        logger.warning("%s: the interval of pearson is undefined (NaN): %s", settings["task"], reason)
    return report


def _warn_if_sampling_repeated(settings: Mapping[str, Any], sampled_per_document: Sequence[Sequence[str]]) -> None:
    """Warn when every document's sampled lists are one text repeated: at a temperature above 0 that is the
    backend's fixed seed (lm-eval's API backends send the ``seed`` model argument with every request), not the
    judge's consistency, and ICC = 1 then says nothing."""
    repeated = [len(set(sampled)) == 1 for sampled in sampled_per_document if len(sampled) > 1]
    if float(settings["temperature"]) > 0 and repeated and all(repeated):
        logger.warning(
            "%s: every task description's %d sampled lists are one text repeated at temperature %s; with an API "
            "backend this is lm-eval's fixed per-request seed, not the judge: ICC and CC are not meaningful. "
            "Use lm-eval's vllm or hf backend, or inspect.",
            settings["task"],
            settings["samples"],
            settings["temperature"],
        )


def _coeval_metrics(settings: Mapping[str, Any], samples) -> dict[str, float]:
    if TASKS[settings["task"]].setting == CRITERIA_PROMPT:
        values = []
        for meta, answers, _ in samples:
            reference, sampled = answers[CRITERIA_PROMPT]
            scored = score_criteria_lists(
                _criteria_request(meta),
                reference[0] if reference else "",
                sampled,
                meta["curated"],
                settings["embedder"],
                settings["match_threshold"],
            )
            values.append(scored.value)
        _warn_if_sampling_repeated(settings, [answers[CRITERIA_PROMPT][1] for _, answers, _ in samples])
        return criteria_lists_means(values)
    readers = {OVERALL: ReadAnswer(OVERALL, settings["low"], settings["high"], False)}
    rows, read = [], []
    for meta, answers, prompts in samples:
        value, parsed = criterion_value(readers, {OVERALL: answers[OVERALL]}, prompts, settings["answer_format"])
        rows.append((value, meta))
        read += list(zip(answers[OVERALL], parsed[OVERALL], strict=True))
    _warn_if_many_unparsed(settings, read)
    report, constant_judge = coeval_report(rows, settings["criteria"], criterion_scores=False)
    for name, reason in constant_judge:
        logger.warning("%s: %s is undefined (NaN): %s", settings["task"], name, reason)
    return report


SUITE_METRICS = {
    "dhp": _dhp_metrics,
    "fbi": _fbi_metrics,
    "adherence": _adherence_metrics,
    "coeval": _coeval_metrics,
}


@functools.lru_cache(maxsize=4)
def _task_metrics(records: tuple[Record, ...]) -> dict[str, float]:
    """Every metric of a task from its documents' records (cached: lm-eval asks once per metric name)."""
    if not records:
        return {}
    settings = json.loads(records[0].settings)
    return SUITE_METRICS[TASKS[settings["task"]].suite](settings, _answers_per_sample(records))


def _aggregation(metric: str) -> Callable[[Sequence[Record]], float]:
    def aggregate(records: Sequence[Record]) -> float:
        return float(_task_metrics(tuple(records)).get(metric, math.nan))

    aggregate.__name__ = aggregation_name(metric)
    aggregate.__doc__ = f"The task's ``{metric}``, computed as the inspect metric computes it."
    return aggregate


AGGREGATIONS = {aggregation_name(metric): metric for task in TASKS.values() for metric in task.metrics}
"""The aggregation name each YAML file gives a metric (``agg_<metric>``), and the metric."""


def __getattr__(name: str) -> Callable[[Sequence[Record]], float]:
    """``utils.agg_<metric>``, as the YAML files name an aggregation: looked up in :data:`AGGREGATIONS` (PEP 562)."""
    if name in AGGREGATIONS:
        return _aggregation(AGGREGATIONS[name])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
