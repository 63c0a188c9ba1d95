"""The public path of the adherence datasets: packaged criteria, and each converter run on a small file in the public
format served over http://127.0.0.1 through the real ``datasets`` download cache.

The small public-format files are written here from a few rows of the shared folder, reversing the documented
transformation, so the converted rows must equal those shared rows (ids, texts, means, annotator scores, meta).
"""

from __future__ import annotations

import csv
import functools
import json
import pickle
import threading
from collections import OrderedDict, defaultdict
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from datasets import config as datasets_config

from adherence_tasks import data as adherence_data
from adherence_tasks.data import DATASETS
from judge_data import DataError
from judge_data.human import CRITERIA_FILE, ITEMS_FILE, load_criteria, load_items
from tests.conftest import data_folder

RAW = "https://raw.githubusercontent.com/"


def _shared_rows(name: str) -> list[dict]:
    folder = data_folder("human", name)
    return [json.loads(line) for line in (folder / ITEMS_FILE).read_text(encoding="utf-8").splitlines()]


PINNED = {name: source.urls for name, source in adherence_data.PUBLIC_SOURCES.items()}
"""The pinned URLs, kept before the tests point the table at the local server."""


@pytest.fixture
def packaged(tmp_path):
    """A folder holding only the packaged criteria of a dataset, as ``load_criteria`` reads folders."""

    def folder(name: str) -> Path:
        target = tmp_path / "packaged" / name
        target.mkdir(parents=True, exist_ok=True)
        (target / CRITERIA_FILE).write_bytes(adherence_data.criteria_file(name).read_bytes())
        return target

    return folder


# --- packaged criteria ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(DATASETS))
def test_packaged_criteria_load_and_agree_with_the_shared_folder(packaged, name):
    criteria, document = load_criteria(packaged(name))
    assert document["task_description"]
    entries = json.loads(adherence_data.criteria_file(name).read_text(encoding="utf-8"))["criteria"]
    assert all(entry["rubric_source"] for entry in entries)
    shared, _ = load_criteria(data_folder("human", name))

    def described(items):
        return [(c.name, c.low, c.high, c.scale, c.higher_is_better) for c in items]

    assert described(criteria) == described(shared)


def test_packaged_rubrics_carry_the_public_wording(packaged):
    topical = {c.name: c for c in load_criteria(packaged("topicalchat"))[0]}
    assert topical["natural"].definition == "Is the response naturally written?"
    assert (
        topical["natural"].rubric["2"] == "A score of 2 (ok) means the response is strange, but not entirely unnatural."
    )
    flask = {c.name: c for c in load_criteria(packaged("flask"))[0]}
    assert set(flask["logical_correctness"].rubric) == {"1", "2", "3", "4", "5"}
    assert flask["logical_correctness"].group == "Integrity"
    summeval = {c.name: c for c in load_criteria(packaged("summeval"))[0]}
    assert summeval["fluency"].rubric == {}, "G-Eval's 1-3 fluency levels must not stand for the 1-5 human scale"
    assert summeval["relevance"].definition.startswith("selection of important content from the source")


# --- serving public-format files --------------------------------------------------------------------------------


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - the base class's signature
        pass


@pytest.fixture
def public_files(tmp_path, monkeypatch):
    """Writes files at their pinned URLs' paths under a local web root; returns ``(write, requests)``."""
    root = tmp_path / "web"
    root.mkdir()
    requests: list[str] = []

    class Handler(_QuietHandler):
        def do_GET(self):
            requests.append(self.path)
            super().do_GET()

    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    monkeypatch.setattr(datasets_config, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(datasets_config, "HF_DATASETS_CACHE", tmp_path / "cache")
    monkeypatch.setattr(datasets_config, "DOWNLOADED_DATASETS_PATH", tmp_path / "cache" / "downloads")
    served = {
        name: adherence_data.PublicSource(tuple(base + url.removeprefix(RAW) for url in source.urls), source.convert)
        for name, source in adherence_data.PUBLIC_SOURCES.items()
    }
    monkeypatch.setattr(adherence_data, "PUBLIC_SOURCES", served)

    def write(pinned_url: str, content: bytes | str) -> None:
        assert pinned_url.startswith(RAW)
        path = root / pinned_url.removeprefix(RAW)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)

    yield write, requests
    server.shutdown()
    server.server_close()


def _converted(name: str, loadable: bool = True) -> list[dict]:
    """The rows the public path wrote, after checking that the suite's own loader accepts them."""
    folder = adherence_data.public_folder(DATASETS[name])
    if loadable:
        criteria, _ = load_criteria(folder)
        assert len(load_items(folder, criteria)) > 0
    return [json.loads(line) for line in (folder / ITEMS_FILE).read_text(encoding="utf-8").splitlines()]


def _by_id(rows, ids):
    index = {row["id"]: row for row in rows}
    return [index[i] for i in ids]


def _pinned(name: str) -> tuple[str, ...]:
    return PINNED[name]


# --- converters -------------------------------------------------------------------------------------------------


def test_summeval_converts_the_bartscore_pickle(public_files):
    write, requests = public_files
    shared = _shared_rows("summeval")
    chosen = [row for row in shared if row["meta"]["system"] in ("M2", "M10")][:4]
    documents: dict = {}
    for row in reversed(chosen):
        document = documents.setdefault(row["meta"]["doc_id"], {"src": row["task"], "ref_summ": "r", "sys_summs": {}})
        document["sys_summs"][row["meta"]["system"]] = {"sys_summ": row["response"], "scores": row["criteria"]}
    (url,) = _pinned("summeval")
    write(url, pickle.dumps(documents))
    assert _converted("summeval") == chosen
    assert len(requests) == 1
    assert _converted("summeval") == chosen, "the second call reuses the converted folder"
    assert len(requests) == 1


def test_summeval_pickle_with_a_global_is_refused(public_files):
    write, _ = public_files
    (url,) = _pinned("summeval")
    write(url, pickle.dumps(OrderedDict(doc={"src": "s", "sys_summs": {}})))
    with pytest.raises(DataError, match="refused global collections.OrderedDict"):
        adherence_data.public_folder(DATASETS["summeval"])


def test_topicalchat_converts_the_usr_release(public_files):
    write, _ = public_files
    shared = _shared_rows("topicalchat")
    chosen = [row for row in shared if row["meta"]["context_id"] < 2 and "Nucleus" not in row["meta"]["system"]]
    labels = adherence_data.USR_CRITERIA
    release = []
    for context_id in (0, 1):
        rows = [row for row in chosen if row["meta"]["context_id"] == context_id]
        release.append(
            {
                "context": rows[0]["meta"]["context"] + " \n\n",
                "fact": rows[0]["meta"]["fact"],
                "annotators": ["a", "b", "c"],
                "responses": [
                    {"response": row["response"] + " \n", "model": row["meta"]["system"]}
                    | {labels[name]: scores for name, scores in row["annotator_scores"].items()}
                    for row in rows
                ],
            }
        )
    (url,) = _pinned("topicalchat")
    write(url, json.dumps(release))
    assert _converted("topicalchat") == chosen


def _roscoe_release(name: str, per_subset: int) -> tuple[list[dict], dict[str, str]]:
    """The first ``per_subset`` shared rows of each subset, written back as JUDGE-BENCH instance files."""
    level = "overall" if name == "roscoe" else "stepwise"
    entries = json.loads(adherence_data.criteria_file(name).read_text(encoding="utf-8"))["criteria"]
    labels = {entry["name"]: entry["original_name"] for entry in entries}
    binary = {entry["name"] for entry in entries if entry["scale"] == "binary"}
    shared = _shared_rows(name)
    chosen, files = [], {}
    for subset, url in zip(adherence_data.ROSCOE_SUBSETS, _pinned(name), strict=True):
        rows = [row for row in shared if row["meta"]["subset"] == subset][:per_subset]
        if subset == "cosmos" and name == "roscoe":
            rows.append(next(row for row in shared if not row["response"]))
        instances = []
        for row in rows:
            if level == "overall":
                context, generated, tail = row["task"], row["response"], "Judge the generated response:"
            else:
                context, generated = row["task"].split("\n\nFull generated response:\n")
                tail = f"JUDGE: {row['response']}"
            form = f"Instructions.\n\nCONTEXT:\n{context}\n\nGENERATED RESPONSE:\n{generated}\n{tail}\n"
            annotations = {
                labels[criterion]: {
                    "individual_human_scores": [
                        ("yes" if value else "no") if criterion in binary else int(value) for value in values
                    ]
                }
                for criterion, values in row["annotator_scores"].items()
            }
            instances.append({"id": row["meta"]["source_id"], "instance": form, "annotations": annotations})
        chosen += rows
        files[url] = json.dumps({"annotations": [{"metric": labels[c]} for c in labels], "instances": instances})
    return chosen, files


@pytest.mark.parametrize("name", ["roscoe", "roscoe_stepwise"])
def test_roscoe_converts_the_judge_bench_files(public_files, name):
    write, _ = public_files
    chosen, files = _roscoe_release(name, 2)
    for url, content in files.items():
        write(url, content)
    # The overall level keeps the source's one empty generated response, as the shared folder does, so the rows are
    # compared without the suite's loader (which wants a non-empty response).
    assert _converted(name, loadable=name != "roscoe") == chosen


def test_opinsummeval_joins_outputs_and_scores_by_case(public_files):
    write, _ = public_files
    shared = _shared_rows("opinsummeval")
    chosen = [row for row in shared if row["meta"]["case"] in (1, 7) and row["meta"]["system"] in ("gpt3", "t5")]
    outputs, scores = [], []
    for case in (7, 1):
        rows = [row for row in chosen if row["meta"]["case"] == case]
        reviews = [line.split(": ", 1)[1] for line in rows[0]["task"].split("\n")]
        outputs.append(
            {
                "revs": {f"rev{i}": f" {text} " for i, text in enumerate(reviews, start=1)},
                "summ": "reference",
                "case": case,
                "model_output": {row["meta"]["system"]: row["response"] for row in rows},
            }
        )
        keys = adherence_data.OPINSUMMEVAL_CRITERIA
        scores.append(
            {
                row["meta"]["system"]: {
                    "rouge": 0.5,
                    "annot1": {keys[name]: values[0] for name, values in row["annotator_scores"].items()},
                    "annot2": {keys[name]: values[1] for name, values in row["annotator_scores"].items()},
                }
                for row in rows
            }
            | {"case": case}
        )
    outputs_url, scores_url = _pinned("opinsummeval")
    write(outputs_url, "\n".join(map(json.dumps, outputs)) + "\n")
    write(scores_url, "\n".join(map(json.dumps, reversed(scores))) + "\n")
    expected = [row for case in (7, 1) for row in chosen if row["meta"]["case"] == case]
    assert _converted("opinsummeval") == expected


def test_thenextchapter_converts_the_six_evaluation_files(public_files):
    write, _ = public_files
    shared = _shared_rows("thenextchapter")
    chosen = [row for row in shared if row["meta"]["condition_index"] < 2]
    for url in _pinned("thenextchapter"):
        pool, subset = url.split("/")[-2], url.split("/")[-1].removesuffix(".json")
        conditions = defaultdict(list)
        for row in chosen:
            if (row["meta"]["annotator_pool"], row["meta"]["subset"]) == (pool, subset):
                conditions[row["meta"]["condition_index"]].append(row)
        release = [
            {
                "condition": rows[0]["task"],
                "reference": rows[0]["meta"]["reference"],
                "generations": [
                    {"model": row["meta"]["system"], "story": " " + row["response"], "scores": row["criteria"]}
                    for row in rows
                ],
            }
            for _, rows in sorted(conditions.items())
        ]
        write(url, json.dumps(release))
    assert _converted("thenextchapter") == chosen


def _worker_scores(mean: float) -> list[int]:
    """Three integer scores with the given mean (HANNA's means are in thirds)."""
    total = round(mean * 3)
    base, extra = divmod(total, 3)
    return [base + 1] * extra + [base] * (3 - extra)


def test_hanna_converts_the_raw_annotation_csv(public_files, tmp_path):
    write, _ = public_files
    shared = _shared_rows("hanna")
    chosen = [row for row in shared if row["meta"]["story_id"] in (0, 1, 97, 500)]
    labels = adherence_data.HANNA_CRITERIA
    path = tmp_path / "hanna.csv"
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["Story ID", "Prompt", "Human", "Story", "Model", *labels, "Worker ID", "Assignment ID"])
        for row in chosen:
            workers = {label: _worker_scores(row["criteria"][label.lower()]) for label in labels}
            for worker in range(3):
                writer.writerow(
                    [row["meta"]["story_id"], row["task"], "human story", row["response"], row["meta"]["system"]]
                    + [workers[label][worker] for label in labels]
                    + [f"W{worker}", f"A{worker}"]
                )
    (url,) = _pinned("hanna")
    write(url, path.read_bytes())
    converted = _converted("hanna")
    assert [row["id"] for row in converted] == [row["id"] for row in chosen]
    for mine, theirs in zip(converted, chosen, strict=True):
        assert (mine["task"], mine["response"]) == (theirs["task"], theirs["response"])
        assert mine["criteria"] == pytest.approx(theirs["criteria"], abs=1e-12)
        assert mine["annotator_scores"]["coherence"] == _worker_scores(theirs["criteria"]["coherence"])
        assert {k: mine["meta"][k] for k in ("story_id", "prompt_index", "system")} == {
            k: theirs["meta"][k] for k in ("story_id", "prompt_index", "system")
        }


def test_hanna_names_a_missing_column(public_files):
    write, _ = public_files
    (url,) = _pinned("hanna")
    write(url, "Story ID,Prompt,Story,Model,Relevance\n0,p,s,Human,3\n")
    with pytest.raises(DataError, match=r"missing column\(s\) \['Coherence'"):
        adherence_data.public_folder(DATASETS["hanna"])


# --- datasets without public pointwise scores, and offline use --------------------------------------------------


@pytest.mark.parametrize("name", ["flask", "instrusum"])
def test_datasets_without_public_scores_get_a_criteria_only_folder(public_files, packaged, name):
    folder = adherence_data.public_folder(DATASETS[name])
    assert (folder / CRITERIA_FILE).is_file()
    assert not (folder / ITEMS_FILE).exists()
    assert [c.name for c in load_criteria(folder)[0]] == [c.name for c in load_criteria(packaged(name))[0]]


def test_offline_download_names_the_pinned_url_and_data_dir(monkeypatch, tmp_path):
    monkeypatch.setattr(datasets_config, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(datasets_config, "HF_DATASETS_CACHE", tmp_path / "cache")
    monkeypatch.setattr(datasets_config, "DOWNLOADED_DATASETS_PATH", tmp_path / "cache" / "downloads")
    (url,) = adherence_data.PUBLIC_SOURCES["topicalchat"].urls
    with pytest.raises(ConnectionError) as error:
        adherence_data.public_folder(DATASETS["topicalchat"])
    assert url in str(error.value) and "-T data_dir=<folder>" in str(error.value)
    assert not list((tmp_path / "cache" / "judge_meta_eval" / "adherence").glob("topicalchat*"))


def test_every_pinned_url_names_a_commit():
    for name, source in adherence_data.PUBLIC_SOURCES.items():
        for url in source.urls:
            owner, repo, commit, path = url.removeprefix(RAW).split("/", 3)
            assert url.startswith(RAW) and len(commit) == 40 and int(commit, 16) >= 0, (name, url)
    assert set(adherence_data.PUBLIC_SOURCES) | {"flask", "instrusum"} == set(DATASETS)
