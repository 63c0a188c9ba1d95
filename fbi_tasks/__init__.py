"""FBI blind-spot suites: tasks, data loading and judge prompts."""
