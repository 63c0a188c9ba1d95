"""Probability-weighted ratings against hand-computed distributions."""

from __future__ import annotations

import asyncio
import math

import pytest
from inspect_ai.model import (
    ChatCompletionChoice,
    ChatMessageAssistant,
    GenerateConfig,
    Logprob,
    Logprobs,
    ModelOutput,
    ModelUsage,
    TopLogprob,
    get_model,
)
from inspect_ai.scorer import Target
from inspect_ai.solver import TaskState

from dhp_tasks.prompts import COHERENCE_SUMMARY, TEXT_KINDS
from judge_data.inspect_private import PrerequisiteError
from scorers.fbi import blind_spot_judgments
from solvers.logprobs import LOGPROBS_STORE_KEY, ask_logprobs, rate_by_logprobs, stored_answer
from solvers.reading.logprobs import (
    closing_label,
    expected_rating,
    label_room,
    max_tokens_for,
    rating_details,
    stored_rating,
    yes_no_rating,
)


def position(*alternatives: tuple[str, float], generated: str | None = None) -> Logprob:
    """One generated position: top alternatives as (token, probability); the first is generated unless named."""
    tops = [TopLogprob(token=token, logprob=math.log(p)) for token, p in alternatives]
    chosen = generated or alternatives[0][0]
    chosen_p = dict(alternatives).get(chosen, 0.01)
    return Logprob(token=chosen, logprob=math.log(chosen_p), top_logprobs=tops)


def rate(*positions: Logprob, low: int = 1, high: int = 5, min_mass: float = 0.1):
    return expected_rating(Logprobs(content=list(positions)), low, high, min_mass)


def test_one_to_five_single_position():
    rating = rate(position(("4", 0.6), ("3", 0.3), ("Hello", 0.1)))
    assert rating.mass == pytest.approx(0.9)
    assert rating.score == pytest.approx((4 * 0.6 + 3 * 0.3) / 0.9)
    assert rating.probabilities == pytest.approx({1: 0, 2: 0, 3: 0.3, 4: 0.6, 5: 0})
    assert rating.unresolved_mass == 0 and not rating.failed


def test_generated_leading_space_reads_the_next_position():
    # SmolLM2 style: " " then the digit; "5" straight away is an alternative at the first position.
    rating = rate(position((" ", 0.8), ("5", 0.1), ("The", 0.1)), position(("4", 0.5), ("2", 0.5)))
    assert rating.probabilities[5] == pytest.approx(0.1)
    assert rating.probabilities[4] == pytest.approx(0.4)
    assert rating.probabilities[2] == pytest.approx(0.4)
    assert rating.score == pytest.approx((5 * 0.1 + 4 * 0.4 + 2 * 0.4) / 0.9)


def test_merged_leading_space_and_unfollowable_whitespace():
    # " 4" carries its own space; "\n" was not generated, so what follows it is unknown.
    rating = rate(position((" 4", 0.7), (" 3", 0.2), ("\n", 0.1)))
    assert rating.unresolved_mass == pytest.approx(0.1)
    assert rating.mass == pytest.approx(0.9)
    assert rating.score == pytest.approx((4 * 0.7 + 3 * 0.2) / 0.9)


def test_raw_hf_token_strings_read_whitespace_markers():
    rating = rate(position(("Ġ4", 0.5), ("4", 0.25), ("▁5", 0.25)))
    assert rating.score == pytest.approx(4.25)
    assert rating.mass == pytest.approx(1.0)


def test_one_to_ten_with_a_single_ten_token():
    # "10" is one token; the non-generated "1" could still become 10, so it is undecided (within min_mass here).
    rating = rate(position(("10", 0.5), ("9", 0.3), ("The", 0.15), ("1", 0.05)), high=10)
    assert rating.probabilities[10] == pytest.approx(0.5)
    assert rating.probabilities[1] == 0
    assert rating.unresolved_mass == pytest.approx(0.05) and rating.undecided_mass == pytest.approx(0.05)
    assert rating.score == pytest.approx((10 * 0.5 + 9 * 0.3) / 0.8)


def test_one_to_ten_splits_a_generated_one_with_the_next_position():
    rating = rate(
        position(("1", 0.6), ("8", 0.3), ("x", 0.1)),
        position(("0", 0.5), ("\n", 0.25), (".", 0.125), ("5", 0.125)),
        high=10,
    )
    assert rating.probabilities[10] == pytest.approx(0.6 * 0.5)
    assert rating.probabilities[1] == pytest.approx(0.6 * 0.375)
    assert rating.probabilities[8] == pytest.approx(0.3)
    # "15" is off the scale: neither valid nor unresolved.
    assert rating.mass == pytest.approx(0.825)
    assert rating.unresolved_mass == 0
    assert rating.score == pytest.approx((10 * 0.3 + 1 * 0.225 + 8 * 0.3) / 0.825)


def test_one_to_ten_after_a_leading_space():
    rating = rate(
        position((" ", 0.9), ("x", 0.1)),
        position(("1", 0.5), ("7", 0.4), ("y", 0.1)),
        position(("0", 0.8), ("<|im_end|>", 0.2)),
        high=10,
    )
    assert rating.probabilities[10] == pytest.approx(0.36)
    assert rating.probabilities[1] == pytest.approx(0.09)
    assert rating.probabilities[7] == pytest.approx(0.36)
    assert rating.score == pytest.approx((3.6 + 0.09 + 2.52) / 0.81)


def test_one_to_ten_non_generated_one_over_min_mass_is_a_parse_failure():
    # 0.3 on a "1" that is 1 or 10: renormalising it away would move the rating by up to 0.3 of its probability
    rating = rate(position(("8", 0.6), ("1", 0.3), ("9", 0.1)), position(("\n", 1.0)), high=10)
    assert rating.unresolved_mass == pytest.approx(0.3) and rating.undecided_mass == pytest.approx(0.3)
    assert rating.mass == pytest.approx(0.7) and rating.failed
    tolerant = rate(position(("8", 0.6), ("1", 0.3), ("9", 0.1)), position(("\n", 1.0)), high=10, min_mass=0.3)
    assert tolerant.score == pytest.approx((8 * 0.6 + 9 * 0.1) / 0.7)


def test_one_to_ten_stopped_after_one_is_unresolved_and_fails():
    rating = rate(position(("1", 0.95), ("2", 0.05)), high=10)
    assert rating.unresolved_mass == pytest.approx(0.95)
    assert rating.mass == pytest.approx(0.05)
    assert rating.failed and rating.score is None


def test_low_mass_answer_is_a_failure_not_a_score():
    rating = rate(position(("The", 0.95), ("4", 0.05)))
    assert rating.mass == pytest.approx(0.05)
    assert rating.failed and rating.score is None
    assert rate(position(("The", 0.95), ("4", 0.05)), min_mass=0.04).score == pytest.approx(4.0)


def test_non_digit_and_off_scale_tokens_are_ignored():
    rating = rate(position(("four", 0.4), ("4.", 0.2), ("45", 0.1), ("0", 0.1), ("3", 0.2)))
    # "4." is a complete 4; "45" and "0" are off the 1-5 scale; "four" is not a number.
    assert rating.probabilities == pytest.approx({1: 0, 2: 0, 3: 0.2, 4: 0.2, 5: 0})
    assert rating.score == pytest.approx(3.5)


def test_sampled_token_outside_the_top_k_is_followed():
    sampled = Logprob(token=" ", logprob=math.log(0.05), top_logprobs=[TopLogprob(token="3", logprob=math.log(0.9))])
    rating = rate(sampled, position(("5", 1.0)))
    assert rating.probabilities[3] == pytest.approx(0.9)
    assert rating.probabilities[5] == pytest.approx(0.05)


def test_no_answer_at_all_fails():
    assert expected_rating(None, 1, 5).failed
    assert expected_rating(Logprobs(content=[]), 1, 5).mass == 0


def test_max_tokens_cover_two_leading_tokens_and_every_digit():
    assert max_tokens_for(5) == 3
    assert max_tokens_for(10) == 4  # " ", "**", "1", and the position that splits 1 from 10


def fake_judge(logprobs: Logprobs | None, seen: list[GenerateConfig]):
    def respond(input, tools, tool_choice, config):
        seen.append(config)
        output = ModelOutput(
            model="fake",
            choices=[
                ChatCompletionChoice(message=ChatMessageAssistant(content=" 4"), stop_reason="stop", logprobs=logprobs)
            ],
        )
        output.usage = ModelUsage(input_tokens=10, output_tokens=2, total_tokens=12)
        return output

    return get_model("mockllm/model", custom_outputs=respond, memoize=False)


def test_rate_by_logprobs_asks_for_top_logprobs_and_reads_them():
    seen: list[GenerateConfig] = []
    logprobs = Logprobs(content=[position((" ", 1.0)), position(("4", 0.75), ("2", 0.25))])
    rating, output = asyncio.run(
        rate_by_logprobs(fake_judge(logprobs, seen), "Rate it.", 1, 5, config=GenerateConfig(temperature=0.0))
    )
    assert rating.score == pytest.approx(3.5)
    assert output.completion == " 4"
    assert seen[0].logprobs is True and seen[0].top_logprobs == 20
    assert seen[0].max_tokens == 3 and seen[0].temperature == 0.0


def test_rate_by_logprobs_without_logprobs_is_a_prerequisite_error():
    with pytest.raises(PrerequisiteError, match="scoring=logprobs needs top log-probabilities"):
        asyncio.run(rate_by_logprobs(fake_judge(None, []), "Rate it.", 1, 5))


def test_yes_no_is_the_yes_share_of_the_yes_and_no_mass():
    rating = yes_no_rating(Logprobs(content=[position((" Yes", 0.6), ("NO", 0.3), ("Maybe", 0.1))]))
    assert rating.probabilities == pytest.approx({1: 0.6, 0: 0.3})
    assert rating.mass == pytest.approx(0.9)
    assert rating.score == pytest.approx(0.6 / 0.9)


def test_yes_no_follows_a_generated_space_and_leaves_other_whitespace_unresolved():
    first = position((" ", 0.5), ("yes", 0.3), ("\n", 0.2))
    second = position(("no", 0.8), ("Yes", 0.2))
    rating = yes_no_rating(Logprobs(content=[first, second]))
    # yes: 0.3 at once + 0.5 * 0.2 after the space; no: 0.5 * 0.8
    assert rating.probabilities == pytest.approx({1: 0.4, 0: 0.4})
    assert rating.unresolved_mass == pytest.approx(0.2)
    assert rating.score == pytest.approx(0.5)


def test_yes_no_below_min_mass_is_a_parse_failure():
    rating = yes_no_rating(Logprobs(content=[position(("I", 0.95), ("yes", 0.05))]), min_mass=0.1)
    assert rating.failed and rating.mass == pytest.approx(0.05)


def test_stored_positions_read_back_as_the_same_rating():
    positions = [position((" ", 0.8), ("5", 0.1), ("The", 0.1)), position(("4", 0.5), ("2", 0.5))]
    entry = {"answer": " 4", "logprobs": [p.model_dump() for p in positions]}
    assert stored_rating(entry, 1, 5) == rate(*positions)
    assert stored_rating({"answer": "Yes", "logprobs": []}, 0, 1, binary=True).failed


# ---- issue 17, item 4 ----


def test_a_one_the_judge_ended_on_is_one_and_a_cut_off_one_is_unresolved():
    answer = Logprobs(content=[position(("1", 0.9), ("2", 0.05), ("3", 0.05))])
    stopped = expected_rating(answer, 1, 10, stopped=True)
    assert stopped.probabilities[1] == pytest.approx(0.9) and stopped.score == pytest.approx(1.15)
    # cut off by the token limit right after "1": 1 or 10 is not known, and that is 0.9 of the answer
    cut = expected_rating(answer, 1, 10)
    assert cut.undecided_mass == pytest.approx(0.9) and cut.failed
    assert stored_rating(
        {"logprobs": [p.model_dump() for p in answer.content], "stop_reason": "stop"}, 1, 10
    ).score == (pytest.approx(1.15))
    ten = rate(position(("1", 0.9), ("2", 0.1)), position(("0", 0.8), ("\n", 0.2)), high=10)
    assert ten.probabilities[10] == pytest.approx(0.72) and ten.probabilities[1] == pytest.approx(0.18)


def test_markup_the_judge_writes_before_the_number_is_read_past():
    # "**4**": the rating rests on what follows the generated "**", not only on the 15 % beside it
    rating = rate(position(("**", 0.85), ("4", 0.15)), position(("4", 0.9), ("5", 0.1)))
    assert rating.probabilities[4] == pytest.approx(0.15 + 0.85 * 0.9)
    assert rating.probabilities[5] == pytest.approx(0.85 * 0.1)
    assert rating.mass == pytest.approx(1.0)
    # a word is not markup: the 15 % beside it stays below a min_mass of 0.2
    assert rate(position(("The", 0.85), ("4", 0.15)), min_mass=0.2).failed
    assert yes_no_rating(Logprobs(content=[position(("**", 0.9), ("No", 0.1)), position(("Yes", 1.0))])).score == (
        pytest.approx(0.9)
    )


@pytest.mark.parametrize("token", ["４", "٤", "04"])
def test_other_digits_and_leading_zeros_are_not_ratings(token):
    rating = rate(position((token, 0.7), ("3", 0.3)))
    assert rating.probabilities[4] == 0 and rating.score == pytest.approx(3.0)


def test_provider_errors_are_reported_not_summed():
    positive = Logprob(token="4", logprob=0.5, top_logprobs=[TopLogprob(token="4", logprob=0.5)])
    rating = expected_rating(Logprobs(content=[positive]), 1, 5)
    assert rating.failed and "above 0" in rating.error
    twice = position(("4", 0.4), ("4", 0.4), ("3", 0.2))
    rating = expected_rating(Logprobs(content=[twice]), 1, 5)
    assert rating.failed and "twice" in rating.error
    assert "error" in rating_details(rating)


# ---- issue 25, item 3: a "1" the judge did not write, on 1-10 ----


def fbi_score(paradigm: str, stored: dict[str, list[Logprob]], invariant: bool = False, min_mass: float = 0.1):
    """The FBI scorer on the answers a ``scoring=logprobs`` run stores (each judge stopped after its positions)."""
    state = TaskState(model="stand-in/judge", sample_id=1, epoch=1, input="", messages=[], metadata={})
    state.metadata["invariant"] = invariant
    entries = {name: {"answer": "", "logprobs": [p.model_dump() for p in positions], "stop_reason": "stop"}
               for name, positions in stored.items()}  # fmt: skip
    state.store.set(LOGPROBS_STORE_KEY, entries)
    state.output = ModelOutput.from_content(model="stand-in/judge", content="")
    scorer = blind_spot_judgments(paradigm, 10, scoring="logprobs", min_mass=min_mass)
    return asyncio.run(scorer(state, Target(""))).value


def test_reference_failure_is_not_a_silent_zero_when_a_one_is_unwritten():
    # the example: the judge wrote "9" (0.55); "1" (0.45) is 1 or 10, and the failure is P(S = 10).
    # Renormalised away it read P(10) = 0 where it could be up to 0.45: now the rating is unread and counted.
    value = fbi_score("reference", {"perturbed": [position(("9", 0.55), ("1", 0.45))]})
    assert math.isnan(value["failure"]) and value["parse_failures"] == 1
    assert math.isnan(value["perturbed_score"]) and value["mass_perturbed"] == pytest.approx(0.55)


def test_reference_failure_with_an_unwritten_one_within_min_mass():
    # 0.05 undecided <= min_mass 0.1: read, renormalised over the 0.95 resolved (P(10) = 0.5 / 0.95)
    value = fbi_score("reference", {"perturbed": [position(("10", 0.5), ("9", 0.45), ("1", 0.05))]})
    assert value["failure"] == pytest.approx(0.5 / 0.95) and value["parse_failures"] == 0
    # the judge wrote "1": the next position splits it, P(10) = 0.45 * 0.8, P(1) = 0.45 * 0.2
    written = fbi_score(
        "reference", {"perturbed": [position(("1", 0.45), ("9", 0.55)), position(("0", 0.8), ("\n", 0.2))]}
    )
    assert written["failure"] == pytest.approx(0.36) and written["perturbed_score"] == pytest.approx(
        10 * 0.36 + 1 * 0.09 + 9 * 0.55
    )


def test_single_failure_needs_both_ratings_decided():
    gold = [position(("9", 0.6), ("8", 0.4))]
    value = fbi_score("single", {"gold": gold, "perturbed": [position(("8", 0.6), ("1", 0.4))]})
    assert math.isnan(value["failure"]) and value["parse_failures"] == 1
    # gold {9: .6, 8: .4}, perturbed {8: .6, 9: .4}: P(S_perturbed >= S_gold) = .4 + .6 * .4 = 0.64
    value = fbi_score("single", {"gold": gold, "perturbed": [position(("8", 0.6), ("9", 0.4))]})
    assert value["failure"] == pytest.approx(0.64)


# ---- issue 25, item 4: an echo of the prompt's closing label before the rating ----

COHERENCE_PROMPT = TEXT_KINDS["summarization"].prompt.render(COHERENCE_SUMMARY, "A summary.", "An article.")


def test_the_closing_label_of_a_prompt():
    assert COHERENCE_PROMPT.endswith("\nCoherence score:")
    assert closing_label(COHERENCE_PROMPT) == "Coherence score"
    assert closing_label("Reply with yes or no only.\nAnswer:") == "Answer"
    assert closing_label("Reply with the rating only: one whole number from 1 (worst) to 10 (best).") is None
    assert closing_label("Rate it.\nThe summary of the article, line by line:") is None  # not a short label
    assert label_room("Coherence score") == 8 and label_room(None) == 0


@pytest.mark.parametrize(
    "tokens",
    [
        ["Co", "herence", " score", ":", " ", "4"],  # SmolLM2's tokens of the whole label
        ["Coherence", ":", " 4"],
        ["Score", ":", " 4"],
        ["**", "Co", "herence", " score", ":**", " ", "4"],
        ["coherence", " score", ":\n", "4"],
    ],
)
def test_an_echo_of_the_closing_label_is_read_past(tokens):
    # each label token generated with probability 0.9 (a 0.1 alternative "The" beside it), then 4 (0.75) or 3
    positions = [position((token, 0.9), ("The", 0.1)) for token in tokens[:-1]]
    positions.append(position((tokens[-1], 0.75), ("3", 0.25)))
    carried = 0.9 ** (len(tokens) - 1)
    answer = Logprobs(content=positions)
    assert expected_rating(answer, 1, 5).mass == 0  # without the label: unread
    rating = expected_rating(answer, 1, 5, label="Coherence score")
    assert rating.probabilities[4] == pytest.approx(carried * 0.75)
    assert rating.probabilities[3] == pytest.approx(carried * 0.25)
    assert rating.mass == pytest.approx(carried) and rating.score == pytest.approx(3.75)


def test_only_the_label_is_read_past():
    label = "Coherence score"
    for tokens in (["Fluency", ":", " 4"], ["Score", " is", " 4"], ["Score", ":", " Score", ":", " 4"]):
        answer = Logprobs(content=[position((token, 1.0)) for token in tokens])
        assert expected_rating(answer, 1, 5, label=label).mass == 0, tokens
    # an alternative that starts the label but was not generated cannot be followed: unresolved
    rating = expected_rating(Logprobs(content=[position(("4", 0.7), ("Score", 0.3))]), 1, 5, label=label)
    assert rating.unresolved_mass == pytest.approx(0.3) and rating.score == pytest.approx(4.0)


def test_an_echo_of_answer_before_yes_or_no():
    answer = Logprobs(
        content=[position(("Answer", 0.8), ("No", 0.2)), position((":", 1.0)), position((" yes", 0.6), (" no", 0.4))]
    )
    assert yes_no_rating(answer).probabilities == pytest.approx({1: 0.0, 0: 0.2})
    rating = yes_no_rating(answer, label="Answer")
    assert rating.probabilities == pytest.approx({1: 0.48, 0: 0.2 + 0.32})


def test_requests_leave_room_for_the_label_and_the_store_keeps_it():
    seen: list[GenerateConfig] = []
    tokens = ["Co", "herence", " score", ":", " ", "4"]
    judge = fake_judge(Logprobs(content=[position((token, 1.0)) for token in tokens]), seen)
    stored = asyncio.run(ask_logprobs(judge, {"coherence": COHERENCE_PROMPT}, max_tokens_for(5), GenerateConfig()))
    # 3 for " ", "**" and the digit, 8 for the label: SmolLM2 writes it in 4 tokens, a long one ("Engagingness
    # score:") in 5
    assert seen[0].max_tokens == 3 + 8
    entry = stored["coherence"]
    assert entry["label"] == "Coherence score"
    assert stored_rating(entry, 1, 5).score == pytest.approx(4.0)  # what the DHP scorer reads
    assert stored_rating({**entry, "label": None}, 1, 5).failed  # a log stored before the label was kept
    assert stored_answer(ModelOutput.from_content("m", "4"))["label"] is None
