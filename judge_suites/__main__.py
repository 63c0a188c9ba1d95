"""``python -m judge_suites``: rewrite the generated tables of every README from the definitions."""

from judge_suites.readmes import main

main()
