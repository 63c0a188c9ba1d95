"""Suites built once with dhp-build: provenance, cached perturber calls, byte-identical rebuilds, judging a suite."""

from __future__ import annotations

import asyncio
import csv
import json
from collections import Counter

import pytest

from dhp_tasks.data import DATASETS
from dhp_tasks.suite import SUITE_FORMAT, all_perturbations, build_suite, read_suite, write_suite
from judge_data import DataError, OptionError
from judge_report.cli import run as judge_report
from tests.support.commands import BIN, run_cli
from tests.support.fake_judge import knows_originals, perturber, serve
from tests.support.inspect_runs import metrics_of, run_inspect

DHP_BUILD = str(BIN / "dhp-build")


@pytest.fixture
def perturber_server(monkeypatch, tmp_path):
    with serve(perturber) as (url, calls):
        monkeypatch.setenv("FAKEPERTURBER_BASE_URL", url)
        monkeypatch.setenv("FAKEPERTURBER_API_KEY", "test")
        monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
        yield calls


def test_rule_only_suite_needs_no_perturber(dhp_data, tmp_path):
    suite = asyncio.run(build_suite("storycloze", str(dhp_data("storycloze")), 5, 0, "typos,wrong_ending"))
    assert suite.header["format"] == SUITE_FORMAT and suite.header["provenance"]["perturber"] is None
    assert all(set(variants) == {"typos", "wrong_ending"} for variants in suite.variants.values())
    with pytest.raises(ValueError, match="need a perturber model"):
        asyncio.run(build_suite("storycloze", str(dhp_data("storycloze")), 5, 0, "grammar_errors"))


def test_build_is_cached_and_byte_identical(dhp_data, tmp_path, perturber_server):
    folder = str(dhp_data("summeval"))
    first = asyncio.run(build_suite("summeval", folder, 4, 0, perturber="openai-api/fakeperturber/p"))
    calls_first = len(perturber_server)
    assert calls_first == 4 * 6  # every LLM row of Table 2, one accepted reply each
    write_suite(first, tmp_path / "a.jsonl")
    second = asyncio.run(build_suite("summeval", folder, 4, 0, perturber="openai-api/fakeperturber/p"))
    assert len(perturber_server) == calls_first  # the rebuild came from inspect's cache
    write_suite(second, tmp_path / "b.jsonl")
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()

    loaded = read_suite(tmp_path / "a.jsonl")
    assert [item.id for item in loaded.items] == [item.id for item in first.items]
    counts = Counter(pid for variants in loaded.variants.values() for pid in variants)
    assert counts == {pid: 4 for pid in loaded.header["perturbations"]}
    assert loaded.header["provenance"]["prompt_version"]
    assert loaded.header["report"]["calls"] == 24 and loaded.header["report"]["rejected"] == {}
    # the preamble the stand-in adds to insertions is gone
    assert not any(v["rewrite_insert_minor"].startswith("Revised") for v in loaded.variants.values())


def test_dhp_build_command_and_judging_a_suite(dhp_data, tmp_path, perturber_server):
    suite_file = tmp_path / "storycloze.jsonl"
    command = [DHP_BUILD, "storycloze", "--data-dir", str(dhp_data("storycloze")), "--n", "6"]
    result = run_cli([*command, "--output", str(suite_file), "--perturber", "openai-api/fakeperturber/p"], tmp_path)
    assert "grammar_errors: 6 variants" in result.stdout
    suite = read_suite(suite_file)
    originals = {item.text for item in suite.items}
    log, _ = run_inspect(
        "dhp_tasks/storycloze", knows_originals(originals), tmp_path / "judge", f"suite={suite_file}", "repeats=1"
    )
    metrics = metrics_of(log)
    assert {"D/fictional_entities", "D/grammar_errors", "D/typos", "D/wrong_ending"} <= set(metrics)
    assert all(value > 1 for name, value in metrics.items() if name.startswith("D/"))
    judged = {s.metadata["response"] for s in log.samples if s.metadata["perturbation"] == "grammar_errors"}
    assert judged == {variants["grammar_errors"] for variants in suite.variants.values()}
    assert log.eval.metadata["suite"]["perturber"] == "openai-api/fakeperturber/p"

    log_file = next((tmp_path / "judge" / "logs").glob("*.json"))
    out = judge_report([str(log_file), "--out", str(tmp_path / "report"), "--format", "csv", "--plots", "png"])
    assert (out / "plots" / "dhp_styles_dhp_storycloze.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    rows = {row["perturbation"]: row for row in csv.DictReader((out / "tables" / "dhp_response_styles.csv").open())}
    assert set(rows) == set(suite.header["perturbations"])
    assert all(float(row["mean_original"]) == 5.0 and float(row["mean_perturbed"]) == 1.0 for row in rows.values())
    assert all(row["n_pairs"] == "6" for row in rows.values())


def test_suite_for_another_dataset_is_refused(dhp_data, tmp_path):
    from dhp_tasks.dhp import storycloze, summeval

    suite = asyncio.run(build_suite("storycloze", str(dhp_data("storycloze")), 3, 0, "typos"))
    write_suite(suite, tmp_path / "s.jsonl")
    assert len(storycloze(suite=str(tmp_path / "s.jsonl")).dataset) == 6
    with pytest.raises(ValueError, match="built for 'storycloze'"):
        summeval(suite=str(tmp_path / "s.jsonl"))


def test_a_suite_changed_by_hand_is_refused(dhp_data, tmp_path):
    """A written suite carries the checksum of its item lines; one edited variant fails it."""
    suite = asyncio.run(build_suite("storycloze", str(dhp_data("storycloze")), 3, 0, "typos"))
    write_suite(suite, tmp_path / "s.jsonl")
    header, *rows = (tmp_path / "s.jsonl").read_text(encoding="utf-8").splitlines()
    assert read_suite(tmp_path / "s.jsonl").header["checksum"] == json.loads(header)["checksum"]
    edited = json.loads(rows[0])
    edited["variants"]["typos"] += " Edited."
    (tmp_path / "s.jsonl").write_text("\n".join([header, json.dumps(edited), *rows[1:]]) + "\n", encoding="utf-8")
    with pytest.raises(DataError, match="s.jsonl, row 1: the checksum does not match the item lines"):
        read_suite(tmp_path / "s.jsonl")


@pytest.mark.parametrize("value", [None, "", ",", " , ", []])
def test_perturbations_that_select_nothing_are_refused(dhp_data, value):
    from dhp_tasks.dhp import storycloze

    with pytest.raises(OptionError, match="perturbations selects nothing"):
        storycloze(data_dir=str(dhp_data("storycloze")), n=3, perturbations=value)


def test_llm_rows_without_a_suite_are_refused(dhp_data):
    from dhp_tasks.dhp import summeval

    with pytest.raises(ValueError, match="build one with dhp-build"):
        summeval(data_dir=str(dhp_data("summeval")), n=3, perturbations="grammar_errors_minor")


GOOD_HEADER = {
    "format": SUITE_FORMAT,
    "dataset": "storycloze",
    "kind": "story",
    "provenance": {"perturber": None, "seed": 0},
    "perturbations": {"typos": {"family": "typos", "level": "character", "degree": None, "method": "rule", "k": 5}},
    "report": {},
}
GOOD_ROW = {"id": "a", "text": "He left.", "context": "A story.", "variants": {"typos": "He lfet."}}


def _write_suite_rows(path, header, *rows):
    path.write_text("".join(json.dumps(row) + "\n" for row in (header, *rows)))
    return path


def test_a_well_formed_suite_is_read(tmp_path):
    suite = read_suite(_write_suite_rows(tmp_path / "s.jsonl", GOOD_HEADER, GOOD_ROW))
    assert [(item.id, item.text, item.context) for item in suite.items] == [("a", "He left.", "A story.")]
    assert suite.variants == {"a": {"typos": "He lfet."}}
    assert [(p.id, p.level, p.k) for p in suite.perturbations()] == [("typos", "character", 5)]


def _without(mapping, key):
    return {name: value for name, value in mapping.items() if name != key}


@pytest.mark.parametrize(
    ("header", "row", "message"),
    [
        ({"format": "something-else"}, GOOD_ROW, "row 1: not a DHP suite header"),
        (_without(GOOD_HEADER, "provenance"), GOOD_ROW, "row 1: header field 'provenance' is missing"),
        (_without(GOOD_HEADER, "report"), GOOD_ROW, "row 1: header field 'report' is missing"),
        (
            {**GOOD_HEADER, "perturbations": ["typos"]},
            GOOD_ROW,
            "row 1: header field 'perturbations' must be a JSON object",
        ),
        (
            {**GOOD_HEADER, "perturbations": {"typos": {}}},
            GOOD_ROW,
            "row 1: perturbations.typos: field 'family' is missing",
        ),
        ({**GOOD_HEADER, "perturbations": {"typos": "rule"}}, GOOD_ROW, "row 1: perturbations.typos must be an object"),
        (
            {**GOOD_HEADER, "perturbations": {"typos": {**GOOD_HEADER["perturbations"]["typos"], "level": "letter"}}},
            GOOD_ROW,
            "row 1: perturbations.typos: field 'level' is 'letter'",
        ),
        (
            {**GOOD_HEADER, "perturbations": {"typos": {**GOOD_HEADER["perturbations"]["typos"], "k": "five"}}},
            GOOD_ROW,
            "row 1: perturbations.typos: field 'k' must be a positive integer",
        ),
        (GOOD_HEADER, {**GOOD_ROW, "variants": {"typo": "x"}}, r"row 2: variants \['typo'\] are not in the header"),
        (GOOD_HEADER, [1, 2], "row 2: expected a JSON object, got list"),
        (GOOD_HEADER, {**GOOD_ROW, "text": {"x": 1}}, "row 2: field 'text' must be a string, got dict"),
        (GOOD_HEADER, {**GOOD_ROW, "context": 3}, "row 2: field 'context' must be a string, got int"),
        (GOOD_HEADER, {**GOOD_ROW, "variants": ["He lfet."]}, "row 2: field 'variants' must be an object"),
        (GOOD_HEADER, {**GOOD_ROW, "variants": {"typos": 7}}, "row 2: variants.typos must be a non-empty string"),
        (GOOD_HEADER, _without(GOOD_ROW, "variants"), "row 2: field 'variants' is missing"),
    ],
)
def test_bad_suite_files_name_the_file_row_and_field(tmp_path, header, row, message):
    path = _write_suite_rows(tmp_path / "bad.jsonl", header, row)
    with pytest.raises(DataError, match=f"bad.jsonl, {message}"):
        read_suite(path)


@pytest.mark.parametrize("dataset", sorted(DATASETS))
def test_every_table_2_perturbation_is_built_for_every_dataset(dhp_data, dataset, perturber_server):
    suite = asyncio.run(
        build_suite(dataset, str(dhp_data(DATASETS[dataset].folder)), 3, 0, perturber="openai-api/fakeperturber/p")
    )
    assert set(suite.header["perturbations"]) == {p.id for p in all_perturbations(dataset)}
    built = Counter(pid for variants in suite.variants.values() for pid in variants)
    assert set(built) == set(suite.header["perturbations"])
    assert all(built[p.id] == len(suite.items) for p in all_perturbations(dataset) if p.method == "llm")
