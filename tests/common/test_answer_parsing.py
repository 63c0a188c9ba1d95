import pytest

from solvers.reading.ratings import parse_rating
from solvers.reading.verdicts import parse_verdict
from solvers.reading.yes_no import parse_yes_no


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("4", 4.0),
        (" 3\n", 3.0),
        ("Score: 4", 4.0),
        ("Coherence score: 2", 2.0),
        ("4/5", 4.0),
        ("I'd give it 3 / 5.", 3.0),
        ("4 out of 5", 4.0),
        ("[[5]]", 5.0),
        ("Rating: [[2]]", 2.0),
        ("The summary repeats itself and jumps between topics. 2", 2.0),
        ("The ending fits the story well, so I rate it 4.", 4.0),
        ("3.5", 3.5),
        ("1. 5\n2.", 5.0),
        ("1. Read the summary.\n2. Check facts.\nScore: 3", 3.0),
        ("Fluency: 5", 5.0),
        ("Coherence score (1-5): 4", 4.0),
        ("Score: 4 (on a 1-5 scale)", 4.0),
        ("On a scale from 1 to 5, I give it a 2.", 2.0),
    ],
)
def test_parses_common_answer_forms(answer, expected):
    assert parse_rating(answer) == expected


@pytest.mark.parametrize(
    "answer",
    [
        "",
        "   ",
        "The summary is fine.",
        "Score: 7",
        "0",
        "10/10",
        "[[6]]",
        "-",
        "Score: high",
        "One number from 1 to 5",
    ],
)
def test_missing_or_out_of_range_is_unparsable(answer):
    assert parse_rating(answer) is None


def test_other_scales():
    assert parse_rating("8", low=1, high=10) == 8.0
    assert parse_rating("Score: 3", low=1, high=3) == 3.0
    assert parse_rating("Score: 4", low=1, high=3) is None


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("A", "A"),
        ("[[B]]", "B"),
        ("[[C]]", "tie"),
        ("Verdict: A", "A"),
        ("Both are fine. Final verdict: [[A]]", "A"),
        ("Assistant B is better because it is accurate.", "B"),
        ("It's a tie.", "tie"),
        ("tie", "tie"),
        ("I first thought [[A]] but on reflection [[B]]", "B"),
    ],
)
def test_parses_verdicts(answer, expected):
    assert parse_verdict(answer) == expected


@pytest.mark.parametrize("answer", ["", "Both have merits.", "Answer A has a typo, answer B is long."])
def test_unclear_verdicts_are_unparsable(answer):
    assert parse_verdict(answer) is None


def test_parses_yes_no():
    assert parse_yes_no("[[YES]]") is True
    assert parse_yes_no("The explanation says nothing. [[NO]]") is False
    assert parse_yes_no("No, it does not.") is False
    assert parse_yes_no("maybe") is None


# ---- issue 12, item 4: answers that real judges wrote and that were misread ----

ISSUE_12_RATINGS = [
    ("4\n\nThe summary is strong, but it omits 2 key facts.", 5, 4.0),
    ("Accuracy score: 4. The translation is accurate in 3 of 4 sentences.", 5, 4.0),
    ("The summary covers 3 out of 10 key points. Score: 2", 5, 2.0),
    ("Mostly right, but it says 2 out of 3 steps are needed. Rating: 9", 10, 9.0),
    ("A score of 5 would require flawless text; this one gets a 3.", 5, 3.0),
    ("Score: 5/10", 5, None),
    ("Score: -3", 5, None),
    ("Rating: [[n]], where n is a whole number from 1 (worst) to 10 (best).", 10, None),
    ("Give a Coherence score from 1 (worst) to 5 (best).", 5, None),
    ("4.", 5, 4.0),
    ("Coherence score:\n4.", 5, 4.0),
]

ISSUE_12_VERDICTS = [
    ("The verdict is a tie.", "tie"),
    ("My verdict: a clear win for B", "B"),
    ("Response A is clearly better. It is not a tie.", "A"),
    (
        "First explain your comparison in a few sentences. Then end with your verdict: [[A]] if answer A is better, "
        "[[B]] if answer B is better, or [[C]] for a tie.",
        None,
    ),
]


@pytest.mark.parametrize(("answer", "high", "expected"), ISSUE_12_RATINGS)
def test_issue_12_ratings(answer, high, expected):
    assert parse_rating(answer, 1, high) == expected


@pytest.mark.parametrize(("answer", "expected"), ISSUE_12_VERDICTS)
def test_issue_12_verdicts(answer, expected):
    assert parse_verdict(answer) == expected


# ---- linear time: inputs that made the old regexes backtrack for seconds to hours ----

LONG = 20_000


@pytest.mark.parametrize(
    ("answer", "rating", "verdict"),
    [
        ("verdict" + " " * 400, None, None),  # 53 s before
        ("verdict" + " " * LONG + "B", None, None),
        ("1" * LONG, None, None),  # 18 s before (quadratic in the digits)
        ("Score: " + "1" * LONG, None, None),
        ("Score:" + " " * LONG + "4", 4.0, None),
        ("[[" * LONG, None, None),
        ("1-" * LONG, None, None),
        ("4/" * LONG, None, None),
        ("(" * LONG + "4", 4.0, None),
        ("A " * LONG, None, None),
        ("verdict: " * (LONG // 9), None, None),
        ("score" + " :" * LONG, None, None),
        ('"' * LONG + "4", 4.0, None),
        ("\n" * LONG + "4", 4.0, None),
        ("Score: 3. " * (LONG // 10) + "Score: 4.", 4.0, None),
        ("[[n]]. " * (LONG // 7) + "Score: 4", 4.0, None),  # a placeholder in every sentence
        ("[[A]] if x [[B]]. " * (LONG // 18), None, None),
    ],
)
def test_long_adversarial_answers_parse_in_linear_time(answer, rating, verdict):
    assert parse_rating(answer) == rating
    assert parse_verdict(answer) == verdict
    assert parse_yes_no(answer) is None


def test_long_real_judge_answer():
    reasoning = (
        "The summary reports that 3 of the 4 trials (published 2019-03-04) found an effect and that 12 patients "
        "dropped out. It describes the film as rated PG-13, which the article does not say.\n"
    )
    answer = reasoning * 400 + "\n**Coherence score:** 4\n\n" + reasoning * 100
    assert len(answer) > 50_000
    assert parse_rating(answer) == 4.0


# ---- long, verbose answers in the shapes real judges write ----

GEVAL_ANSWER = """\
Step 1: The central topic is the council's budget for 2024.
Step 2: The sentences follow each other logically: the approval on 12 May, then the 4% rise in school spending,
then the critics.
Step 3: One jump: the sentence about 3 of the 10 roads comes before the roads are introduced.
Step 4: Overall it is easy to follow.

Coherence score: 4

The only weakness is the ordering of the 2nd and 3rd sentences; a 5 would need a fully linear structure."""

FBI_SINGLE_ANSWER = """\
The answer computes the total correctly for the first 2 items, but it copies 15.5 as 155 in step 3, so the
final figure (1,240 dollars) is wrong. The explanation is clear and well ordered, and the units are right.
A rating of 9 or 10 would require a correct final answer.

Rating: [[4]]"""

FBI_REFERENCE_ANSWER = """\
Compared with the reference (which gives 42 km), the answer says "the distance is 24 km, rated by the survey as
3 out of 5 for accuracy". The digits are swapped: a serious factual error.

1. Formula: correct.
2. Numbers copied: wrong.
3. Final answer: wrong.

Rating: [[2]]"""


@pytest.mark.parametrize(
    ("answer", "high", "expected"),
    [
        (GEVAL_ANSWER, 5, 4.0),
        (FBI_SINGLE_ANSWER, 10, 4.0),
        (FBI_REFERENCE_ANSWER, 10, 2.0),
        ("The summary is accurate.\n\n**Score:** 4\n\nIt omits the date (12 May 2020) but nothing else.", 5, 4.0),
        ("**Fluency:** 3\n- 2 misspelled words\n- 1 fragment", 5, 3.0),
        ("- Relevance: 4\n- The summary repeats 2 minor details.", 5, 4.0),
        ("The translation keeps all 7 names. Score: 4/5. Only the date format differs.", 5, 4.0),
        ("Considering the 3 errors, I would give this summary a 4 out of 5, since they are small.", 5, 4.0),
        ("Score: 3.5 - between adequate and good.", 5, 3.5),
        ("[[4]]\n\nThe answer follows the instruction except for 2 extra lines.", 10, 4.0),
        ("The movie is rated PG-13 and was released on 2019-03-04 at 10:30. It grossed 85% more. Score: 2", 5, 2.0),
        ("## Assessment\nThe ending contradicts the 2nd sentence.\n## Score\n2", 5, 2.0),
        ("The review says it is rated 4 stars. The ending is unrelated to the story.\n1", 5, 1.0),
        ('Score: 2\nThe summary copies "rated 4 out of 5 by critics" from the article.', 5, 2.0),
        ("Score: 4\n\nThe summary repeats that the drug has a rating of 7.5 from users.", 5, 4.0),
        ("I would not give it a 5. It gets a 4.", 5, 4.0),
        ("Score: 4. It gets 2 facts wrong.", 5, 4.0),
        ("1. The summary is organised.\n2. Each sentence follows.\n3. No jumps.\n\nCoherence score: 5", 5, 5.0),
        ("Explanation: the answer is correct but terse.\n\nRating: [[8]]", 10, 8.0),
        ("4 (good)", 5, 4.0),
        ("I think it's a 3, since the ending is abrupt.", 5, 3.0),
    ],
)
def test_verbose_judge_answers(answer, high, expected):
    assert parse_rating(answer, 1, high) == expected


@pytest.mark.parametrize(
    ("answer", "high"),
    [
        ("The answer gets 2 facts wrong.", 5),
        ("I'd rate it 3-4.", 5),
        ("The summary covers 3 out of 10 key points.", 5),
        ("On 12 May 2020, 4 patients were admitted.", 5),
        ("There is a 2 hour gap between the events.", 5),
        ("Score: 85%", 5),
        ("Score: 4/5", 10),
        ("The film is rated PG-13 and runs for 2 hours.", 5),
        ("A score of 5 would require flawless text.", 5),
        ("Score with this rubric:\n1: The answer has a problem.\n2: It is acceptable.\n3: It is correct.", 3),
    ],
)
def test_mentions_that_are_not_ratings(answer, high):
    assert parse_rating(answer, 1, high) is None


def test_contradictory_explicit_scores_take_the_last_statement():
    assert parse_rating("Score: 3. On reflection the missing date matters less. Final score: 4") == 4.0
    assert parse_rating("[[3]] ... actually [[4]]") == 4.0
    # an explicit [[n]] outranks a score statement anywhere in the answer
    assert parse_rating("Rating: [[3]]. I first thought it deserves a 4.", 1, 10) == 3.0


def test_off_scale_explicit_answers_are_never_counted():
    assert parse_rating("Rating: [[11]]", 1, 10) is None
    assert parse_rating("Score: 4\n\nOn reflection, Score: 7") == 4.0


# ---- answers that echo the real prompts ----


def _dhp_prompt():
    from dhp_tasks.prompts import TEXT_KINDS

    kind = TEXT_KINDS["summarization"]
    return kind.prompt.render(kind.criteria[0], "The council approved the budget.", "An article on the budget.")


def _fbi_prompts():
    from fbi_tasks.prompts import AXES, STRATEGIES, reference_prompt, single_prompt

    axis = AXES["factual"]
    question, answer = "What is the capital of France?", "Paris."
    single = STRATEGIES["single"]
    prompts = [(single_prompt(single[s], question, answer, 10, axis), 10) for s in ("vanilla_star", "vanilla", "axis")]
    prompts += [
        (single_prompt(single[s], question, answer, scale, axis), scale)
        for s in ("rubric", "axis_rubric")
        for scale in (3, 5)
    ]
    prompts.append((reference_prompt(question, "Paris.", answer, 10), 10))
    return prompts


def test_echo_of_a_whole_prompt_is_unparsable_and_the_answer_after_it_counts():
    dhp = _dhp_prompt()
    assert parse_rating(dhp) is None
    assert parse_rating(dhp + " 4") == 4.0
    assert parse_rating(dhp + "\n3") == 3.0
    for prompt, scale in _fbi_prompts():
        assert parse_rating(prompt, 1, scale) is None, prompt
        assert parse_rating(prompt + "\n\nThe answer is right.\nRating: [[2]]", 1, scale) == 2.0


def test_echo_of_pairwise_and_check_prompts_is_unparsable():
    from fbi_tasks.prompts import AXES, STRATEGIES, explanation_check_prompt, pairwise_prompt

    for strategy in STRATEGIES["pairwise"].values():
        prompt = pairwise_prompt(strategy, "Name a prime.", "Seven.", "Nine.", AXES["factual"])
        assert parse_verdict(prompt) is None, strategy
        assert parse_verdict(prompt + "\nAnswer B names a non-prime. [[A]]") == "A"
    for answers, flawed in (
        ([("Answer", "Nine.")], "Answer"),
        ([("Answer A", "Seven."), ("Answer B", "Nine.")], "Answer B"),
    ):
        check = explanation_check_prompt("Name a prime.", answers, flawed, "The answer is fine.")
        assert parse_yes_no(check) is None
        assert parse_yes_no(check + "\n[[NO]]") is False


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Both answers address the request. Answer B misses the unit. Final verdict: [[A]]", "A"),
        ("**Verdict:** B", "B"),
        ("The winner is Response B, because it keeps the 3 steps in order.", "B"),
        ("Answer B is worse because it is wrong.", "A"),
        ("I prefer Response B.", "B"),
        ("Both are equally good.", "tie"),
        ("Neither answer is better.", "tie"),
        ("A clear win for B.", "B"),
        ("I'd call it a tie.", "tie"),
        ("The better answer is B: it keeps the units.", "B"),
        ("Final answer: A", "A"),
        ("Answer A says 2019; answer B says 2020. B is right, so B is better.", "B"),
    ],
)
def test_verbose_verdicts(answer, expected):
    assert parse_verdict(answer) == expected


@pytest.mark.parametrize(
    "answer",
    [
        "Call a tie only when neither answer is better.",
        "Answer A is not better than B.",
        "If answer A is better, say so.",
        'Answer B quotes "A is better" from the forum.',
    ],
)
def test_negated_conditional_and_quoted_verdicts_are_unparsable(answer):
    assert parse_verdict(answer) is None


def test_yes_no_forms():
    assert parse_yes_no("**Yes.** The explanation names the wrong unit.") is True
    assert parse_yes_no("Reply with [[YES]] if it points out a problem, or [[NO]] if it does not.") is None
    assert parse_yes_no("It names no problem. [[YES]] would be wrong, so: [[NO]]") is False


# ---- issue 16: statements real judges write, read against the prompt they answered ----

PAIR_PROMPT = (
    "Compare the two answers. First explain your comparison in a few sentences. Then end with your verdict: [[A]] if "
    "answer A is better, [[B]] if answer B is better, or [[C]] for a tie."
)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Both are wrong.\n\nFinal verdict: [[C]] for a tie, as both assistants failed.", "tie"),
        ("[[C]] for a tie.", "tie"),
        ("The verdict is [[C]] for a tie, as both equally missed it. Both Assistant A and B are wrong.", "tie"),
        ("My final verdict is: [[A=B]]", "tie"),
        ("My final verdict is tie: [[A=B]]", "tie"),
        ("Assistant B is slightly better: [[B>A]]", "B"),
        ("My final verdict is: [[A>>B]]", "A"),
        ("[[B>>A]]", "B"),
        ("Output (a) is better.", "A"),
        ("Therefore, Output (b) is better than Output (a).", "B"),
        ("Output (a) (as it follows the instruction)", "A"),
        ("Output (b)", "B"),
        ("Response 2", "B"),
        ("The final decision is Response 1.", "A"),
        ("Output (a) is better. Output (b) is more verbose and less precise.", "A"),
        ("Output (b) is better. Output (a) contains the word 'them'.", "B"),
        ("I first thought [[A]] but on reflection [[B]]", "B"),
    ],
)
def test_verdict_statements_of_real_judges(answer, expected):
    assert parse_verdict(answer, PAIR_PROMPT) == expected


@pytest.mark.parametrize(
    "answer",
    [
        PAIR_PROMPT,
        "As asked: [[A]] if answer A is better, [[B]] if answer B is better, or [[C]] for a tie.",
        "[[A>A]]",
        "Output (b) is more detailed.",
        "Output (a):\n- short\nOutput (b):\n- long",
    ],
)
def test_echoes_and_unclear_verdicts_stay_unread(answer):
    assert parse_verdict(answer, PAIR_PROMPT) is None


def test_a_sentence_stating_one_answer_in_the_prompts_words_is_read_only_with_one_value():
    listing = 'Use "[[A]]" if assistant A is better, "[[B]]" if assistant B is better.'
    prompt = f"Judge the answers. {listing}"
    assert parse_verdict(f"I follow the format: {listing}", prompt) is None
    assert parse_verdict('Following the format: "[[B]]" if assistant B is better.', prompt) == "B"


@pytest.mark.parametrize(
    ("answer", "high", "expected"),
    [
        ("I would assign a score of 5 to this answer", 5, 5.0),
        ("I assign a score of 5 to this answer.", 5, 5.0),
        ("2. I would assign a score of 5 to this answer as it is clear and concise.", 5, 5.0),
        ("1. The answer is relevant.\n2. I would assign a score of 4 to this answer.\n3. Evidence: 2 facts.", 5, 4.0),
        ("My rating is 4.", 5, 4.0),
        ('I would rate it as follows: "Rating: [[8]]".', 10, 8.0),
        ('Overall, I would rate the AI assistant\'s response as a "[7]" on the scale of 1 to 10.', 10, 7.0),
        ("Overall, I would rate the assistant's answer as a [9].", 10, 9.0),
    ],
)
def test_score_statements_of_real_judges(answer, high, expected):
    assert parse_rating(answer, 1, high) == expected


def test_an_echo_of_the_rating_format_with_its_example_is_not_a_rating():
    prompt = f"Rate the response.\n\n{MT_BENCH_SINGLE_FORMAT}"
    assert parse_rating(MT_BENCH_SINGLE_FORMAT, 1, 10, prompt) is None
    assert parse_rating(f"{MT_BENCH_SINGLE_FORMAT}\n\nRating: [[6]]", 1, 10, prompt) == 6.0


MT_BENCH_SINGLE_FORMAT = (
    "After providing your explanation, you must rate the response on a scale of 1 to 10 by strictly following this "
    'format: "[[rating]]", for example: "Rating: [[5]]".'
)


def test_echoes_are_found_in_linear_time_against_a_long_prompt():
    prompt = "Rate it. " + "The answer says 3 of 4 steps. " * 5000 + "Rating: [[n]], where n is 1 to 10."
    answer = "The answer says 3 of 4 steps. " * 5000 + "Rating: [[7]]"
    assert parse_rating(answer, 1, 10, prompt) == 7.0
    assert parse_verdict("A " * LONG, "A A A A " * LONG) is None


FBI_PAIR_PROMPT = (
    'After providing your explanation, output your final verdict by strictly following this format: "[[A]]" if '
    'assistant A is better, "[[B]]" if assistant B is better, "[[C]]" for a tie, and "[[D]]" if both the answers are '
    "unacceptable."
)
"""The closing instruction of the FBI authors' pairwise prompts (AI4Bharat/FBI, ``llm_evaluators/prompts/``)."""


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ('{"reasoning": "ok", "score": 9}', 9),
        ('{"justification": "The answer misses the unit.", "score": 6}', 6),
        ('{"justification": "It says "about 40" where 42 is right.", "score": 7}', 7),  # unescaped quotes
        ('{\n  "justification": "Two slips.",\n  "score": 8,\n}', 8),  # a trailing comma
        ("Here is my evaluation:\n{'justification': 'Fine.', 'score': 10}", 10),  # a Python dict after prose
        ('{"justification": "I first thought 3.", "score": "5"}', 5),
        ('{"justification": "A score of 9 would need the unit.", "score": 8}', 8),
    ],
)
def test_json_objects_are_read_by_the_text_rules(answer, expected):
    assert parse_rating(answer, 1, 10) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ('"verdict": "A"', "A"),
        ('{"justification": "B omits a step.", "verdict": "A"}', "A"),
        ('{"justification": "Both are right.", "verdict": "C"}', "tie"),
        ('{"justification": "A has the wrong year.", "verdict": "[[B]]"}', "B"),
        ('{"justification": "A says "yes" too early.", "verdict": "B"}', "B"),
        ("{'justification': 'Same content.', 'verdict': 'c'}", "tie"),
        ('{"reasoning": "A is better.", "verdict": "tie",}', "tie"),
    ],
)
def test_json_verdicts_in_the_fbi_authors_shapes(answer, expected):
    assert parse_verdict(answer, FBI_PAIR_PROMPT) == expected


@pytest.mark.parametrize(
    "answer",
    [
        "[[D]]",
        "D",
        "Assistant A is better written, but both are wrong.\n\nFinal verdict: [[D]]",
        '{"justification": "Assistant A is better, yet both miss the point.", "verdict": "D"}',
        '{"justification": "A is "better" but wrong.", "verdict": "[[D]]"}',
        "My verdict: D, since answer B is better only in style.",
    ],
)
def test_a_verdict_the_prompt_does_not_offer_is_unread_not_misread(answer):
    # This project's prompts offer A, B and C (a tie); FBI's authors also offer D, "both unacceptable".
    assert parse_verdict(answer, FBI_PAIR_PROMPT) is None


def test_the_fbi_authors_verdict_instruction_is_an_echo():
    assert parse_verdict(f"{FBI_PAIR_PROMPT}\n\nAssistant B is better.", FBI_PAIR_PROMPT) == "B"


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ('{"reasoning": "It names the wrong year.", "answer": "yes"}', True),
        ('{"reasoning": "It says "fine" and nothing else", "answer": "no"}', False),
        ("Checked.\n{'reasoning': 'No error named.', 'answer': 'no',}", False),
    ],
)
def test_json_yes_no_fields_are_read_by_the_text_rules(answer, expected):
    assert parse_yes_no(answer) is expected
