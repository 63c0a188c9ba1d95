"""Reading the judge's answer: what it was asked for, the text rules, and the log-probability reading.

Judges reason before and after their answer, quote the judged text (numbers, dates, "rated PG-13",
"3 of 4 steps") and sometimes echo the prompt's instructions, so neither the last number nor the last
keyword is a safe rule. The answer is cut into tokens (numbers, words, single marks) in one linear
pass, and rules that look only a few tokens around each token read it, so every answer is parsed in
linear time. The rules are tried in order; the first that finds an answer decides. Within a rule the
last statement wins: prompts ask the judge to end with its answer, and a judge that revises itself
("I first thought 3 ... Score: 4") states its final answer last. The rules were designed on the answers
real judges wrote (``tests/data/judge_answers/``), not on a hand-made table.

An answer that no rule reads is *unparsable* (``None``): the caller counts it and leaves it out; it is never
replaced by a default.

- :mod:`~solvers.reading.formats`: the answer kinds and formats, and the field that holds a JSON answer;
- :mod:`~solvers.reading.shapes`: what the judge was asked for (:class:`~solvers.reading.shapes.AnswerShape`) and
  one reader for every answer (:func:`~solvers.reading.shapes.read_answer`);
- :mod:`~solvers.reading.tokens` and :mod:`~solvers.reading.echoes`: the answer as tokens, without the echoes of the
  prompt's instructions;
- :mod:`~solvers.reading.ratings`, :mod:`~solvers.reading.verdicts`, :mod:`~solvers.reading.yes_no`: the text rules
  of each kind of answer;
- :mod:`~solvers.reading.json_answers`: asking for the answer as JSON (``-T answer_format=json``);
- :mod:`~solvers.reading.logprobs`: the rating read from the judge's top log-probabilities (``-T scoring=logprobs``).
"""
