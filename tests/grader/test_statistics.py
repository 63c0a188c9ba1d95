"""The statistics of a grader against labels, its agreement with itself across epochs and the corrected pass rate,
on hand-made data with hand-computed values."""

from __future__ import annotations

import logging
import math

import numpy as np
import pytest
from inspect_ai.scorer import SampleScore, Score

from scorers.consistency import consistency_metrics
from scorers.labels import (
    LabelledItems,
    accuracy,
    balanced_f1,
    kappa,
    label_agreement_report,
    label_scale,
    majority_class_values,
    pair_tables,
)
from scorers.ppi import Summary, labels_pass_rate, naive_pass_rate, ppi_pass_rate
from scorers.references import label_references
from scorers.unparsed import MetricNotes

BINARY = np.array([0.0, 1.0])
TABLE = np.array([[[15, 5], [10, 20]]], dtype=float)
"""Grades in rows, labels in columns: 15 agreed fails, 5 missed passes, 10 false passes, 20 agreed passes."""


def test_kappa_accuracy_and_balanced_f1_of_a_table():
    assert kappa(TABLE, BINARY)[0] == pytest.approx(0.4)  # p_o 0.7, p_e 0.6 * 0.5 + 0.4 * 0.5 = 0.5
    assert accuracy(TABLE, BINARY)[0] == pytest.approx(0.7)
    assert balanced_f1(TABLE, BINARY)[0] == pytest.approx((40 / 55 + 30 / 45) / 2)


def test_linear_weights_give_half_credit_one_step_apart():
    levels = np.array([1.0, 2.0, 3.0])
    table = np.array([[[5, 1, 0], [2, 6, 1], [0, 2, 3]]], dtype=float)
    # p_o = (14 + 6 / 2) / 20 = 0.85; p_e = (143 + 198 / 2) / 400 = 0.605
    assert kappa(table, levels)[0] == pytest.approx((0.85 - 0.605) / (1 - 0.605))
    assert accuracy(table, levels)[0] == pytest.approx(14 / 20)


def test_chance_and_perfect_agreement():
    labels = np.array([[1, 0, 1, 1, 0, 1]], dtype=float)
    levels = np.array([0.0, 1.0])
    always_pass = pair_tables([(1.0,)] * 6, [tuple(column) for column in labels.T], levels)
    same = pair_tables([(value,) for value in labels[0]], [tuple(column) for column in labels.T], levels)
    ones = np.ones((1, 6))
    assert kappa((ones @ always_pass.reshape(6, 4)).reshape(1, 2, 2), levels)[0] == 0.0
    assert kappa((ones @ same.reshape(6, 4)).reshape(1, 2, 2), levels)[0] == 1.0
    assert majority_class_values(labels, levels) == pytest.approx(
        {"kappa": 0.0, "accuracy": 4 / 6, "balanced_f1": (2 * 4 / (4 + 6) + 0) / 2}
    )
    assert math.isnan(kappa(np.array([[[0, 0], [0, 6]]], dtype=float), levels)[0])  # both sides one value


@pytest.mark.parametrize(
    ("labels", "scale"),
    [([0, 1, 1], "binary"), ([1, 2, 3, 2], "ordinal"), (list(range(11)), "ordinal"), (list(range(12)), "numeric")],
)
def test_the_label_scale_follows_the_distinct_values(labels, scale):
    assert label_scale(labels) == scale


def test_the_grader_on_the_footing_of_one_more_annotator():
    """Two annotators who disagree on 2 of 8 items, and a grader that copies the first: the annotators' leave-one-out
    kappa is their kappa; the grader against the other annotator's labels is that kappa for one, 1 for the other."""
    first = [1, 1, 1, 1, 0, 0, 0, 0]
    second = [1, 1, 1, 0, 0, 0, 0, 1]
    items = LabelledItems(tuple((float(grade),) for grade in first), np.array([first, second], float), ("a", "b"))
    report = label_agreement_report(items, "binary")
    pairwise = 0.5  # p_o 6/8, p_e 1/2
    assert report["kappa/humans"] == pytest.approx(pairwise)
    assert report["kappa/grader_same_footing"] == pytest.approx((pairwise + 1) / 2)
    assert report["kappa/grader_minus_humans"] == pytest.approx((1 - pairwise) / 2)
    assert report["kappa_ci_low/humans"] <= pairwise <= report["kappa_ci_high/humans"]
    assert report["kappa"] == pytest.approx((1 + pairwise) / 2)  # 16 pairs: 14 agree, p_e 1/2


def test_every_epoch_is_a_judgment():
    """A grade that flips between epochs counts once each way."""
    items = LabelledItems(((1.0, 0.0), (1.0, 1.0), (0.0, 0.0)), np.array([[1.0, 1.0, 0.0]]), ("label",))
    assert label_agreement_report(items, "binary")["accuracy"] == pytest.approx(5 / 6)


def test_references_of_a_constant_and_a_random_grader():
    labels = np.array([[1, 0, 1, 1, 0, 1, 0, 1, 1, 0] * 5], dtype=float)
    majority, random = label_references(labels, [1] * labels.shape[1])
    assert (majority.value, majority.low, majority.high) == (0.0, 0.0, 0.0)
    assert abs(random.value) < 0.05 and random.low < 0 < random.high


def test_self_agreement_across_epochs():
    """Four submissions graded twice; one changes its grade."""
    metrics = consistency_metrics([[1.0, 1.0], [0.0, 0.0], [1.0, 0.0], [0.0, 0.0]], [0, 1, 2, 3])
    assert metrics["grades_changed"] == 0.25 and metrics["grades_changed_n"] == 4
    # alpha = 1 - D_o / D_e: 2 of the 8 ordered pairs within submissions disagree; D_e over all 8 grades, 3 of them 1
    values = [1, 1, 0, 0, 1, 0, 0, 0]
    n, ones = len(values), sum(values)
    expected_disagreement = 2 * ones * (n - ones) / (n * (n - 1))
    assert metrics["self_alpha"] == pytest.approx(1 - (2 / 8) / expected_disagreement)
    assert consistency_metrics([[1.0], [0.0]], [0, 1]) == {}


def test_the_corrected_pass_rate_by_hand():
    """A lenient grader passes 80 % of 1,000 unlabelled outputs; on 5 labelled ones it passes 4, the humans 2."""
    unlabelled = Summary(1000, 0.8, 0.8 * 0.2 * 1000 / 999)
    grades, labels = [1, 1, 1, 1, 0], [1, 0, 1, 0, 0]
    corrected = ppi_pass_rate(unlabelled, grades, labels)
    errors = np.array(grades) - np.array(labels)
    half = 1.959963984540054 * math.sqrt(unlabelled.variance / 1000 + errors.var(ddof=1) / 5)
    assert corrected.value == pytest.approx(0.8 - 0.4)
    assert (corrected.low, corrected.high) == pytest.approx((0.4 - half, 0.4 + half))
    assert corrected.n == 5
    naive = naive_pass_rate(unlabelled, grades)
    assert naive.value == pytest.approx((800 + 4) / 1005) and naive.n == 1005
    assert labels_pass_rate(labels).value == pytest.approx(0.4)
    summary = Summary.of([1.0, 0.0, math.nan, 1.0])
    assert summary.n == 3 and (summary.mean, summary.variance) == pytest.approx((2 / 3, 1 / 3))
    missing = ppi_pass_rate(Summary(0, math.nan, math.nan), grades, labels)
    assert math.isnan(missing.value) and missing.reason == "no unlabelled grade"


def test_metric_notes_are_said_once_for_the_final_computation(caplog):
    """A note of a computation over part of the samples (inspect's mid-run metrics) is never said; the notes of the
    computation over every sample of the task are said once when it ends."""

    def scores(*ids: str) -> list[SampleScore]:
        return [SampleScore(score=Score(value=1.0), sample_id=sample_id) for sample_id in ids]

    notes = MetricNotes()
    with caplog.at_level(logging.WARNING):
        notes.latest(scores("a"), ["no interval for D/typos: one item"])
        notes.latest(scores("a", "b"), ["no interval for D/typos: one item"])
        MetricNotes.say_final(["a", "b", "c"])
        assert caplog.messages == []
        notes.latest(scores("a", "b", "c"), [])
        MetricNotes.say_final(["a", "b", "c"])
        assert caplog.messages == []
        notes.latest(scores("a", "b", "c"), ["pearson is undefined (NaN): the judge gave every item the same score"])
        MetricNotes.say_final(["a", "b", "c"])
        MetricNotes.say_final(["a", "b", "c"])
    assert caplog.messages == ["pearson is undefined (NaN): the judge gave every item the same score"]
