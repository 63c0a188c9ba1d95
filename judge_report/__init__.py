"""Judges side by side: leaderboard, paper tables, plots and leaderboard exports from finished runs."""
