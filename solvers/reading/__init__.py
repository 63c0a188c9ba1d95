"""Reading the judge's answer: its shapes and formats, the text rules, and the log-probability reading."""
