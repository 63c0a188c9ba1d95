"""End-to-end against stand-in judges on 127.0.0.1: the real ``inspect eval adherence_tasks/...`` command, and
``inspect_ai.eval`` in the test process for what a run computes."""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest
from scipy import stats

from adherence_tasks.definition import ADHERENCE
from judge_data.human import load_criteria, load_items, select_items
from solvers.likelihood import SEPARATOR
from tests.conftest import data_folder
from tests.support import fake_completions
from tests.support.commands import INSPECT, one_clean_message, only_log, run_cli, task_options
from tests.support.fake_judge import constant
from tests.support.inspect_runs import eval_command, eval_in_process, metrics_of, run_command

pytestmark = pytest.mark.integration

_ITEM = re.compile(r"### Task input\n(.*)\n\n### Response\n(.*)\n\n### Evaluation\n(.*)$", re.DOTALL)


def knows_the_humans(dataset: str, n: int, seed: int, criterion_for_generic: str | None = None):
    """A judge that answers, for the items a task draws with ``n`` and ``seed``, each item's human mean for the
    criterion its prompt names (yes/no for binary ones)."""
    folder = data_folder("human", dataset)
    criteria, _ = load_criteria(folder)
    human = {(item.task, item.response): item.human for item in select_items(load_items(folder, criteria), n, seed)}
    titles = sorted(((c.title, c) for c in criteria), key=lambda pair: -len(pair[0]))

    def answer(prompt: str) -> str:
        task, response, ask = _ITEM.search(prompt).groups()
        scores = human[(task, response)]
        if criterion_for_generic is not None:
            chosen = next(c for c in criteria if c.name == criterion_for_generic)
        else:
            chosen = next(c for title, c in titles if title in ask)
        score = scores[chosen.name]
        if chosen.binary:
            return "Yes." if score >= 0.5 else "No."
        return f"Score: {score:.6f}"

    return answer


def unambiguous_seed(dataset: str, n: int) -> int:
    """A seed whose draw of ``n`` items has no two items with the same task and response.

    SummEval has 45 such pairs (two systems wrote the same summary, the experts rated them apart); no
    judge can tell them apart, so a judge that knows the human scores needs a draw without them.
    """
    folder = data_folder("human", dataset)
    items = load_items(folder, load_criteria(folder)[0])
    for seed in range(100):
        drawn = select_items(items, n, seed)
        if len({(item.task, item.response) for item in drawn}) == n:
            return seed
    raise AssertionError("no unambiguous draw")


@pytest.mark.parametrize("setting", ["criterion", "rubric"])
def test_a_judge_that_answers_the_human_scores_correlates_perfectly(tmp_path, setting):
    folder = data_folder("human", "summeval")
    seed = unambiguous_seed("summeval", 30)
    log, calls = eval_in_process(
        "adherence_tasks/summeval",
        knows_the_humans("summeval", 30, seed),
        tmp_path,
        f"data_dir={folder}",
        "n=30",
        f"seed={seed}",
        f"setting={setting}",
    )
    metrics = metrics_of(log)
    for criterion in ("coherence", "consistency", "fluency", "relevance"):
        assert metrics[f"pearson/{criterion}"] == pytest.approx(1.0)
        assert metrics[f"spearman/{criterion}"] == pytest.approx(1.0)
        assert metrics[f"n/{criterion}"] == 30
        assert metrics[f"pearson_ci_low/{criterion}"] == pytest.approx(1.0)
    assert metrics["pearson"] == pytest.approx(1.0)
    assert metrics["pearson/group/Content"] == pytest.approx(1.0) and metrics[
        "pearson/group/Integrity"
    ] == pytest.approx(1.0)
    assert metrics["parse_failures"] == 0 and metrics["undefined"] == 0
    assert len(calls) == 30 * 4
    assert log.eval.task_version == ADHERENCE.version and log.eval.metadata["setting"] == setting
    prompt = calls[0]["messages"][-1]["content"]
    assert prompt.index("### Task input") < prompt.index("### Response") < prompt.index("### Evaluation")
    if setting == "rubric":
        assert "the collective quality of all sentences" in " ".join(c["messages"][-1]["content"] for c in calls)


def test_generic_setting_asks_one_question_per_scale(tmp_path):
    folder = data_folder("human", "summeval")
    seed = unambiguous_seed("summeval", 20)
    log, calls = eval_in_process(
        "adherence_tasks/summeval",
        knows_the_humans("summeval", 20, seed, criterion_for_generic="fluency"),
        tmp_path,
        f"data_dir={folder}",
        "n=20",
        f"seed={seed}",
        "setting=generic",
    )
    metrics = metrics_of(log)
    assert len(calls) == 20  # one quality question per item serves all four criteria
    assert metrics["pearson/fluency"] == pytest.approx(1.0)
    assert -1 < metrics["pearson/coherence"] < 1
    assert not any("luency" in call["messages"][-1]["content"].split("### Evaluation")[1] for call in calls)


def test_binary_lower_is_better_criteria_keep_the_human_direction(tmp_path):
    folder = data_folder("human", "roscoe_stepwise")
    seed = unambiguous_seed("roscoe_stepwise", 60)
    log, calls = eval_in_process(
        "adherence_tasks/roscoe_stepwise",
        knows_the_humans("roscoe_stepwise", 60, seed),
        tmp_path,
        f"data_dir={folder}",
        "n=60",
        f"seed={seed}",
        "setting=criterion",
        "criteria=grammar,hallucination,redundancy",
    )
    metrics = metrics_of(log)
    for criterion in ("grammar", "hallucination", "redundancy"):
        if math.isnan(metrics[f"pearson/{criterion}"]):
            assert "human scores are all" in log.eval.metadata.get("note", "") or metrics[f"n/{criterion}"] == 60
            continue
        assert metrics[f"pearson/{criterion}"] == pytest.approx(1.0)
        assert log.eval.metadata["criteria"][criterion]["expected_sign"] == 1
    asks = {call["messages"][-1]["content"].split("### Evaluation\n")[1] for call in calls}
    assert all(ask.endswith("Reply with yes or no only.\nAnswer:") for ask in asks)


def test_a_constant_judge_gives_nan_and_says_so(tmp_path):
    folder = data_folder("human", "topicalchat")
    command = eval_command(
        "adherence_tasks/topicalchat", f"data_dir={folder}", "n=12", "setting=criterion", "criteria=natural,engaging"
    )
    result, _ = run_command(command, constant("3"), tmp_path)
    output = result.stdout + result.stderr
    assert "correlation for natural is undefined (NaN): the judge gave every item the same score (3)" in output
    assert "Traceback" not in output


def test_dataset_without_public_scores_says_what_is_missing(tmp_path):
    command = eval_command("adherence_tasks/flask", f"data_dir={data_folder('human', 'flask')}", display="plain")
    result, _ = run_command(command, constant("3"), tmp_path, expect_success=False)
    output = one_clean_message(result)
    assert "items.jsonl is missing: flask has no public human scores here" in output
    assert "-T data_dir=<folder>" in output


def test_perplexity_setting_correlates_the_likelihood_with_the_humans(tmp_path):
    """A completions server whose every token log-probability is the item's human fluency minus 10."""
    folder = data_folder("human", "summeval")
    seed = unambiguous_seed("summeval", 15)
    criteria, _ = load_criteria(folder)
    fluency = {
        f"{item.task}{SEPARATOR}{item.response}": item.human["fluency"]
        for item in select_items(load_items(folder, criteria), 15, seed)
    }
    command = [INSPECT, "eval", "adherence_tasks/summeval", "--model", "openai-api-completions/fakevllm/toy"]
    options = task_options(f"data_dir={folder}", "n=15", f"seed={seed}", "scoring=perplexity")
    with fake_completions.serve(logprob=lambda prompt, position: fluency[prompt] - 10) as (url, calls):
        env = {"FAKEVLLM_BASE_URL": url, "FAKEVLLM_API_KEY": "test"}
        run_cli([*command, *options, "--log-format", "json", "--display", "log"], tmp_path, env)
    log = only_log(tmp_path / "logs")
    metrics = metrics_of(log)
    assert metrics["pearson/fluency"] == pytest.approx(1.0)
    assert metrics["n/fluency"] == 15 and metrics["parse_failures"] == 0
    assert len(calls) == 15 and all(call["prompt_logprobs"] == 1 for call in calls)
    assert log.eval.metadata["criteria"]["fluency"]["expected_sign"] == 1


def test_perplexity_setting_refuses_a_chat_provider_in_one_message(tmp_path):
    command = eval_command(
        "adherence_tasks/summeval",
        f"data_dir={data_folder('human', 'summeval')}",
        "scoring=perplexity",
        display="plain",
    )
    result, calls = run_command(command, constant("3"), tmp_path, expect_success=False)
    assert not calls
    assert "openai-api-completions/" in one_clean_message(result)


def test_a_lower_is_better_likert_criterion_is_asked_and_signed_the_humans_way(tmp_path):
    """A custom criterion where 5 means many errors: the prompt says so, and a judge that follows it agrees with the
    humans positively, entering the means with +1 (before, the prompt said 1 (worst) to 5 (best))."""
    folder = tmp_path / "data"
    folder.mkdir()
    criteria = [
        {"name": "errors", "original_name": "Errors", "range": [1, 5], "scale": "likert", "higher_is_better": False,
         "group": "Integrity", "definition": "How many factual errors the answer makes."},
        {"name": "clarity", "original_name": "Clarity", "range": [1, 5], "scale": "likert", "higher_is_better": True,
         "group": "Content", "definition": "How easy the answer is to read."},
    ]  # fmt: skip
    (folder / "criteria.json").write_text(json.dumps({"task_description": "Answer a question.", "criteria": criteria}))
    rows = [
        {"id": f"q{j}", "task": f"Question {j}?", "response": f"Answer {j}.",
         "criteria": {"errors": float(1 + j % 5), "clarity": float(1 + (j * 3) % 5)}}
        for j in range(20)
    ]  # fmt: skip
    (folder / "items.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    human = {(row["task"], row["response"]): row["criteria"] for row in rows}

    def follows_the_prompt(prompt: str) -> str:
        task, response, ask = _ITEM.search(prompt).groups()
        name = "errors" if "Errors" in ask else "clarity"
        score = human[(task, response)][name]
        low_is_best = re.search(r"from 1 \(best\) to 5 \(worst\)", ask) is not None
        # a judge scores "how good" on the scale it is given: 5 best unless the prompt says 1 is best
        goodness = 6 - score if name == "errors" else score
        return f"Score: {6 - goodness if low_is_best else goodness:g}"

    log, calls = eval_in_process(
        "adherence_tasks/custom", follows_the_prompt, tmp_path, f"data_dir={folder}", "setting=criterion"
    )
    metrics = metrics_of(log)
    assert metrics["pearson/errors"] == pytest.approx(1.0) and metrics["pearson/clarity"] == pytest.approx(1.0)
    assert log.eval.metadata["criteria"]["errors"]["expected_sign"] == 1
    assert metrics["pearson"] == pytest.approx(1.0)
    asks = {call["messages"][-1]["content"].split("### Evaluation\n")[1] for call in calls}
    assert any("Errors from 1 (best) to 5 (worst)" in ask for ask in asks)
    assert any("Clarity from 1 (worst) to 5 (best)" in ask for ask in asks)


def test_whole_documents_give_system_level_agreement(tmp_path):
    """Three TopicalChat conversations with all six systems' responses, judged by a stand-in that answers each
    human mean rounded to the scale: its system-level tau per criterion is scipy's on the system means."""
    folder = data_folder("human", "topicalchat")
    exact = knows_the_humans("topicalchat", None, 0)

    def rounded(prompt: str) -> str:
        answer = exact(prompt)
        return f"Score: {round(float(answer.removeprefix('Score: ')))}" if answer.startswith("Score") else answer

    log, calls = eval_in_process(
        "adherence_tasks/topicalchat",
        rounded,
        tmp_path,
        f"data_dir={folder}",
        "documents=3",
        "setting=criterion",
        "criteria=natural,engaging",
    )
    metrics = metrics_of(log)
    assert log.eval.metadata["n_items"] == 18 and log.eval.metadata["n_documents"] == 3
    assert metrics["n_systems"] == 6
    samples = log.samples or []
    assert {sample.metadata["system"] for sample in samples} == set(TOPICALCHAT_SYSTEMS)
    taus = []
    for criterion in ("natural", "engaging"):
        judge_means, human_means = [], []
        for system in TOPICALCHAT_SYSTEMS:
            scored = [sample for sample in samples if sample.metadata["system"] == system]
            judge_means.append(np.mean([next(iter(s.scores.values())).value[criterion] for s in scored]))
            human_means.append(np.mean([s.metadata["human"][criterion] for s in scored]))
        taus.append(stats.kendalltau(judge_means, human_means).statistic)
        assert metrics[f"system_tau/{criterion}"] == pytest.approx(taus[-1])
    assert metrics["system_tau"] == pytest.approx(np.mean(taus))
    assert metrics["system_tau_ci_low"] <= metrics["system_tau_ci_high"] <= 1
    assert len(calls) == 18 * 2


TOPICALCHAT_SYSTEMS = (
    "Original Ground Truth",
    "Argmax Decoding",
    "Nucleus Decoding (p = 0.3)",
    "Nucleus Decoding (p = 0.5)",
    "Nucleus Decoding (p = 0.7)",
    "New Human Generated",
)
