"""Statistics shared by every suite and harness (plain NumPy/SciPy), plus inspect-ai scorers built on them."""
