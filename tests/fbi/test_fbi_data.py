import hashlib
import logging
import shutil
from collections import Counter

import pytest

from fbi_tasks.data import ABILITIES, CATEGORIES, FbiItem, load_items, select_categories
from fbi_tasks.definition import FBI
from fbi_tasks.fbi import pairwise, reference, single
from fbi_tasks.prompts import (
    AXES,
    explanation_check_prompt,
    fbi_strategy,
    pairwise_prompt,
    reference_prompt,
    single_prompt,
)
from judge_data import DataError

UNCHANGED = {
    "entity/factual-73_entity-errors",
    "number_errors/factual-26_number-errors",
    "do_less/if-297_do_less",
    "ignore_format/if-11_format",
    "calculations/reasoning-94_calculation-errors",
    "incorrect_units/reasoning-26_incorrect-units",
    "wrong_formula/reasoning-21_wrong-formula",
}
"""Items of perturbed categories whose perturbed answer is identical to the gold one in the release."""


def items_of(*args, **kwargs) -> list[FbiItem]:
    return load_items(*args, **kwargs).items


def test_paper_counts(fbi_data):
    items = items_of(fbi_data, keep_identical=True)
    assert len(items) == 2400
    by_ability = Counter(item.ability for item in items)
    assert by_ability == {
        "long_form": 528,
        "factual": 483,
        "instruction_following": 379,
        "reasoning": 494,
        "score_invariant": 516,
    }
    assert len({item.category for item in items}) == 23
    assert len({(item.category, item.id) for item in items}) == 2400


def test_identical_pairs_are_left_out_by_default(fbi_data, caplog):
    with caplog.at_level(logging.WARNING, logger="fbi_tasks.data"):
        selection = load_items(fbi_data)
    assert len(selection.items) == 2400 - 7
    assert {f"{item.category}/{item.id}" for item in selection.unchanged} == UNCHANGED
    assert all(name in caplog.text for name in UNCHANGED)
    kept = items_of(fbi_data, keep_identical=True)
    identical = [item for item in kept if item.gold == item.perturbed]
    assert len(identical) == 8  # the seven above and one score-invariant item, which stays in
    assert [item.id for item in identical if item.invariant] == ["lf-6_formatting-errors"]
    assert "lf-6_formatting-errors" in {item.id for item in selection.items}


def test_identical_pairs_are_left_out_before_the_per_category_draw(fbi_data):
    drawn = items_of(fbi_data, categories=["entity"], per_category=86)
    assert len(drawn) == 86 and "factual-73_entity-errors" not in {item.id for item in drawn}


def test_tasks_record_left_out_items_and_their_version(fbi_data):
    task = pairwise(data_dir=str(fbi_data), categories="entity,score_invariant")
    assert len(task.dataset) == 86 + 516
    assert task.metadata["left_out_identical"] == ["entity/factual-73_entity-errors"]
    assert task.version == FBI.version == task.metadata["task_version"]
    kept = single(data_dir=str(fbi_data), categories="entity", keep_identical=True)
    assert len(kept.dataset) == 87 and kept.metadata["left_out_identical"] == []
    assert reference(data_dir=str(fbi_data), categories="do_less").version == FBI.version


def test_extra_files_only_on_request(fbi_data):
    assert len(items_of(fbi_data, include_extra=True, keep_identical=True)) == 2400 + 31 + 61
    assert {i.category for i in items_of(fbi_data, categories=["formatting"])} == {"formatting"}


def test_score_invariant_items_know_their_axis(fbi_data):
    items = items_of(fbi_data, abilities=["score_invariant"])
    assert len(items) == 516
    assert all(item.invariant for item in items)
    assert Counter(item.axis_ability for item in items) == {
        "long_form": 282,
        "factual": 108,
        "reasoning": 72,
        "instruction_following": 54,
    }


def test_per_category_cap_is_seeded(fbi_data):
    first = items_of(fbi_data, abilities=["reasoning"], per_category=3, seed=0)
    assert Counter(item.category for item in first) == {c.id: 3 for c in CATEGORIES if c.ability == "reasoning"}
    assert [i.id for i in first] == [i.id for i in items_of(fbi_data, abilities=["reasoning"], per_category=3, seed=0)]
    assert [i.id for i in first] != [i.id for i in items_of(fbi_data, abilities=["reasoning"], per_category=3, seed=1)]


def test_selection_errors():
    with pytest.raises(ValueError, match="unknown ability"):
        select_categories(["factuality"], None, False)
    with pytest.raises(ValueError, match="unknown category"):
        select_categories(None, ["entities"], False)
    assert {c.ability for c in select_categories(list(ABILITIES), None, False)} == set(ABILITIES)


HEADER = "cdx\tquestion\tog\tperturbed_gpt4\n"


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ("f-2\tQ?\t\tbad\n", r"entity-errors.tsv, row 3: field 'og' is missing or empty"),
        ("f-2\tQ?\tgold\n", r"entity-errors.tsv, row 3: field 'perturbed_gpt4' is missing or empty"),
        ("f-2\n", r"entity-errors.tsv, row 3: field 'question' is missing or empty"),
        ("\tQ?\tgold\tbad\n", r"entity-errors.tsv, row 3: field 'cdx' is missing or empty"),
        ("f-2\tQ?\tgold\tpart\tof it\n", r"entity-errors.tsv, row 3: 1 field\(s\) beyond the header's 4 columns"),
        ("f-1\tQ?\tgold\tbad\n", r"entity-errors.tsv, row 3: field 'cdx' 'f-1' repeats the id of row 2"),
    ],
)
def test_bad_tsv_row_names_file_row_field(tmp_path, row, message):
    folder = tmp_path / "factual"
    folder.mkdir()
    (folder / "entity-errors.tsv").write_text(HEADER + "f-1\tQ?\tgold\tbad\n" + row)
    with pytest.raises(DataError, match=message):
        load_items(tmp_path, categories=["entity"])


def test_bad_tsv_file_or_header(tmp_path):
    folder = tmp_path / "factual"
    folder.mkdir()
    (folder / "entity-errors.tsv").write_text("cdx\tquestion\tgold\tperturbed_gpt4\nf-1\tQ?\tgold\tbad\n")
    with pytest.raises(DataError, match=r"entity-errors.tsv: missing column\(s\) \['og'\]"):
        load_items(tmp_path, categories=["entity"])
    with pytest.raises(DataError, match="missing FBI category file"):
        load_items(tmp_path, categories=["contextual"])


def test_explanation_check_shows_what_the_judge_saw():
    pair = explanation_check_prompt("Q?", [("Answer A", "gold text"), ("Answer B", "flawed text")], "Answer B", "Why")
    assert pair.index("[Answer A]\ngold text") < pair.index("[Answer B]\nflawed text") < pair.index("Why")
    assert "introduced into Answer B" in pair and "only in the other answer do not count" in pair
    alone = explanation_check_prompt("Q?", [("Answer", "flawed text")], "Answer", "Why")
    assert "[Answer]\nflawed text" in alone and "introduced into the answer" in alone and "[Answer A]" not in alone


def test_prompts_hold_the_parts_each_strategy_needs():
    axis = AXES["factual"]
    star = single_prompt(fbi_strategy("single", "vanilla_star"), "Q?", "ans", 10, axis)
    assert "Q?" in star and "ans" in star and "rating only" in star and axis.name not in star
    rubric = single_prompt(fbi_strategy("single", "axis_rubric"), "Q?", "ans", 5, axis)
    assert axis.name in rubric and "5: " + axis.levels_5[4] in rubric and "First explain" in rubric
    with pytest.raises(ValueError, match="1-3 or 1-5"):
        single_prompt(fbi_strategy("single", "rubric"), "Q?", "ans", 10, axis)
    pair = pairwise_prompt(fbi_strategy("pairwise", "axis_rules"), "Q?", "first", "second", axis)
    assert pair.index("first") < pair.index("second") and "Follow these rules" in pair and "[[C]]" in pair
    assert "[Reference answer]\ngold" in reference_prompt("Q?", "gold", "other", 10)


def test_release_archive_is_checked_and_its_layout_found(monkeypatch, tmp_path, fbi_data):
    from fbi_tasks import data
    from judge_data import io

    unpacked = tmp_path / "extracted"
    shutil.copytree(fbi_data, unpacked / "data")
    (unpacked / "__MACOSX" / "data" / "factual").mkdir(parents=True)
    (unpacked / "__MACOSX" / "data" / "reasoning").mkdir(parents=True)
    archive = tmp_path / "data.zip"
    archive.write_bytes(b"stand-in archive")

    class Cache:
        def download(self, url):
            return str(archive)

        def extract(self, path):
            assert path == str(archive)
            return str(unpacked)

    monkeypatch.setattr(io, "_download_manager", Cache)
    with pytest.raises(DataError, match=r"data.zip: the downloaded file does not have the expected content \(sha256"):
        data.release_root()
    monkeypatch.setattr(data, "FBI_RELEASE_SHA256", hashlib.sha256(b"stand-in archive").hexdigest())
    assert data.release_root() == unpacked / "data"
    assert len(items_of(None, categories=["entity"], keep_identical=True)) == 87


def test_release_pin_is_the_authors_commit():
    from fbi_tasks import data

    assert "/b8ce46a04e4886055e85cf7a441b04232f75b3e1/" in data.FBI_RELEASE_URL
    assert len(data.FBI_RELEASE_SHA256) == 64


COMMIT = "0123456789abcdef0123456789abcdef01234567"


def test_hub_revision_reads_the_same_layout(monkeypatch, fbi_data):
    import huggingface_hub

    asked = {}

    def fake_snapshot(**kwargs):
        asked.update(kwargs)
        return str(fbi_data)

    monkeypatch.setattr(huggingface_hub, "snapshot_download", fake_snapshot)
    items = items_of(None, categories=["do_more"], hub_revision=COMMIT)
    assert len(items) == 50
    assert asked["repo_id"] == "ai4bharat/FBI" and asked["revision"] == COMMIT and asked["repo_type"] == "dataset"


@pytest.mark.parametrize("revision", ["main", "ff2b9de", "v1.0"])
def test_hub_revision_must_be_a_commit(revision):
    with pytest.raises(ValueError, match="not a full 40-character commit hash"):
        load_items(None, categories=["do_more"], hub_revision=revision)


def test_hub_download_failure_points_to_data_dir(monkeypatch):
    import huggingface_hub

    def offline(**kwargs):
        raise OSError("offline")

    monkeypatch.setattr(huggingface_hub, "snapshot_download", offline)
    with pytest.raises(
        ConnectionError, match=rf"ai4bharat/FBI@{COMMIT} from the Hugging Face hub \(offline\).*data_dir"
    ):
        load_items(None, categories=["do_more"], hub_revision=COMMIT)
