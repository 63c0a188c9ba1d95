"""DHP discernment suites: tasks, datasets, perturbations and prompts."""
