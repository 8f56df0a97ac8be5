"""Python files: one ``ast`` analysis, the fork index, the rules, release fitting and the write guard."""
