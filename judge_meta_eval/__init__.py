"""``judge-meta-eval``: every suite over one or more judges in one command, with versioned presets."""
