"""Many random games across both maps and every player count, each checked cheaply as it is played.

    TTR_MANY_GAMES=5000 .venv/bin/pytest tests/engine/test_many_games.py     # default 200 games

Per decision: the 110 train cards are all somewhere (C-CMP-1) and trains stay at 0 or more; per game: it ends
within the decision bound, the log replays to the final state (also after a trip through JSON) and the final
scores are `final_score` of the final board. The thorough versions of these checks are test_properties.py.
"""

from __future__ import annotations

import math
import os
import random

import pytest

from games.engine.codec import event_from_json, event_to_json
from games.engine.evolve import replay

from .test_properties import (
    MAPS,
    Decision,
    GameSpec,
    assert_cards_conserved,
    assert_scores_recomputed,
    assert_trains_accounted,
    differing_fields,
    play,
)

GAMES = max(1, int(os.environ.get("TTR_MANY_GAMES", "200")))
KINDS = [(map_name, players) for map_name in MAPS for players in range(2, 6)]
PER_KIND = math.ceil(GAMES / len(KINDS))


def check_decision(d: Decision, _: random.Random) -> None:
    where = f"decision {d.number} ({d.move})"
    assert_cards_conserved(d.after, where)
    for seat, player in enumerate(d.after.players):
        assert player.trains >= 0, f"{where}: seat {seat} has {player.trains} trains"


@pytest.mark.slow
@pytest.mark.parametrize(("map_name", "players"), KINDS, ids=[f"{m}-{n}p" for m, n in KINDS])
def test_many_random_games_keep_the_invariants_and_end(map_name: str, players: int) -> None:
    ends: dict[str, int] = {}
    for number in range(PER_KIND):
        spec = GameSpec(map_name, players, number)
        try:
            game = play(spec, check_decision)
            final = game.state
            assert_trains_accounted(final, "at the end")
            assert not differing_fields(replay(game.events), final), "the log does not replay to the final state"
            decoded = [event_from_json(event_to_json(e)) for e in game.events]
            assert decoded == game.events, "an event does not survive the JSON codec"
            assert_scores_recomputed(final, "at the end")
        except AssertionError as failure:
            raise AssertionError(f"{spec}: {failure}") from failure
        assert final.end_reason is not None
        ends[final.end_reason] = ends.get(final.end_reason, 0) + 1
    assert sum(ends.values()) == PER_KIND
