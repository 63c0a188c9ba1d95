"""CoEval suite (Li et al.): how consistently a judge writes evaluation criteria, and how they match the experts'."""
