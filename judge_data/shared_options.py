"""Options several suites take, declared once (a test of the house refuses one declared twice): the seed of the
item draw, the criteria, how a score is obtained (``scoring``, ``min_mass``), the judge's temperature where the
papers fix it, and the grader under test (``scorer``, ``scorer_args``). A suite's definition
lists them beside its own; ``judge_data.recorded`` declares the recorded judgments' options with their reader."""

from __future__ import annotations

from typing import Literal

from judge_data.definitions import ALL, HOW_THE_JUDGE_IS_SAMPLED, NAMES_THE_GRADER, Option

SEED_OPTION = Option("seed", 0, "seed of that draw")
"""``-T seed`` of the suites whose only random step is drawing the items (``n`` or ``per_category``)."""

CRITERIA_OPTION = Option("criteria", None, "comma-separated criterion names", shown_default=ALL)
"""``-T criteria`` of the suites that score human-annotated criteria (adherence, CoEval)."""

RatingScoring = Literal["sample", "logprobs"]
RATING_SCORINGS: tuple[RatingScoring, ...] = ("sample", "logprobs")
"""How a prompted rating is read: `repeats` sampled answers parsed and averaged, or one answer's top logprobs."""

Scoring = Literal["sample", "logprobs", "perplexity"]
SCORINGS: tuple[Scoring, ...] = (*RATING_SCORINGS, "perplexity")
"""How a suite obtains a judge's score (the ``scoring`` option, one name in every suite): a prompted rating read
either way, or, with no prompt, the judge's log-likelihood of the text (:mod:`solvers.likelihood`)."""

DEFAULT_MIN_MASS = 0.1
"""Below this probability on resolved on-scale answers the rating counts as a parse failure."""

MIN_MASS_OPTION = Option(
    "min_mass",
    DEFAULT_MIN_MASS,
    "with `scoring=logprobs`: the least probability on on-scale ratings for a rating to count",
    minimum=0,
    maximum=1,
)
"""Every rating suite's ``-T min_mass``."""

PAPER_TEMPERATURE_OPTION = Option(
    "temperature",
    0.0,
    "judge temperature (the paper's 0)",
    not_compared=HOW_THE_JUDGE_IS_SAMPLED,
)
"""``-T temperature`` of the suites whose paper judged greedily (DHP, FBI)."""

GRADER_OPTIONS = (
    Option(
        "scorer",
        None,
        "the grader under test: a registered inspect scorer (`model_graded_fact`, `model_graded_qa`, "
        "`my_package/my_scorer`) or `path/to/file.py@function`",
        shown_default="required (none with `judgments`)",
        not_compared=NAMES_THE_GRADER,
    ),
    Option(
        "scorer_args",
        None,
        "the scorer's arguments (`template`, `instructions`, `grade_pattern`, `model`, ...): a JSON object or a "
        "`.json`/`.yaml` file",
        shown_default="none",
        not_compared=NAMES_THE_GRADER,
    ),
)
"""The grader under test, as every grader task takes it (``-T scorer=``, ``-T scorer_args=``)."""
