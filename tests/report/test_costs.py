"""Cost and speed per 1,000 judgments in the report, from stand-in runs whose usage is known: the stand-in judge
reports a prompt's words as its prompt tokens and one generated token per answer."""

from __future__ import annotations

import json
import math
import os
from unittest.mock import patch

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog
from inspect_ai.model import CachePolicy, get_model

from judge_data import DataError
from judge_report.cli import run as judge_report
from judge_report.costs import HF_PADDING_NOTE, Price, Usage, judge_costs, read_prices, read_usage
from judge_report.runs import inspect_run
from judge_report.tables import build_report
from tests.conftest import data_folder
from tests.support.commands import create_task
from tests.support.fake_judge import constant, serve

ITEMS = 4
"""FBI items judged: two categories, two items each; the single-answer task asks once for each item's gold and
perturbed answer."""


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, tuple[EvalLog, list[dict]]]:
    """FBI single on the stand-in judge, then the same run again, answered from the first run's request cache
    (inspect's cache key holds the judge's URL: one stand-in serves both)."""
    folder = tmp_path_factory.mktemp("costs")
    task_args = (f"data_dir={data_folder('fbi')}", "per_category=2", "categories=entity,grammar")
    found = {}
    with serve(constant("Rating: [[3]]")) as (url, calls):
        model = get_model("openai-api/fakejudge/judge", base_url=url, api_key="test", memoize=False)
        for name in ("paid", "cached"):
            calls.clear()
            with patch.dict(os.environ, {"INSPECT_CACHE_DIR": str(folder / "cache")}):
                [log] = inspect_eval(
                    create_task("fbi_tasks/single", *task_args),
                    model=model,
                    log_dir=str(folder / name),
                    display="log",
                    cache=CachePolicy(expiry=None),
                )
            found[name] = (log, list(calls))
    return found


def test_usage_counts_the_judges_answers_and_marks_cache_hits_unpaid(runs):
    paid_log, calls = runs["paid"]
    cached_log, cached_calls = runs["cached"]
    assert len(calls) == 2 * ITEMS and cached_calls == []  # gold and perturbed answer of each item
    prompt_words = sum(len(call["messages"][-1]["content"].split()) for call in calls)
    paid = read_usage(inspect_run(paid_log.location)[0])
    assert paid is not None
    assert (paid.judgments, paid.cached, paid.input_tokens, paid.output_tokens) == (
        2 * ITEMS,
        0,
        prompt_words,
        2 * ITEMS,
    )
    assert paid.timed == paid.judgments and 0 < paid.seconds < 600
    cached = read_usage(inspect_run(cached_log.location)[0])
    assert cached is not None
    assert (cached.judgments, cached.cached, cached.input_tokens, cached.output_tokens) == (2 * ITEMS, 2 * ITEMS, 0, 0)
    assert math.isnan(cached.cost(Price(1.0, 1.0)))  # nothing paid


def test_cost_per_thousand_judgments_at_the_given_prices(runs):
    paid_log, calls = runs["paid"]
    run = inspect_run(paid_log.location)[0]
    report = build_report([run], 0.1, {})
    costs = judge_costs(report, read_prices(None, 2.0, 10.0))
    [suite, overall] = costs.rows
    assert (suite.suite, overall.suite) == ("fbi", "all") and suite.usage == overall.usage
    prompt_words = sum(len(call["messages"][-1]["content"].split()) for call in calls)
    # $2 per million prompt tokens and $10 per million generated, over 8 judgments, per 1,000 of them
    expected = (prompt_words * 2.0 / 1e6 + 8 * 10.0 / 1e6) / 8 * 1000
    assert suite.as_json()["per_1000_judgments"]["cost"] == pytest.approx(expected)
    assert suite.as_json()["per_1000_judgments"]["input_tokens"] == pytest.approx(prompt_words / 8 * 1000)
    assert suite.as_json()["per_1000_judgments"]["output_tokens"] == pytest.approx(1000)
    assert HF_PADDING_NOTE not in costs.notes


def test_the_report_shows_costs_in_the_judges_table_and_report_json(runs, tmp_path):
    prices = tmp_path / "prices.yaml"
    prices.write_text("openai-api/fakejudge/judge: {input: 2.0, output: 10.0}\n")
    out = judge_report(
        [str(runs["paid"][0].location), "--out", str(tmp_path / "report"), "--prices", str(prices), "--plots", "none"]
    )
    data = json.loads((out / "report.json").read_text())
    [suite, overall] = data["costs"]["rows"]
    assert suite["judgments"] == 2 * ITEMS and suite["from_cache"] == 0
    assert suite["price_per_million"] == {"input": 2.0, "output": 10.0} and suite["cost"] > 0
    markdown = (out / "report.md").read_text()
    judges = markdown.split("## Judges")[1]
    assert "per 1,000 judgments" in judges.splitlines()[2]
    assert "## Cost and speed per 1,000 judgments" in markdown
    assert "<th>per 1,000 judgments</th>" in (out / "report.html").read_text()


def test_sums_and_hf_padding_note():
    usage = Usage(10, 4, 600, 6, 2.0, 10, 1) + Usage(10, 0, 1000, 10, 3.0, 5, 1)
    assert (usage.judgments, usage.paid, usage.seconds, usage.timed, usage.runs) == (20, 16, 5.0, 15, 2)
    assert usage.per_thousand(usage.input_tokens, usage.paid) == pytest.approx(100_000)
    assert usage.per_thousand(usage.seconds, usage.timed) == pytest.approx(5.0 / 15 * 1000)


def test_a_malformed_prices_file_names_the_model(tmp_path):
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"openai/gpt-4o": {"input": 2.5, "output": 10}, "hf/x": {"input": "cheap"}}))
    with pytest.raises(DataError, match=r"prices.json, model 'hf/x': expected \{input: \$, output: \$\}"):
        read_prices(str(prices), None, None)
    with pytest.raises(DataError, match="--price-in and --price-out go together"):
        read_prices(None, 1.0, None)
    assert read_prices(None, 1.0, 2.0) == {"*": Price(1.0, 2.0)}
