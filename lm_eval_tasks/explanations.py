"""FBI's explanation check in lm-eval (the paper's 5.3), in a run of its own.

lm-eval evaluates one model per run, so the checker cannot answer inside the judge's run as inspect's
``explanation_checker`` role does. Instead the judge's run writes its samples file (``--log_samples
--output_path``), and the ``fbi_explanations`` task reads the judgments back from it: one document per
judgment that rated the perturbed answer as good as the gold one, with the checker prompt inspect's scorer
builds from the same answers (:func:`scorers.fbi.explanation_checks`).

:mod:`lm_eval_tasks.fbi` hands the ``fbi_explanations`` task's documents, prompt and metrics to this module.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from fbi_tasks.fbi import judge_prompts
from fbi_tasks.prompts import EXPLAINED, explanation_check_prompt, judged_strategy
from judge_data import DataError, OptionError, read_jsonl
from lm_eval_tasks import JUDGMENTS_OPTION
from lm_eval_tasks.documents import SampleAnswers
from lm_eval_tasks.tasks import EXPLANATIONS, TASKS
from scorers.fbi import explanation_checks, explanation_counts, explanation_metrics, judgments
from solvers.reading.shapes import YES_NO, read_answer

OPTIONS = {JUDGMENTS_OPTION: None}
"""The one option of the check (required): the judge run's samples file; it takes none of the judge tasks'."""

DOC_FIELDS = ("sample_id", "prompt", "metadata", "settings")
"""The text fields of a document of this package's lm-eval tasks, as the samples file holds them."""


def _json_field(doc: Mapping[str, Any], name: str, where: str) -> dict[str, Any]:
    try:
        value = json.loads(doc[name])
    except json.JSONDecodeError as error:
        raise DataError(f"{where}: field 'doc.{name}' is not JSON ({error.msg})") from error
    if not isinstance(value, dict):
        raise DataError(f"{where}: field 'doc.{name}' must hold a JSON object")
    return value


def _answer(row: Mapping[str, Any], where: str) -> str:
    """The judge's answer: the first (only) answer kept by the filter of the row's one request."""
    kept = row.get("filtered_resps")
    if not (isinstance(kept, list) and kept and isinstance(kept[0], list) and kept[0] and isinstance(kept[0][0], str)):
        raise DataError(f"{where}: field 'filtered_resps' must hold the judge's answer as [[text]], got {kept!r}")
    return kept[0][0]


def read_judgments(path: str | Path) -> tuple[dict[str, Any], dict[str, tuple[dict[str, Any], dict[str, str]]]]:
    """The judge run's task settings and per sample id ``(sample metadata, {judgment name: answer})``, in file
    order, from an lm-eval samples file of an ``fbi_*`` task; an error names the file, row and field."""
    source = Path(path).expanduser()
    if not source.is_file():
        raise DataError(
            f"judgments file {source} does not exist: pass the samples_fbi_<task>_<date>.jsonl file that an fbi_* "
            "task wrote with --log_samples --output_path"
        )
    settings: dict[str, Any] | None = None
    items: dict[str, tuple[dict[str, Any], dict[str, str]]] = {}
    for row_number, row in read_jsonl(source):
        where = f"{source}, row {row_number}"
        doc = row.get("doc")
        if not isinstance(doc, Mapping) or not all(isinstance(doc.get(name), str) for name in DOC_FIELDS):
            raise DataError(
                f"{where}: field 'doc' must hold the text fields {list(DOC_FIELDS)} of an fbi_* task's document; "
                "is this an lm-eval samples file of this package's FBI tasks?"
            )
        row_settings = _json_field(doc, "settings", where)
        task = TASKS.get(str(row_settings.get("task")))
        if task is None or task.suite != "fbi" or task.variant == EXPLANATIONS:
            raise DataError(
                f"{where}: field 'doc.settings' is of task {row_settings.get('task')!r}, not of an fbi_* judge run"
            )
        if settings is None:
            settings = row_settings
        elif row_settings != settings:
            raise DataError(
                f"{where}: field 'doc.settings' is of task {row_settings['task']!r} with other settings than row 1's "
                f"({settings['task']!r}); pass one task's samples file"
            )
        metadata, answers = items.setdefault(doc["sample_id"], (_json_field(doc, "metadata", where), {}))
        if doc["prompt"] in answers:
            raise DataError(f"{where}: judgment {doc['prompt']!r} of sample {doc['sample_id']!r} appears twice")
        answers[doc["prompt"]] = _answer(row, where)
    if settings is None:
        raise DataError(f"judgments file {source} has no rows")
    strategy, scale = judged_strategy(settings)
    if not strategy.explains:
        raise OptionError(
            f"{source}: {settings['task']} asks for the verdict alone (strategy {settings['strategy']!r}), so there "
            f"is no explanation to check; the strategies that explain are {EXPLAINED}"
        )
    for sample_id, (metadata, answers) in items.items():
        expected = judge_prompts(strategy, scale, metadata)
        missing = sorted(set(expected) - set(answers))
        if missing:
            raise DataError(
                f"{source}: sample {sample_id!r} lacks the judgment(s) {missing}; the file must hold every document "
                "of the run (run the judge without --limit)"
            )
    return settings, items


def explanation_documents(path: str | Path | None) -> list[dict[str, str]]:
    """One document per judgment to check: the item, the judgment's name and the checker's prompt."""
    if not path:
        raise OptionError(
            f"fbi_{EXPLANATIONS} needs the judge run's samples file: --metadata "
            f'\'{{"{JUDGMENTS_OPTION}": "<output_path>/<model>/samples_fbi_<task>_<date>.jsonl"}}\''
        )
    judged, items = read_judgments(path)
    paradigm, (strategy, scale) = judged["paradigm"], judged_strategy(judged)
    answer_format = judged.get("answer_format", "text")
    settings = json.dumps(
        {
            "task": f"fbi_{EXPLANATIONS}",
            "judged_task": judged["task"],
            "judgments": str(path),
            "answer_format": answer_format,
        }
    )
    check_prompt = partial(explanation_check_prompt, answer_format=answer_format)
    documents = []
    for sample_id, (metadata, answers) in items.items():
        if metadata["invariant"]:
            continue
        prompts = judge_prompts(strategy, scale, metadata, answer_format=answer_format)
        _, parsed = judgments(paradigm, answers, scale, metadata["invariant"], None, prompts, answer_format)
        checks = explanation_checks(paradigm, parsed, metadata, answers, check_prompt)
        documents += [
            {
                "sample_id": sample_id,
                "prompt": name,
                "metadata": json.dumps(metadata),
                "settings": settings,
                "check": check,
            }
            for name, check in checks.items()
        ]
    if not documents:
        raise DataError(
            f"{path}: no judgment of {judged['task']} rated a perturbed answer as good as the gold one, so there is "
            "no explanation to check (explanation_caught_rate is undefined)"
        )
    return documents


def explanation_check(doc: Mapping[str, str]) -> str:
    """The checker's prompt about one judgment of the judge run (built when the documents are read)."""
    return doc["check"]


def metrics(settings: Mapping[str, Any], samples: Sequence[SampleAnswers]) -> dict[str, float]:
    """``explanation_caught_rate`` overall, per ability and per category, from the checker's first answer to each
    judgment."""
    checked = []
    for meta, answers, prompts in samples:
        checks = {
            name: read_answer(texts[0], YES_NO, prompts[name], settings["answer_format"]).value
            for name, texts in answers.items()
        }
        checked.append((meta, explanation_counts(checks)))
    return explanation_metrics(checked)
