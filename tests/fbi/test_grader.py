"""The grader under test: any inspect scorer on FBI's items (``fbi_tasks/grader``), run against stand-in grader
models on 127.0.0.1, and how its grades are read."""

from __future__ import annotations

import json
import math
import os
import re
from unittest.mock import patch

import pytest

from fbi_tasks.build import INSTRUCTIONS, read_suite
from fbi_tasks.build import main as build_main
from fbi_tasks.data import load_items
from judge_data import DataError, OptionError
from judge_report.items import column_references, headline_statistic, read_samples
from judge_report.judges import judges_of
from judge_report.runs import Run, grader_name, read_runs
from judge_report.tables import build_report
from scorers.grader import grade_value
from solvers.grader import arguments_hash, load_grader, scorer_arguments
from tests.support.commands import create_task
from tests.support.fake_judge import reads_request, serve
from tests.support.inspect_runs import eval_command, eval_in_process, metrics_of, originals_of, run_command

ITEMS = ("abilities=factual,score_invariant", "per_category=1")
"""Six factual items (one per category) and one score-invariant edit."""

_SUBMISSION = re.compile(r"\[Submission\]: (.*?)\n\*+\n\[END DATA\]", re.DOTALL)
_QA = re.compile(
    r"\[Task\]: (.*?)\n\*+\n\[Submission\]: (.*?)\n\*+\n\[Criterion\]: (.*?)\n\*+\n\[END DATA\]", re.DOTALL
)
_EXPERT = re.compile(r"\[Expert\]: (.*?)\n\*+\n\[Submission\]", re.DOTALL)


@pytest.mark.parametrize(
    ("value", "grade"),
    [("C", 1.0), ("I", 0.0), ("P", 0.5), ("N", 0.0), ("yes", 1.0), ("False", 0.0), ("7", 7.0), (3, 3.0), (True, 1.0)],
)
def test_grades_are_read_with_inspects_conversion(value, grade):
    assert grade_value(value) == grade


@pytest.mark.parametrize("value", [math.nan, None, "maybe", "c+", {"score": 1}, [1, 0], math.inf])
def test_what_the_conversion_cannot_read_is_no_grade(value):
    assert grade_value(value) is None


def test_scorer_arguments_from_json_or_a_file(tmp_path):
    assert scorer_arguments('{"grade_pattern": "G: (C|I)"}') == {"grade_pattern": "G: (C|I)"}
    assert scorer_arguments({"partial_credit": True}) == {"partial_credit": True}
    (tmp_path / "args.yaml").write_text("instructions: Grade it.\npartial_credit: true\n")
    assert scorer_arguments(str(tmp_path / "args.yaml")) == {"instructions": "Grade it.", "partial_credit": True}
    with pytest.raises(OptionError, match="must be an object"):
        scorer_arguments("[1, 2]")
    with pytest.raises(OptionError, match="no such file"):
        scorer_arguments(str(tmp_path / "missing.json"))


def test_an_edited_template_file_is_another_grader(tmp_path):
    template = tmp_path / "template.txt"
    template.write_text("Grade {answer} against {criterion}. {instructions}")
    before = arguments_hash({"template": str(template)})
    template.write_text("Grade {answer} strictly against {criterion}. {instructions}")
    assert arguments_hash({"template": str(template)}) != before
    assert arguments_hash({"a": 1, "b": 2}) == arguments_hash({"b": 2, "a": 1})


def test_unknown_scorers_and_arguments_are_one_clear_error(tmp_path):
    with pytest.raises(OptionError, match="-T scorer=model_graded_fakt: no inspect scorer of that name"):
        load_grader("model_graded_fakt", {})
    with pytest.raises(OptionError, match="no such file"):
        load_grader(str(tmp_path / "mine.py@grade"), {})
    with pytest.raises(OptionError, match="model_graded_fact does not take these arguments"):
        load_grader("model_graded_fact", {"tempalte": "x"})
    with pytest.raises(OptionError, match="-T scorer=model_graded_fact"):
        create_task("fbi_tasks/grader")


def test_graders_of_one_model_are_named_apart_by_their_arguments():
    """Two templates of one scorer on one grader model are two judges, named after the scorer and its arguments'
    hash; the judges table lists the arguments (a long template shortened)."""

    def run(arguments: dict) -> Run:
        grader = {
            "scorer": "model_graded_fact",
            "scorer_args": arguments,
            "scorer_args_hash": arguments_hash(arguments),
        }
        metadata = {"grader": grader, "paradigm": "grader", "target": "gold", "task_version": 1}
        return Run("log", "inspect", "fbi_grader", "1", "openai/gpt-4o-mini", {}, metadata, {}, {"error_rate": 0.5},
                   10, "2026-11-26", grader=grader_name(metadata))  # fmt: skip

    strict, plain = run({"template": "Be strict. " * 10 + "{question} {answer} {criterion} {instructions}"}), run({})
    judges = judges_of([strict, plain])
    assert judges[plain.judge].name == "model_graded_fact on openai/gpt-4o-mini"
    hashed = arguments_hash(strict.metadata["grader"]["scorer_args"])[:6]
    assert judges[strict.judge].name == f"model_graded_fact #{hashed} on openai/gpt-4o-mini"
    shown = judges[strict.judge].model_args["scorer_args.template"]
    assert shown.startswith("Be strict. Be strict.") and len(shown) < 60


@pytest.mark.integration
def test_model_graded_fact_against_three_stand_in_graders(tmp_path, fbi_data):
    """One ``inspect eval`` runs the task once per grader model: one that tells gold from perturbed, one that passes
    everything, one whose answers carry no grade."""
    items = load_items(fbi_data, per_category=1, abilities=["factual", "score_invariant"]).items
    golds = {item.gold for item in items}
    experts: list[str] = []

    def discerning(prompt: str) -> str:
        experts.append(_EXPERT.search(prompt).group(1))
        return "GRADE: C" if _SUBMISSION.search(prompt).group(1) in golds else "The numbers are off.\nGRADE: I"

    graders = {"discerning": discerning, "lenient": lambda prompt: "GRADE: C", "rambling": lambda prompt: "Fine."}
    models = ",".join(f"openai-api/fakejudge/{name}" for name in graders)
    command = eval_command("fbi_tasks/grader", "scorer=model_graded_fact", f"data_dir={fbi_data}", *ITEMS)
    command[command.index("openai-api/fakejudge/judge")] = models
    result, calls = run_command(command, graders, tmp_path)
    assert len(calls) == 3 * 2 * len(items)
    assert set(experts) == golds  # the gold answer is the target

    runs, skipped = read_runs([tmp_path / "logs"])
    assert not skipped and len(runs) == 3
    by_model = {run.model.rsplit("/", 1)[-1]: run for run in runs}
    discerned, passed, rambled = (by_model[name].metrics for name in graders)
    assert discerned["error_rate"] == 0.0 and discerned["si_error_rate"] == 1.0
    assert discerned["error_rate/factual/entity"] == 0.0 and discerned["parse_failures"] == 0
    assert passed["error_rate"] == 1.0 and passed["si_error_rate"] == 0.0
    assert math.isnan(rambled["error_rate"]) and math.isnan(rambled["si_error_rate"])
    assert rambled["parse_failures"] == 2 * len(items) and rambled["scorer_errors"] == 0
    assert "14 of 14 judge answers (100%) did not parse" in " ".join((result.stdout + result.stderr).split())

    run = by_model["discerning"]
    assert run.metadata["grader"] == {
        "scorer": "model_graded_fact",
        "scorer_args": {},
        "scorer_args_hash": arguments_hash({}),
    }
    assert run.metadata["target"] == "gold" and run.metadata["paradigm"] == "grader"
    report = build_report(runs)
    prefix = "model_graded_fact on openai-api/fakejudge/"
    assert sorted(judge.name for judge in report.judges.values()) == [
        f"model_graded_fact on openai-api/fakejudge/{name}" for name in sorted(graders)
    ]
    (compared,) = [row for row in report.comparisons if {row.a, row.b} == {f"{prefix}discerning", f"{prefix}lenient"}]
    assert compared.column == "fbi_grader error_rate" and compared.difference == -1.0 and compared.n_items == 6
    assert compared.p == pytest.approx(1 / 32)  # exact McNemar: the 5 perturbed items, all discordant
    ranks = {row[0].removeprefix(prefix): cell.rank for (row, _), cell in report.leaderboard.cells.items()}
    assert ranks["discerning"] == 1 and ranks["lenient"] is not None
    references = {row.reference: row.value for row in report.references if row.column == "fbi_grader error_rate"}
    assert references == {"random judge": 0.75, "constant judge": 1.0}


GRADER_FILE = '''
from inspect_ai.scorer import Score, Target, mean, scorer


@scorer(metrics=[mean()])
def knows_gold(down_for: str = ""):
    """Passes the gold answer alone; needs no target; raises for one category, as a grader that is down."""

    async def score(state, target: Target) -> Score:
        if target.text:
            raise ValueError("this grader takes no target")
        if state.metadata["category"] == down_for:
            raise RuntimeError("grader unreachable")
        return Score(value=state.output.completion == state.metadata["gold"])

    return score
'''


@pytest.mark.integration
def test_a_scorer_from_a_file_without_a_target(tmp_path, fbi_data):
    """``file.py@function`` with its arguments; its exceptions are counted as scorer errors, never as a pass."""
    (tmp_path / "my_grader.py").write_text(GRADER_FILE)
    log, calls = eval_in_process(
        "fbi_tasks/grader",
        lambda prompt: "unused",
        tmp_path,
        f"scorer={tmp_path / 'my_grader.py'}@knows_gold",
        'scorer_args={"down_for": "entity"}',
        "target=none",
        f"data_dir={fbi_data}",
        *ITEMS,
    )
    metrics = metrics_of(log)
    assert not calls
    assert metrics["error_rate"] == 0.0 and metrics["si_error_rate"] == 1.0
    assert math.isnan(metrics["error_rate/factual/entity"])
    assert metrics["scorer_errors"] == 2 and metrics["parse_failures"] == 0  # raised, not unreadable
    assert metrics["error_rate_n"] == 5 and metrics["error_rate_n/factual/entity"] == 0
    entity = next(sample for sample in log.samples if sample.metadata["category"] == "entity")
    grades = entity.store["grader_grades"]
    assert grades["gold"]["error"] == "RuntimeError: grader unreachable" and grades["gold"]["value"] is None
    assert grades["gold"]["raised_at"].startswith(f'File "{tmp_path / "my_grader.py"}", line 1')
    assert log.eval.metadata["grader"]["scorer_args"] == {"down_for": "entity"}


def _passes_the_originals(originals: set[str], seen: list[tuple[str, str]]):
    """A ``model_graded_qa`` stand-in: C for an original text, I for a damaged copy; records (task, criterion)."""

    def grader(prompt: str) -> str:
        task, submission, criterion = _QA.search(prompt).groups()
        seen.append((task, criterion))
        return "GRADE: C" if submission in originals else "GRADE: I"

    return grader


@pytest.mark.integration
def test_model_graded_qa_on_dhp_texts(tmp_path, dhp_data):
    """Each text is graded on its own against the dataset's criteria, with its source article as the task; a grader
    that passes the originals and fails their damaged copies discerns the damage."""
    summeval = dhp_data("summeval")
    originals = originals_of("summeval", summeval, 6)
    seen: list[tuple[str, str]] = []
    grader = _passes_the_originals(originals, seen)

    log, calls = eval_in_process(
        "dhp_tasks/grader",
        grader,
        tmp_path,
        "scorer=model_graded_qa",
        f"data_dir={summeval}",
        "n=6",
        "perturbations=typos_major",
    )
    metrics = metrics_of(log)
    assert len(calls) == 6 * 2
    assert metrics["D/typos_major"] == pytest.approx(math.log(1 / 64) / math.log(0.05))
    assert metrics["parse_failures"] == 0
    contexts = {sample.metadata["context"] for sample in log.samples}
    assert {task for task, _ in seen} == contexts
    assert all(criterion.startswith("Coherence: how well the sentences") for _, criterion in seen)
    assert log.eval.task == "dhp_grader_summeval" and log.eval.metadata["grader"]["scorer"] == "model_graded_qa"
    (run,), _ = read_runs([tmp_path / "logs"])
    statistic = headline_statistic(run, "dhp_grader", "D_avg", read_samples)
    assert statistic.estimate() == pytest.approx(metrics["D_avg"])  # the report's per-item form is the suite's D_avg
    references = {r.reference: r for r in column_references("dhp_grader", "D_avg", [run], read_samples)}
    assert references["constant judge"].value == 0.0 and references["random judge"].value > 0


@pytest.mark.integration
def test_a_grader_given_no_input_sees_the_text_and_its_reference_alone(tmp_path, dhp_data):
    """``input=none``: the grader sees no source article, only the text and (``target=reference``) the original."""
    summeval = dhp_data("summeval")
    originals = originals_of("summeval", summeval, 2)
    seen: list[tuple[str, str]] = []
    grader = _passes_the_originals(originals, seen)

    log, _ = eval_in_process(
        "dhp_tasks/grader",
        grader,
        tmp_path,
        "scorer=model_graded_qa",
        f"data_dir={summeval}",
        "n=2",
        "perturbations=typos_major",
        "input=none",
        "target=reference",
    )
    assert len(seen) == 2 * 2 and {task for task, _ in seen} == {""}
    assert {criterion for _, criterion in seen} == originals
    assert log.eval.metadata["input"] == "none" and metrics_of(log)["parse_failures"] == 0


OWN_ITEMS = [
    {"id": "capital", "question": "What is the capital of France?", "answer": "The capital of France is Paris."},
    {"id": "sum", "question": "What is 2 + 3?", "answer": "2 + 3 = 5, so the answer is 5.", "reference": "5"},
]

_TO_REWRITE = re.compile(r"Change to make: (.*?)\n\n.*Answer to rewrite:\n(.*)\n\nReply with", re.DOTALL)


@reads_request
def stand_in_perturber(request: dict) -> str:
    """Spelling: the answer unchanged at temperature 0 (refused), a misspelt copy when sampled; entity: the
    instruction echoed at temperature 0 (refused), a made-up name when sampled; score-invariant: a rewording."""
    change, answer = _TO_REWRITE.search(request["messages"][-1]["content"]).groups()
    if change == INSTRUCTIONS["spelling"]:
        return answer.replace("the", "teh", 1) if request.get("temperature") else answer
    if change == INSTRUCTIONS["entity"]:
        return f"Zorblax says: {answer}" if request.get("temperature") else f"Change to make: {change}\n{answer}"
    return f"In other words, {answer[0].lower()}{answer[1:]}"


@pytest.mark.integration
def test_fbi_build_writes_a_suite_the_grader_reads(tmp_path, capsys):
    """Own answers perturbed by a stand-in perturber; a rebuild calls no model and writes the same bytes; the grader
    reads the suite, and a changed file fails its checksum."""
    (tmp_path / "items.jsonl").write_text("\n".join(json.dumps(item) for item in OWN_ITEMS) + "\n")
    build = ["--perturber", "openai-api/fakejudge/perturber", "--categories", "spelling,entity,score_invariant"]
    with serve(stand_in_perturber) as (url, calls):
        env = {"FAKEJUDGE_BASE_URL": url, "FAKEJUDGE_API_KEY": "test", "INSPECT_CACHE_DIR": str(tmp_path / "cache")}
        with patch.dict(os.environ, env):
            build_main([str(tmp_path / "items.jsonl"), "-o", str(tmp_path / "suite.jsonl"), *build])
            first_calls = len(calls)
            first = capsys.readouterr().out
            build_main([str(tmp_path / "items.jsonl"), "-o", str(tmp_path / "again.jsonl"), *build])
            again = capsys.readouterr().out
    # entity: echoed, then sampled (2 x 2); score-invariant: 2; spelling: refused once, then sampled ("sum"),
    # refused three times ("capital")
    assert first_calls == 4 + 2 + 2 + 3
    assert len(calls) == first_calls
    assert "perturber calls: 11 (0 answered by inspect's cache, 11 sent to the perturber)" in first
    assert "perturber calls: 11 (11 answered by inspect's cache, 0 sent to the perturber)" in again
    assert (tmp_path / "again.jsonl").read_bytes() == (tmp_path / "suite.jsonl").read_bytes()
    header, items = read_suite(tmp_path / "suite.jsonl")
    assert header["report"]["refused"] == {"entity: repeats the instructions": 2, "spelling: identical": 4}
    assert header["report"]["given_up"] == ["spelling/capital"]  # it has no "the" to misspell
    assert {(item.id, item.category) for item in items} == {
        (own["id"], category) for own in OWN_ITEMS for category in ("spelling", "entity", "score_invariant")
    } - {("capital", "spelling")}
    spelling = {item.id: item.perturbed for item in items if item.category == "spelling"}
    assert spelling["sum"] == "2 + 3 = 5, so teh answer is 5."

    golds = {own["answer"] for own in OWN_ITEMS}

    def grader(prompt: str) -> str:
        return "GRADE: C" if _SUBMISSION.search(prompt).group(1) in golds else "GRADE: I"

    log, _ = eval_in_process(
        "fbi_tasks/grader", grader, tmp_path / "run", "scorer=model_graded_fact", f"suite={tmp_path / 'suite.jsonl'}"
    )
    metrics = metrics_of(log)
    assert len(log.samples) == 5
    assert metrics["error_rate"] == 0.0 and metrics["si_error_rate"] == 1.0
    assert log.eval.metadata["suite"] == header["checksum"]

    pairwise = create_task("fbi_tasks/pairwise", f"suite={tmp_path / 'suite.jsonl'}", "categories=entity")
    assert [sample.id for sample in pairwise.dataset] == ["entity/capital", "entity/sum"]
    assert pairwise.metadata["suite"] == header["checksum"]

    lines = (tmp_path / "suite.jsonl").read_text().splitlines()
    (tmp_path / "changed.jsonl").write_text("\n".join([lines[0], lines[1].replace("Zorblax", "Zorb"), *lines[2:]]))
    with pytest.raises(DataError, match="row 1: the checksum does not match"):
        read_suite(tmp_path / "changed.jsonl")
