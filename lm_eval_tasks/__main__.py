"""``python -m lm_eval_tasks``: print the folder to pass to lm-eval's ``--include_path``."""

from lm_eval_tasks import main

main()
