"""The labels suite, declared once: task version, options, headlines, comparability (see
:mod:`judge_data.definitions`)."""

from __future__ import annotations

from judge_data.definitions import REQUIRED, Headline, Option, SuiteDefinition, TaskOptions
from judge_data.recorded import JUDGMENTS_OPTION_NAMES, JUDGMENTS_OPTIONS
from judge_data.shared_options import GRADER_OPTIONS
from scorers.consistency import GRADES_CHANGED, SELF_ALPHA
from scorers.grader import SCORER_ERRORS
from scorers.labels import FOOTING_DIFFERENCE, HUMANS, SAME_FOOTING
from scorers.ppi import CORRECTED
from solvers.grader import TARGETS

GRADER_AGREEMENT = SuiteDefinition(
    name="grader_agreement",
    title="Your grader against your labels",
    paper=(
        "Cohen, *A coefficient of agreement for nominal scales*, 1960, and *Weighted kappa*, 1968; Angelopoulos et "
        "al., *Prediction-powered inference*, Science 2023 ([arXiv:2301.09633](https://arxiv.org/abs/2301.09633))"
    ),
    version=1,
    changelog={
        1: "Any inspect scorer grades your labelled outputs; accuracy, linear-weighted kappa, balanced F1 (two "
        "classes), Pearson and Spearman (numeric labels) with item-bootstrap intervals; the annotators' "
        "leave-one-out agreement and the grader on the same footing; agreement across epochs; the pass rate of "
        "unlabelled outputs corrected by prediction-powered inference.",
    },
    options=(
        Option(
            "labels",
            None,
            'your labels, a JSONL file: one `{"id", "input", "output", "target"?, "label", "annotator"?}` per label '
            "(several rows of one id with different annotators for several labels)",
            shown_default="required",
        ),
        *GRADER_OPTIONS,
        Option(
            "target",
            TARGETS[0],
            "`gold`: each row's `target` is the scorer's target (`model_graded_fact`'s expert answer); `none`: an "
            "empty target, for graders that need none",
            choices=TARGETS,
        ),
        Option(
            "unlabelled",
            None,
            "your eval's grades of outputs nobody labelled, for the corrected pass rate: an inspect log "
            "(`log.eval`, or `log.eval@scorer` where it holds several scorers) or a JSONL file of "
            '`{"id", "grade"}`; outputs whose id is in `labels` are left out',
            shown_default="none",
            not_compared="it adds the corrected pass rate of the user's eval, which has no leaderboard column",
        ),
        *JUDGMENTS_OPTIONS,
    ),
    headlines=(
        Headline("kappa"),
        Headline("pearson"),
        Headline("accuracy", leaderboard=False),
        Headline("balanced_f1", leaderboard=False),
        Headline("spearman", leaderboard=False),
        Headline(f"(kappa|accuracy|balanced_f1)/({HUMANS}|{SAME_FOOTING})", leaderboard=False),
        Headline(f"(kappa|accuracy|balanced_f1)/{FOOTING_DIFFERENCE}", leaderboard=False),
        Headline(CORRECTED, leaderboard=False),
        Headline(SELF_ALPHA, leaderboard=False),
        Headline(GRADES_CHANGED, leaderboard=False),
        Headline("parse_failures", leaderboard=False),
        Headline(SCORER_ERRORS, leaderboard=False),
    ),
    compared_settings=("task_version", "n_items"),
    tasks={
        "agreement": TaskOptions(
            ("labels", "scorer", "scorer_args", "target", "unlabelled", *JUDGMENTS_OPTION_NAMES), {"labels": REQUIRED}
        )
    },
)

DEFINITIONS = (GRADER_AGREEMENT,)
