from lm_eval_tasks import main

main()
