"""Golden playthroughs kept as diffable text: whole games the engine plays from fixed seeds, one line per move
and per event (`<n> seat<s> <move> key=value... (<k> legal)`, the events indented under it, each with how every
viewer reads it and what changed in every viewer's view), ending in every seat's score.

They are for review: a change to the rules, the chances, the log or who sees what shows up as a readable diff of
what happened differently in a real game, and a refactor that should change nothing must leave them alone. Each
file is also a replayable record: its moves, played again from its seed, remake it (tests/golden/test_golden.py).
When the rules change on purpose, rewrite them and read the diff before committing:

    TTR_REGENERATE_GOLDEN=1 .venv/bin/pytest tests/golden
"""
