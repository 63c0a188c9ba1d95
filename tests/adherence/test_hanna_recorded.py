"""HANNA's recorded LLM judges: the converter from the authors' published file to judgments, and the option that
leaves systems out (the published figure's recipe drops the human-written stories)."""

from __future__ import annotations

import contextvars
import csv
import io
import json
import os
import shutil
from contextlib import redirect_stdout
from pathlib import Path
from unittest.mock import patch

import numpy as np
import pytest
from inspect_ai.log import list_eval_logs, read_eval_log
from scipy import stats

from adherence_tasks.adherence import hanna
from adherence_tasks.data import criteria_file
from adherence_tasks.hanna_judgments import CRITERION_CODES, convert, read_published, run, write_judgments
from judge_data import DataError
from judge_data.human import item_system, load_criteria, load_items
from judge_data.options import OptionError
from judge_meta_eval.cli import main as judge_meta_eval_main
from judge_meta_eval.recorded import recorded_tasks
from tests.conftest import data_folder

PUBLISHED = "hanna_metric_scores_llm.csv"
CODES, CRITERIA = tuple(CRITERION_CODES), tuple(CRITERION_CODES.values())
SYSTEMS_OF_10 = (
    "BertGeneration",
    "CTRL",
    "GPT",
    "GPT-2 (tag)",
    "GPT-2",
    "RoBERTa",
    "XLNet",
    "Fusion",
    "HINT",
    "TD-VAE",
)

SYSTEMS = ("Human", "GPT")
STORIES = {0: "Human", 5: "Human", 96: "GPT", 100: "GPT"}
"""The hand-made items: Story IDs 0 and 5 of the first row (Human), 96 and 100 (positions 0 and 4) of the second."""

COLUMNS = ("Judge-A RE 1", "Judge-A CH 1", "Judge-B RE 2")


def cell_values(column: int, row: int) -> list[float]:
    """A column's 96 values for one system: position i holds ``1 + (i % 4)`` plus a tag naming column and row, so
    that every value says where it came from; two failure codes sit at Story ID 5 (-1) and 100 (0.33)."""
    values = [1 + (position % 4) + column / 10 + row / 100 for position in range(96)]
    if column == 0:
        values[5 if row == 0 else 4] = -1.0 if row == 0 else 0.33
    return values


def published_csv(path: Path, columns=COLUMNS, systems=SYSTEMS, length: int = 96) -> Path:
    """A small file in the published layout: ``Model``, a workers' column and a human mean the converter ignores,
    and judge columns of JSON lists."""
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["Model", "Relevance", "Human 1 RE", *columns])
        for row, system in enumerate(systems):
            lists = [json.dumps(cell_values(column, row)[:length]) for column in range(len(columns))]
            writer.writerow([system, json.dumps([3.0] * 96), json.dumps([3.0] * 96), *lists])
    return path


def items_folder(folder: Path, stories=STORIES) -> Path:
    folder.mkdir()
    shutil.copyfile(criteria_file("hanna"), folder / "criteria.json")
    scores = {"relevance": 3.0, "coherence": 2.0, "empathy": 4.0, "surprise": 1.0, "engagement": 3.0, "complexity": 2.0}
    with (folder / "items.jsonl").open("w", encoding="utf-8") as handle:
        for story, system in stories.items():
            row = {
                "id": f"story-{story}",
                "task": f"prompt {story % 96}",
                "response": f"story {story}",
                "criteria": {name: value + story % 2 for name, value in scores.items()},
                "meta": {"story_id": story, "system": system},
            }
            handle.write(json.dumps(row) + "\n")
    return folder


def items_of(folder: Path):
    return load_items(folder, load_criteria(folder)[0])


def test_every_story_with_an_item_becomes_one_judgment_per_column(tmp_path):
    folder = items_folder(tmp_path / "items")
    conversion = convert(published_csv(tmp_path / "published.csv"), items_of(folder), str(folder))
    assert len(conversion.rows) == len(STORIES) * len(COLUMNS)
    assert conversion.judges == ["Judge-A", "Judge-B"]
    assert conversion.prompts == ["1", "2"]
    assert conversion.rows[:3] == [
        {"id": "story-0", "criterion": "relevance", "judge": "Judge-A", "prompt": "1", "score": 1.0},
        {"id": "story-0", "criterion": "coherence", "judge": "Judge-A", "prompt": "1", "score": 1.1},
        {"id": "story-0", "criterion": "relevance", "judge": "Judge-B", "prompt": "2", "score": 1.2},
    ]
    by_key = {(row["id"], row["judge"], row["criterion"]): row["score"] for row in conversion.rows}
    # Story ID 96 + 4 is row 1 (GPT), position 4: 1 + 0 + column 2's tag 0.2 + row 1's 0.01
    assert by_key[("story-100", "Judge-B", "relevance")] == pytest.approx(1.21)
    assert by_key[("story-96", "Judge-A", "coherence")] == pytest.approx(1.11)


def test_failure_codes_are_kept_as_published_and_counted(tmp_path):
    folder = items_folder(tmp_path / "items")
    conversion = convert(published_csv(tmp_path / "published.csv"), items_of(folder), str(folder))
    by_key = {(row["id"], row["judge"], row["criterion"]): row["score"] for row in conversion.rows}
    assert by_key[("story-5", "Judge-A", "relevance")] == -1.0
    assert by_key[("story-100", "Judge-A", "relevance")] == 0.33
    assert conversion.off_scale == 2


def test_stories_without_an_item_are_counted_and_named(tmp_path):
    folder = items_folder(tmp_path / "items")
    conversion = convert(published_csv(tmp_path / "published.csv"), items_of(folder), str(folder))
    assert conversion.stories == 192
    assert len(conversion.unmatched) == 188 and conversion.unmatched[:6] == [1, 2, 3, 4, 6, 7]
    summary = conversion.summary(tmp_path / "out.jsonl")
    assert "2 judges (Judge-A, Judge-B) x 2 prompts" in summary
    assert (
        "188 of the file's 192 stories have no item and are left out (Story IDs 1, 2, 3, 4, 6, 7, 8, 9, 10, 11 ...)"
        in (summary)
    )
    assert "2 values off the 1-5 scale" in summary


def test_the_command_writes_jsonl_the_task_reads(tmp_path, capsys):
    folder = items_folder(tmp_path / "items")
    out = tmp_path / "judgments.jsonl"
    run([str(published_csv(tmp_path / "published.csv")), "--data-dir", str(folder), "--out", str(out)])
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert (
        len(lines) == 12
        and lines[0]["id"] == "story-0"
        and set(lines[0])
        == {
            "id",
            "criterion",
            "judge",
            "prompt",
            "score",
        }
    )
    assert f"wrote 12 judgments to {out}" in capsys.readouterr().out


def test_a_story_in_another_systems_row_is_refused(tmp_path):
    folder = items_folder(tmp_path / "items", {0: "Human", 96: "CTRL"})
    with pytest.raises(DataError, match=r"item story-96 \(Story ID 96\) was written by 'CTRL', but .* row of 'GPT'"):
        convert(published_csv(tmp_path / "published.csv"), items_of(folder), str(folder))


def test_a_file_in_another_layout_is_refused(tmp_path):
    path = tmp_path / "other.csv"
    path.write_text("system,score\nGPT,3\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"other.csv: expected the layout of hanna_metric_scores_llm.csv"):
        read_published(path)


def test_a_short_cell_names_line_system_and_column(tmp_path):
    path = published_csv(tmp_path / "short.csv", length=95)
    with pytest.raises(DataError, match=r"short.csv, line 2 \(Human\), column 'Judge-A RE 1': expected a list of 96"):
        read_published(path)


def test_the_published_file_converts_onto_the_shared_items(tmp_path):
    """The real file: 5 judges x 4 prompts x 6 criteria on the 1,005 stories the shared items hold."""
    published = data_folder("recorded", "hanna_llm") / PUBLISHED
    folder = data_folder("human", "hanna")
    conversion = convert(published, items_of(folder), str(folder))
    assert conversion.judges == ["Beluga-13B", "ChatGPT", "Llama-13B", "Mistral-7B", "OrcaPlatypus"]
    assert len(conversion.rows) == 5 * 4 * 6 * 1005 and len(conversion.unmatched) == 51
    assert conversion.off_scale == 981


def test_exclude_systems_leaves_a_systems_responses_out_of_the_task(tmp_path):
    folder = items_folder(tmp_path / "items")
    task = hanna(data_dir=str(folder), exclude_systems="Human")
    assert [sample.id for sample in task.dataset] == ["story-96", "story-100"]
    assert task.metadata["exclude_systems"] == ["Human"] and task.metadata["n_items"] == 2
    assert hanna(data_dir=str(folder)).metadata["exclude_systems"] is None


def test_exclude_systems_names_the_systems_when_one_is_unknown(tmp_path):
    folder = items_folder(tmp_path / "items")
    with pytest.raises(OptionError, match=r"no item of .* was written by \['Humen'\]; its systems: \['GPT', 'Human'\]"):
        hanna(data_dir=str(folder), exclude_systems="Humen")


def test_exclude_systems_is_lm_evals_option_too(tmp_path):
    from lm_eval_tasks.utils import docs

    folder = items_folder(tmp_path / "items")
    documents = docs(suite_task="adherence_hanna_rubric", data_dir=str(folder), exclude_systems="Human")["test"]
    assert {json.loads(doc["metadata"])["system"] for doc in documents} == {"GPT"}
    assert len({doc["sample_id"] for doc in documents}) == 2


def test_exclude_systems_keeps_hannas_generated_stories():
    task = hanna(data_dir=str(data_folder("human", "hanna")), exclude_systems=["Human"])
    assert task.metadata["n_items"] == 909
    assert {sample.metadata["system"] for sample in task.dataset} == set(SYSTEMS_OF_10)


TWO_JUDGES = (("Mistral-7B", "1"), ("ChatGPT", "3"))
"""Two of the published judges: Mistral-7B's first prompt has the most failure codes (up to 54 stories a criterion)."""


@pytest.fixture(scope="module")
def recorded_command(tmp_path_factory):
    """``judge-meta-eval recorded`` on two published judges' judgments (30 prompts' stories, the figure's recipe),
    run once in this process."""
    tmp = tmp_path_factory.mktemp("recorded")
    folder = data_folder("human", "hanna")
    conversion = convert(data_folder("recorded", "hanna_llm") / PUBLISHED, items_of(folder), str(folder))
    judgments = tmp / "judgments.jsonl"
    write_judgments([row for row in conversion.rows if (row["judge"], row["prompt"]) in TWO_JUDGES], judgments)
    command = [
        "recorded", str(judgments), "--task", "adherence_tasks/hanna", "--published", "hanna_chhun2024",
        "-T", f"data_dir={folder}", "-T", "exclude_systems=Human", "-T", "documents=30",
        "--log-dir", str(tmp / "logs"), "--report", str(tmp / "report"), "--display", "log",
    ]  # fmt: skip
    printed = io.StringIO()
    with patch.dict(os.environ, {"INSPECT_CACHE_DIR": str(tmp / "cache")}), redirect_stdout(printed):
        # in a copy of the context: inspect leaves the run's model (none) active, which later tests would see
        contextvars.copy_context().run(judge_meta_eval_main, command)
    (tmp / "printed.txt").write_text(printed.getvalue(), encoding="utf-8")
    return tmp


def published_values(judge: str, prompt: str) -> np.ndarray:
    """A judge column of the published file, criterion by criterion: (6, systems, 96), read here with csv and json."""
    csv.field_size_limit(1 << 30)
    path = data_folder("recorded", "hanna_llm") / PUBLISHED
    with path.open(encoding="utf-8", newline="") as handle:
        records = list(csv.DictReader(handle))
    number = prompt.split()[-1]
    return np.array([[json.loads(record[f"{judge} {code} {number}"]) for record in records] for code in CODES])


def test_the_recorded_command_logs_what_scipy_computes_on_the_same_items(recorded_command):
    """Every logged per-criterion Pearson, Kendall and system tau of each run equals scipy's on the run's items, the
    values off 1-5 left out and counted as parse failures (the issue's done-when, on two of the twenty judges)."""
    logs = [read_eval_log(info.name) for info in list_eval_logs(str(recorded_command / "logs"))]
    assert sorted((log.eval.task_args["judge"], log.eval.task_args["prompt"]) for log in logs) == sorted(TWO_JUDGES)
    items = {item.id: item for item in items_of(data_folder("human", "hanna"))}
    for log in logs:
        values = published_values(log.eval.task_args["judge"], log.eval.task_args["prompt"])
        metrics = {name: metric.value for score in log.results.scores for name, metric in score.metrics.items()}
        chosen = [items[str(sample.id)] for sample in log.samples]
        assert len(chosen) == log.eval.metadata["n_items"] and {item_system(i) for i in chosen} == set(SYSTEMS_OF_10)
        failures = 0
        for code, criterion in zip(CODES, CRITERIA, strict=True):
            judged = np.array(
                [values[CODES.index(code)][i.meta["story_id"] // 96][i.meta["story_id"] % 96] for i in chosen]
            )
            human = np.array([i.human[criterion] for i in chosen])
            systems = np.array([item_system(i) for i in chosen])
            parsed = (judged >= 1) & (judged <= 5)
            failures += int((~parsed).sum())
            judged, human, systems = judged[parsed], human[parsed], systems[parsed]
            names = sorted(set(systems))
            judge_means = [judged[systems == name].mean() for name in names]
            human_means = [human[systems == name].mean() for name in names]
            assert metrics[f"pearson/{criterion}"] == pytest.approx(stats.pearsonr(judged, human).statistic, abs=1e-12)
            assert metrics[f"kendall/{criterion}"] == pytest.approx(
                stats.kendalltau(judged, human).statistic, abs=1e-12
            )
            expected = stats.kendalltau(judge_means, human_means).statistic
            assert metrics[f"system_tau/{criterion}"] == pytest.approx(expected, abs=1e-12)
        assert metrics["parse_failures"] == failures
    mistral = next(log for log in logs if log.eval.task_args["judge"] == "Mistral-7B")
    assert mistral.results.scores[0].metrics["parse_failures"].value > 0


def test_the_recorded_command_refuses_the_options_it_sets(tmp_path):
    judgments = tmp_path / "j.jsonl"
    write_judgments([{"id": "hanna-0000", "criterion": "relevance", "judge": "a", "score": 3}], judgments)
    with pytest.raises(OptionError, match=r"-T judge: the command sets them"):
        recorded_tasks(judgments, "adherence_tasks/hanna", {"judge": "a"})
    with pytest.raises(OptionError, match=r"--task adherence_tasks/hana: not a task of this package"):
        recorded_tasks(judgments, "adherence_tasks/hana", {})


def test_the_recorded_command_prints_no_cost_for_judgments_read_from_a_file(recorded_command):
    printed = (recorded_command / "printed.txt").read_text(encoding="utf-8")
    assert "2 recorded judge(s): their judgments were read from a file, so no cost or speed" in printed
    assert "per 1,000 judgments" not in printed


def test_the_recorded_commands_report_names_the_judges_and_sets_the_figure_beside_them(recorded_command):
    report = json.loads((recorded_command / "report" / "report.json").read_text(encoding="utf-8"))
    assert {judge["name"] for judge in report["judges"]} == {"Mistral-7B (prompt 1)", "ChatGPT (prompt 3)"}
    (published,) = [table for table in report["paper_tables"] if table["name"] == "published"]
    measured = {tuple(row["labels"][::2]): row["cells"] for row in published["rows"] if "measured" in row["cells"]}
    assert len(measured) == 2 * 13  # each figure judge's 6 + 6 cells and its system-level Avg
    cells = measured[("Mistral-7B (prompt 1)", "system_tau/relevance")]
    assert cells["published"]["value"] == 0.36
    assert cells["measured as printed"]["value"] == round(100 * abs(cells["measured"]["value"])) / 100
    (suite,) = report["suite_tables"]
    references = [row["labels"][0] for row in suite["rows"] if row["reference"] and "as published" in row["labels"][0]]
    assert sorted(references) == [
        "reference: ChatGPT (prompt 3) as published (Chhun et al., TACL 2024)",
        "reference: Mistral-7B (prompt 1) as published (Chhun et al., TACL 2024)",
    ]
