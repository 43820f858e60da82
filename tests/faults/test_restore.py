"""The restore drill's short version (bench/restore_drill.py; docs/OPERATIONS.md, Backup and restore): on a cluster
of its own, a game before the base backup and one after it (a few moves each), the primary stopped at once, the base
backup plus the archived WAL restored to a point in time just after the last game's last move: both games are back
with the seq and head hash they had, verify, and a commit after the target time is not."""

from __future__ import annotations

import pytest

from bench import restore_drill


def test_a_base_backup_and_the_archived_wal_bring_every_game_back_verifying() -> None:
    if problems := restore_drill.missing():
        pytest.skip(f"PostgreSQL's programs are missing from {restore_drill.BIN}: {', '.join(problems)}")
    figures = restore_drill.run(1, 1, moves=6, target_time=True)
    assert figures["games_restored"] == figures["games_identical"] == figures["games_verified"] == 2, figures
    assert figures["games_after_backup_restored"] == 1, figures
    assert figures["commit_after_target_restored"] is False, figures
    assert figures["ok"], figures
