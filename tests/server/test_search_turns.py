"""The search queue's turns: a task plays strong bots' decisions until one searched (then its game goes to the back
of the queue, so games of strong bots take turns); a decision the strong bot answers at once does not end it."""

from __future__ import annotations

import random
import time
from typing import Any

import pytest

from games.engine import legal_moves
from games.play import bot_turns
from games.store import states
from games.store.models import Event, Game, Seat
from tests.server.helpers import seated_game

pytestmark = pytest.mark.django_db


def test_a_search_ends_the_task_and_an_answer_given_at_once_does_not(monkeypatch: Any) -> None:
    monkeypatch.setenv("TTR_STRONG_SECONDS", "0.5")  # a search: most of it, at least 0.05 s of CPU however busy
    table = seated_game("search-turns", "usa", 2)
    Seat.objects.filter(game_id=table.game_id).update(bot="strong")
    calls: list[tuple[int, int]] = []  # (seq before, seq after) of each task that ended on a strong bot's search
    seq = table.seq()
    for _ in range(400):
        turns = bot_turns.play_turns(table.game_id, seq, searches=True, one_search=True)
        if turns.next_level is None:
            break
        calls.append((seq, turns.seq))
        seq = turns.seq
        if len(calls) >= 4 and any(after - before > 1 for before, after in calls):
            break
    assert Game.objects.get(pk=table.game_id).status == Game.Status.ACTIVE
    reasons = {e.seq: e.reason for e in Event.objects.filter(game_id=table.game_id).exclude(reason="")}
    # Each task stops on a searched decision ("(search: ... in N games)"); one decided in under 50 ms of CPU may not.
    for before, after in calls:
        mine = sorted(s for s in reasons if before < s <= after)
        assert mine and "games)" in reasons[mine[-1]], (before, after, [reasons[s] for s in mine])
    assert any(len([s for s in reasons if before < s <= after]) > 1 for before, after in calls), (
        "no task went on past a decision answered at once"
    )


def test_a_decision_that_waited_for_a_worker_searches_only_what_is_left_of_its_budget(monkeypatch: Any) -> None:
    """The strong bot answers TTR_STRONG_SECONDS after the decision fell to it, as its player sees it: a decision that
    waited in the queue searches for what is left (at least MIN_SEARCH_SECONDS)."""
    monkeypatch.setenv("TTR_STRONG_SECONDS", "2.0")
    table = seated_game("search-wait", "usa", 2)
    Seat.objects.filter(game_id=table.game_id).update(bot="strong")
    game = Game.objects.get(pk=table.game_id)
    assert 0 <= bot_turns.waiting_since(game) < 60  # since the start's last event, by the database's record
    state = states.state_at(game.pk, game.seq)
    seat = state.deciders()[0]  # the setup's ticket choice: always searched
    started = time.perf_counter()
    choice = bot_turns.choose(game, state, seat, "strong", random.Random(3), waited=1.7)
    took = time.perf_counter() - started
    assert choice.searched and choice.move in legal_moves(state, seat)
    assert took < 1.5, f"a decision with 0.3 s of its 2 s left searched for {took:.2f} s"
