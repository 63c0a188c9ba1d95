"""Published values beside measured ones (``judge-report --published``): the file format, the shipped HANNA figure,
and where the report shows them (a table of their own, reference rows of the columns that show the metric)."""

from __future__ import annotations

import json
import math

import pytest

from judge_data import DataError
from judge_report.cli import run as report_cli
from judge_report.published import (
    AS_PRINTED,
    MEASURED,
    PUBLISHED,
    PUBLISHED_TABLE,
    Published,
    PublishedValue,
    add_published,
    read_published,
)
from judge_report.render import report_json
from judge_report.runs import Run, recorded_model
from judge_report.tables import build_report, sort_rows

HANNA = "adherence_tasks/hanna"
CRITERIA = {"relevance": {"group": "Relevance", "range": [1, 5], "scale": "likert", "expected_sign": 1}}


def recorded_run(judge: str, prompt: str, metrics: dict[str, float], excluded=("Human",)) -> Run:
    """A recorded judge's run of HANNA as the report reads it from a log header."""
    recorded = {"file": "hanna_llm.jsonl", "judge": judge, "prompt": prompt}
    metadata = {"setting": "rubric", "criteria": CRITERIA, "exclude_systems": list(excluded) or None}
    model, model_args = recorded_model(recorded)
    return Run(
        f"{judge}-{prompt}.eval",
        "inspect",
        "adherence_hanna_rubric",
        "5",
        model,
        model_args,
        {**metadata, "recorded": recorded},
        {"judgments": "hanna_llm.jsonl"},
        metrics,
        909,
        "2026-01-01",
        recorded=recorded,
        registry_name=HANNA,
    )


def published_file(tmp_path, **changes) -> str:
    document = {
        "source": "a figure",
        "cite": "Someone 2024",
        "task": HANNA,
        "settings": {"exclude_systems": ["Human"]},
        "scale": 100,
        "absolute": True,
        "values": [
            {"judge": "Beluga-13B", "prompt": "1", "metric": "kendall/relevance", "value": 21},
            {"judge": "Beluga-13B", "prompt": "1", "metric": "system_tau", "value": 70},
            {"judge": "ChatGPT", "prompt": "3", "metric": "system_tau", "value": 38},
        ],
        **changes,
    }
    path = tmp_path / "published.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return str(path)


def no_samples(run: Run) -> str:
    return "the test reads no samples"


def test_printed_values_are_read_on_the_metrics_scale_and_measured_ones_printed_alike():
    published = Published("f", "s", "c", "", HANNA, (PublishedValue("j", None, "m", 49),), scale=100, absolute=True)
    assert published.value(published.values[0]) == 0.49
    assert published.as_printed(-0.494444) == 0.49
    assert published.as_printed(0.125) == 0.12  # 12.5 rounds half to even, as the source's pandas round does
    assert math.isnan(published.as_printed(math.nan))
    signed = Published("f", "s", "c", "", HANNA, (), scale=10)
    assert signed.as_printed(-0.46) == -0.5


def test_the_shipped_hanna_figure_holds_every_llm_cell():
    published = read_published("hanna_chhun2024")
    assert published.task == HANNA and published.settings == {"exclude_systems": ["Human"]}
    assert len(published.values) == 4 * 4 * (6 + 6 + 1)
    chatgpt = {value.metric: value.printed for value in published.values if value.judge == "ChatGPT"}
    assert len(chatgpt) == 13  # the last prompt's, 4
    first = {
        value.metric.removeprefix("system_tau/"): value.printed
        for value in published.values
        if value.judge == "ChatGPT" and value.prompt == "1" and value.metric.startswith("system_tau")
    }
    assert first == {
        "relevance": 7,
        "coherence": 73,
        "empathy": 56,
        "surprise": 7,
        "engagement": 64,
        "complexity": 72,
        "system_tau": 46,
    }
    beluga = [v.printed for v in published.values if v.judge == "Beluga-13B" and v.metric == "system_tau"]
    assert beluga == [70, 78, 65, 73]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"scale": 0}, "field 'scale' must be a positive number"),
        ({"cite": ""}, "field 'cite' must be a non-empty text"),
        ({"figure": 2}, r"unknown field\(s\) \['figure'\]"),
        ({"values": [{"judge": "a", "metric": "m", "value": "49"}]}, r"values\[0\]: field 'value' must be a number"),
        ({"values": [{"judge": "a", "metric": "m", "value": 1, "level": "x"}]}, r"values\[0\]: expected an object"),
        (
            {"values": [{"judge": "a", "metric": "m", "value": 1}, {"judge": "a", "metric": "m", "value": 2}]},
            "the same judge, prompt and metric twice",
        ),
    ],
)
def test_a_bad_file_is_named_with_its_value_and_field(tmp_path, change, message):
    with pytest.raises(DataError, match=message):
        read_published(published_file(tmp_path, **change))


def test_an_unknown_name_lists_the_shipped_files(tmp_path):
    with pytest.raises(DataError, match=r"--published hana: no such file.*\['hanna_chhun2024'\]"):
        report_cli([str(tmp_path), "--published", "hana"])


def test_published_values_sit_beside_the_matched_runs_never_ranked(tmp_path):
    beluga = recorded_run("Beluga-13B", "1", {"kendall/relevance": 0.2149, "system_tau": 0.7039})
    chatgpt = recorded_run("ChatGPT", "1", {"kendall/relevance": 0.15, "system_tau": 0.4604})
    other_setting = recorded_run("ChatGPT", "3", {"system_tau": 0.4}, excluded=())
    report = build_report([beluga, chatgpt, other_setting], items=no_samples)
    add_published(report, [read_published(published_file(tmp_path))])

    table = next(table for table in report.paper_tables if table.name == PUBLISHED_TABLE)
    # the run with the human-written stories in is another config of the task: the rows name theirs
    row = ("Beluga-13B (prompt 1)", "adherence_hanna_rubric [config 1]", "system_tau", "Someone 2024")
    assert table.cells[(row, MEASURED)].value == 0.7039
    assert table.cells[(row, AS_PRINTED)].value == 0.70
    assert (
        table.cells[(row, PUBLISHED)].value == 0.70 and "Someone 2024: a figure" in table.cells[(row, PUBLISHED)].note
    )
    assert (
        table.cells[
            (
                ("Beluga-13B (prompt 1)", "adherence_hanna_rubric [config 1]", "kendall/relevance", "Someone 2024"),
                AS_PRINTED,
            )
        ].value
        == 0.21
    )
    # ChatGPT's prompt 3 ran with the human-written stories in: not the published setting
    unmatched = ("ChatGPT (prompt 3)", HANNA, "system_tau", "Someone 2024")
    assert (unmatched, MEASURED) not in table.cells and table.cells[(unmatched, PUBLISHED)].value == 0.38
    assert any(
        "2 of 3 shown" in note and "no such run for ChatGPT (prompt 3) system_tau" in note for note in report.notes
    )

    suite = report.suite_tables[0]
    label = "reference: Beluga-13B (prompt 1) as published (Someone 2024)"
    column = next(info.label for info in suite.column_info if info.metric == "system_tau")
    assert suite.cells[((label,), column)].value == 0.70
    assert (label,) in suite.references
    assert sort_rows(suite, column).rows[-1] == (label,)
    assert ((label,), column) not in report.leaderboard.cells  # pearson is the leaderboard's, not system_tau

    data = report_json(report, [])
    (shown,) = [table for table in data["paper_tables"] if table["name"] == PUBLISHED_TABLE]
    assert [row["labels"][2] for row in shown["rows"]] == ["kendall/relevance", "system_tau", "system_tau"]
    (reference,) = [row for row in data["suite_tables"][0]["rows"] if row["labels"] == [label]]
    assert reference["reference"] is True and reference["cells"][column]["rank_group"] is None
