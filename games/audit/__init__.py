"""The offline verifier of the monthly dumps of every finished game (docs/AUDIT.md):

    python -m games.audit verify-dump FILE|DIR ... [--keys KEYS.json] [--jobs N] [--from-month YYYY-MM] [--quiet]

Standard library and games.engine only, like the engine itself: the server's signatures are checked by an
Ed25519 verifier of its own (ed25519.py), the rating changes recomputed by a Plackett-Luce update of its own
(ratings.py, openskill's arithmetic). The checks of one game's audit log (log_checks.py) serve the single-game
offline verifier too.
"""
