"""Your grader against your own labels: agreement with human labels, with itself across epochs, and the pass rate
your eval reports corrected for the grader's errors."""
