"""judge-report on a recorded judge (``-T judgments=``) beside a live stand-in judge: named from its file, marked as
recorded, compared on the items both judged like any two judges."""

from __future__ import annotations

import json

import pytest

from judge_data.human import load_criteria, load_items, select_items
from judge_report.render import markdown_judges, report_json
from judge_report.runs import read_runs
from judge_report.tables import build_report
from tests.adherence.test_adherence_integration import knows_the_humans
from tests.conftest import data_folder
from tests.support.inspect_runs import eval_in_process, eval_recorded, metrics_of

N = 16
OPTIONS = ("n=16", "criteria=relevance,coherence")


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    """A live judge that answers the humans' scores, and a recorded judge whose file holds two prompt labels and
    rows for 12 of the 16 items: both on the same HANNA task and settings."""
    folder = data_folder("human", "hanna")
    criteria, _ = load_criteria(folder)
    items = select_items(load_items(folder, criteria), N, 0)
    rows = [
        {"id": item.id, "criterion": name, "judge": "Stand-in", "prompt": prompt, "score": 1 + (index * 7 + k) % 5}
        for index, item in enumerate(items[:12])
        for k, name in enumerate(("relevance", "coherence"))
        for prompt in (1, 2)
    ]
    root = tmp_path_factory.mktemp("report")
    path = root / "stand-in.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    options = (f"data_dir={folder}", *OPTIONS)
    eval_in_process("adherence_tasks/hanna", knows_the_humans("hanna", N, 0), root / "live", *options)
    recorded = eval_recorded("adherence_tasks/hanna", root / "recorded", *options, f"judgments={path}", "prompt=1")
    runs, skipped = read_runs([root / "live" / "logs", root / "recorded" / "logs"])
    assert not skipped
    return build_report(runs), metrics_of(recorded)


def test_a_recorded_judge_is_named_from_its_file_and_marked_recorded(report):
    built, _ = report
    judges = {judge.name: judge for judge in built.judges.values()}
    assert set(judges) == {"openai-api/fakejudge/judge", "Stand-in (prompt 1)"}
    recorded = judges["Stand-in (prompt 1)"]
    assert (recorded.model, recorded.identity, recorded.recorded) == (
        "recorded/Stand-in",
        "recorded/Stand-in (prompt=1)",
        True,
    )
    assert dict(recorded.model_args) == {"prompt": "1", "judgments": "stand-in.jsonl"}
    assert "| inspect (recorded judgments) |" in markdown_judges(built).replace("  ", " ")
    listed = {judge["name"]: judge["recorded"] for judge in report_json(built, [])["judges"]}
    assert listed == {"openai-api/fakejudge/judge": False, "Stand-in (prompt 1)": True}


def test_a_recorded_judge_is_compared_with_a_live_one_on_the_items_both_judged(report):
    built, recorded_metrics = report
    (comparison,) = built.comparisons
    assert {comparison.a, comparison.b} == {"openai-api/fakejudge/judge", "Stand-in (prompt 1)"}
    sign = 1 if comparison.a == "openai-api/fakejudge/judge" else -1
    # the live judge states the humans' scores (pearson 1); the recorded one has rows for 12 items, the rest unanswered
    assert comparison.difference == pytest.approx(sign * (1 - recorded_metrics["pearson"]), abs=1e-6)
    assert comparison.n_items == 12  # compared on the items both answered
    assert recorded_metrics["unanswered"] == 2 * (N - 12)
