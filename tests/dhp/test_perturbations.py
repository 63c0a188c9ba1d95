import random
import re
from itertools import pairwise

import pytest
import typo
from nltk.tokenize.punkt import PunktSentenceTokenizer

from dhp_tasks.perturbations import (
    KIND_PERTURBATIONS,
    PERTURBATIONS,
    TYPO_KINDS,
    Item,
    NotApplicable,
    Perturbation,
    add_typos,
    delete_characters,
    delete_word_span,
    one_typo,
    select_perturbations,
    shuffle_sentences,
    split_sentences,
)

SUMMARY = Item(
    "s1",
    "The council approved the new budget on Monday. Spending on schools rises by four percent. "
    "Critics say the plan ignores roads. A final vote is due in May.",
    context="A long article about the budget.",
)


def _alphanumeric_count(text: str) -> int:
    return len(re.findall(r"[^\W_]", text))


@pytest.mark.parametrize("k", [1, 10, 50])
def test_character_deletion_removes_exactly_k_alphanumerics(k):
    perturbed = delete_characters(k)(SUMMARY, random.Random(0), [])
    assert len(SUMMARY.text) - len(perturbed) == k
    assert _alphanumeric_count(SUMMARY.text) - _alphanumeric_count(perturbed) == k
    # only alphanumerics are deleted: the other characters are untouched and in order
    assert re.sub(r"[^\W_]", "", perturbed) == re.sub(r"[^\W_]", "", SUMMARY.text)


def test_character_deletion_needs_enough_characters():
    with pytest.raises(NotApplicable):
        delete_characters(5)(Item("x", "ab c"), random.Random(0), [])


def test_typos_apply_k_changes_with_the_typo_package():
    one = add_typos(1)(SUMMARY, random.Random(3), [])
    assert one != SUMMARY.text
    many = add_typos(50)(SUMMARY, random.Random(3), [])
    assert many != SUMMARY.text
    # 50 single-character edits leave the text within 50 characters of its length
    assert abs(len(many) - len(SUMMARY.text)) <= 50
    assert all(callable(getattr(typo.StrErrer, kind)) for kind in TYPO_KINDS)


def test_typos_leave_the_global_random_state_alone():
    random.seed(12345)
    state = random.getstate()
    add_typos(50)(SUMMARY, random.Random(3), [])
    PERTURBATIONS["summeval"][2].perturb(SUMMARY, 0, [])
    assert random.getstate() == state
    assert random.random() == random.Random(12345).random()


def test_one_typo_is_the_typo_package_edit():
    for kind in TYPO_KINDS:
        expected = getattr(typo.StrErrer(SUMMARY.text, seed=7), kind)().result
        assert one_typo(SUMMARY.text, kind, 7) == expected


def test_word_span_deletion_removes_k_consecutive_words():
    words = SUMMARY.text.split()
    perturbed = delete_word_span(5)(SUMMARY, random.Random(1), []).split()
    assert len(words) - len(perturbed) == 5
    start = next(i for i in range(len(words)) if words[i] != (perturbed + [None])[i])
    assert words[:start] + words[start + 5 :] == perturbed


def test_sentence_shuffle_minor_swaps_two_sentences():
    sentences = split_sentences(SUMMARY.text)
    assert len(sentences) == 4
    perturbed = split_sentences(shuffle_sentences(2)(SUMMARY, random.Random(0), []))
    assert sorted(perturbed) == sorted(sentences)
    assert sum(a != b for a, b in zip(perturbed, sentences, strict=True)) == 2


def test_sentence_shuffle_major_reorders_all_sentences():
    perturbed = split_sentences(shuffle_sentences(None)(SUMMARY, random.Random(0), []))
    assert sorted(perturbed) == sorted(split_sentences(SUMMARY.text))
    assert perturbed != split_sentences(SUMMARY.text)


PUBMED_LIKE = Item(
    "p1",
    "domestic cavies are reared in rural areas for meat.\nparasites are a major obstacle to the industry.\n\n"
    "the main objective was to assess parasite prevalence.  samples came from 4 farms.\nall were examined.",
)


def _separators(text: str) -> list[str]:
    spans = list(PunktSentenceTokenizer().span_tokenize(text))
    return [text[end:start] for (_, end), (start, _) in pairwise(spans)]


@pytest.mark.parametrize("k", [2, None])
def test_sentence_shuffle_keeps_the_separators_in_place(k):
    perturbed = shuffle_sentences(k)(PUBMED_LIKE, random.Random(0), [])
    assert perturbed != PUBMED_LIKE.text
    assert _separators(PUBMED_LIKE.text) == ["\n", "\n\n", "  ", "\n"]
    assert _separators(perturbed) == _separators(PUBMED_LIKE.text)
    assert sorted(split_sentences(perturbed)) == sorted(split_sentences(PUBMED_LIKE.text))


def test_sumpubmed_reorders_keep_every_line_break(dhp_data):
    from dhp_tasks.data import sumpubmed_local

    items = [item for item in sumpubmed_local(dhp_data("sumpubmed")) if "\n" in item.text]
    assert items
    for perturbation in PERTURBATIONS["sumpubmed"]:
        if perturbation.family != "sentence_reorder":
            continue
        for item in items:
            try:
                perturbed = perturbation.perturb(item, 0, items)
            except NotApplicable:
                continue
            assert perturbed.count("\n") == item.text.count("\n"), item.id
            assert sorted(re.findall(r"\s+", perturbed)) == sorted(re.findall(r"\s+", item.text)), item.id


def test_sentence_shuffle_needs_two_sentences():
    with pytest.raises(NotApplicable):
        shuffle_sentences(2)(Item("x", "Only one sentence here."), random.Random(0), [])


@pytest.mark.parametrize("dataset", sorted(PERTURBATIONS))
def test_every_rule_perturbation_is_deterministic_and_changes_the_text(dataset):
    pool = [
        Item(
            f"i{j}",
            f"{SUMMARY.text} Item number {j} adds a closing remark here.",
            "ctx",
            wrong_text=f"A wrong ending {j}.",
        )
        for j in range(4)
    ]
    for perturbation in PERTURBATIONS[dataset]:
        for item in pool:
            first = perturbation.perturb(item, 0, pool)
            assert first == perturbation.perturb(item, 0, pool)
            assert first != item.text


def test_seed_changes_random_edits():
    deletion = PERTURBATIONS["summeval"][0]
    assert deletion.perturb(SUMMARY, 0, []) != deletion.perturb(SUMMARY, 1, [])


def test_perturbation_table_matches_the_paper():
    def table(dataset):
        return {(p.id, p.level, p.degree, p.method, p.k) for p in PERTURBATIONS[dataset]}

    assert table("summeval") == {
        ("char_deletion_minor", "character", "minor", "rule", 10),
        ("char_deletion_major", "character", "major", "rule", 50),
        ("typos_minor", "character", "minor", "rule", 10),
        ("typos_major", "character", "major", "rule", 50),
        ("sentence_reorder_minor", "sentence", "minor", "rule", 2),
        ("sentence_reorder_major", "sentence", "major", "rule", None),
    }
    assert {(p.id, p.k) for p in PERTURBATIONS["sumpubmed"]} == {
        ("char_deletion_minor", 20),
        ("char_deletion_major", 100),
        ("typos_minor", 20),
        ("typos_major", 100),
        ("sentence_reorder_minor", 2),
        ("sentence_reorder_major", None),
    }
    assert table("storycloze") == {
        ("char_deletion", "character", None, "rule", 5),
        ("typos", "character", None, "rule", 5),
        ("random_ending", "sentence", None, "rule", None),
        ("wrong_ending", "sentence", None, "rule", None),
    }
    assert {(p.id, p.level, p.k) for p in PERTURBATIONS["answer_equivalence"]} == {
        ("char_deletion_minor", "character", 5),
        ("char_deletion_major", "character", 25),
        ("typos_minor", "character", 5),
        ("typos_major", "character", 25),
        ("random_answer", "sentence", None),
    }
    for pair in ("wmt22_de_en", "wmt22_zh_en"):
        assert {(p.id, p.level, p.k) for p in PERTURBATIONS[pair]} == {
            ("char_deletion_minor", "character", 10),
            ("char_deletion_major", "character", 50),
            ("typos_minor", "character", 10),
            ("typos_major", "character", 50),
            ("word_deletion_minor", "word", 5),
            ("word_deletion_major", "word", 25),
        }


def test_story_perturbations_borrow_and_swap_endings():
    pool = [
        Item("a", "He smiled.", "ctx", wrong_text="He cried."),
        Item("b", "She left.", "ctx2", wrong_text="She sang."),
    ]
    by_id = {p.id: p for p in PERTURBATIONS["storycloze"]}
    assert by_id["random_ending"].perturb(pool[0], 0, pool) == "She left."
    assert by_id["wrong_ending"].perturb(pool[0], 0, pool) == "He cried."
    with pytest.raises(NotApplicable):
        by_id["random_ending"].perturb(pool[0], 0, pool[:1])


def test_llm_rows_need_a_perturber():
    row = Perturbation("fictional_entities_minor", "fictional_entities", "word", "minor", "llm", None)
    with pytest.raises(NotApplicable, match="perturber"):
        row.perturb(SUMMARY, 0, [])


def test_select_perturbations():
    available = PERTURBATIONS["summeval"]
    assert select_perturbations(available, None) == available
    assert [p.id for p in select_perturbations(available, "typos_minor, sentence_reorder_major")] == [
        "typos_minor",
        "sentence_reorder_major",
    ]
    with pytest.raises(ValueError, match="unknown perturbation"):
        select_perturbations(available, "typo_minor")


def test_custom_story_kind_leaves_out_wrong_ending():
    assert "wrong_ending" not in {p.id for p in KIND_PERTURBATIONS["story"]}
