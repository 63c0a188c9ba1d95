"""inspect-ai entry point: importing this module registers the dry run's stand-in judge provider."""

from judge_meta_eval.dry_run import dry_run_api

__all__ = ["dry_run_api"]
