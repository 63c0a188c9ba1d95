from collections import Counter

import pytest

from fbi_tasks.data import ABILITIES, CATEGORIES, load_items, select_categories
from fbi_tasks.prompts import AXES, pairwise_prompt, reference_prompt, single_prompt
from judge_data import DataError


def test_paper_counts(fbi_data):
    items = load_items(fbi_data)
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


def test_extra_files_only_on_request(fbi_data):
    assert len(load_items(fbi_data, include_extra=True)) == 2400 + 31 + 61
    assert {i.category for i in load_items(fbi_data, categories=["formatting"])} == {"formatting"}


def test_score_invariant_items_know_their_axis(fbi_data):
    items = load_items(fbi_data, abilities=["score_invariant"])
    assert len(items) == 516
    assert all(item.invariant for item in items)
    assert Counter(item.axis_ability for item in items) == {
        "long_form": 282,
        "factual": 108,
        "reasoning": 72,
        "instruction_following": 54,
    }


def test_per_category_cap_is_seeded(fbi_data):
    first = load_items(fbi_data, abilities=["reasoning"], per_category=3, seed=0)
    assert Counter(item.category for item in first) == {c.id: 3 for c in CATEGORIES if c.ability == "reasoning"}
    assert [i.id for i in first] == [
        i.id for i in load_items(fbi_data, abilities=["reasoning"], per_category=3, seed=0)
    ]
    assert [i.id for i in first] != [
        i.id for i in load_items(fbi_data, abilities=["reasoning"], per_category=3, seed=1)
    ]


def test_selection_errors():
    with pytest.raises(ValueError, match="unknown ability"):
        select_categories(["factuality"], None, False)
    with pytest.raises(ValueError, match="unknown category"):
        select_categories(None, ["entities"], False)
    assert {c.ability for c in select_categories(list(ABILITIES), None, False)} == set(ABILITIES)


def test_bad_tsv_names_file_row_field(tmp_path):
    folder = tmp_path / "factual"
    folder.mkdir()
    (folder / "entity-errors.tsv").write_text("cdx\tquestion\tog\tperturbed_gpt4\nf-1\tQ?\tgold\tbad\nf-2\tQ?\t\tbad\n")
    with pytest.raises(DataError, match=r"entity-errors.tsv, row 3: field 'og'"):
        load_items(tmp_path, categories=["entity"])
    with pytest.raises(DataError, match="missing FBI category file"):
        load_items(tmp_path, categories=["contextual"])


def test_prompts_hold_the_parts_each_strategy_needs():
    axis = AXES["factual"]
    star = single_prompt("vanilla_star", "Q?", "ans", 10, axis)
    assert "Q?" in star and "ans" in star and "rating only" in star and axis.name not in star
    rubric = single_prompt("axis_rubric", "Q?", "ans", 5, axis)
    assert axis.name in rubric and "5: " + axis.levels_5[4] in rubric and "First explain" in rubric
    with pytest.raises(ValueError, match="1-3 or 1-5"):
        single_prompt("rubric", "Q?", "ans", 10, axis)
    pair = pairwise_prompt("axis_rules", "Q?", "first", "second", axis)
    assert pair.index("first") < pair.index("second") and "Follow these rules" in pair and "[[C]]" in pair
    assert "[Reference answer]\ngold" in reference_prompt("Q?", "gold", "other", 10)


def test_release_archive_layout_is_found(monkeypatch, tmp_path, fbi_data):
    import shutil

    from fbi_tasks import data

    unpacked = tmp_path / "extracted"
    shutil.copytree(fbi_data, unpacked / "data")
    (unpacked / "__MACOSX" / "data" / "factual").mkdir(parents=True)
    (unpacked / "__MACOSX" / "data" / "reasoning").mkdir(parents=True)
    monkeypatch.setattr(data, "download_and_extract", lambda url: unpacked)
    assert data.release_root() == unpacked / "data"
    assert len(load_items(None, categories=["entity"])) == 87


def test_hub_revision_reads_the_same_layout(monkeypatch, fbi_data):
    import huggingface_hub

    asked = {}

    def fake_snapshot(**kwargs):
        asked.update(kwargs)
        return str(fbi_data)

    monkeypatch.setattr(huggingface_hub, "snapshot_download", fake_snapshot)
    items = load_items(None, categories=["do_more"], hub_revision="abc123")
    assert len(items) == 50
    assert asked["repo_id"] == "ai4bharat/FBI" and asked["revision"] == "abc123" and asked["repo_type"] == "dataset"


def test_hub_download_failure_points_to_data_dir(monkeypatch):
    import huggingface_hub

    def offline(**kwargs):
        raise OSError("offline")

    monkeypatch.setattr(huggingface_hub, "snapshot_download", offline)
    with pytest.raises(ConnectionError, match=r"ai4bharat/FBI@main from the Hugging Face hub \(offline\).*data_dir"):
        load_items(None, categories=["do_more"], hub_revision="main")
