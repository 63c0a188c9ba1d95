"""Judge prompting: G-Eval style rating solvers, answer parsing, and the bundled local judge."""
