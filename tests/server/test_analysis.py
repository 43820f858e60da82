"""Post-game analysis through the API (games/review/analyses.py, the task bots.tasks.analyse_game) and hints
(games/review/hints.py): who may ask, what is answered while it runs and when it is done, that the game's log never
changes, that a log altered afterwards is reported, and that a hint is recorded once per decision."""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

import pytest
from django.test import override_settings
from django.utils import timezone
from rest_framework.test import APIClient

from bots.policies import Decision
from bots.policies.greedy import choose as choose_greedy
from games.engine import legal_moves, view
from games.engine.played import played_moves
from games.play import bot_turns, scoring
from games.review import analyses
from games.review.models import Analysis
from games.store import event_log, states
from games.store.models import Event, Game
from tests.server.helpers import (
    API,
    assert_error,
    body,
    create_game,
    register,
    seated_game,
    tamper,
    url,
)

pytestmark = [
    pytest.mark.django_db(transaction=True),  # the request is sent to the worker after its commit
    pytest.mark.usefixtures("small_budget"),
]


@pytest.fixture
def small_budget() -> Any:
    with override_settings(TTR_ANALYSIS_SAMPLES=6, TTR_ANALYSIS_SINGLE=1, TTR_HINT_SECONDS=0.2):
        yield


def finished(prefix: str, map_name: str = "usa", seed: int = 1, **extra: Any) -> Any:
    """A 2-seat game between people, played to its end by the greedy bot's choices through the services (shorter
    games than random moves: the analysis has fewer and shorter playouts to make), and scored."""
    table = seated_game(prefix, map_name, 2, **extra)
    play_to_its_end(table, seed)
    return table


def play_to_its_end(table: Any, seed: int) -> None:
    rng = random.Random(seed)
    while (game := Game.objects.get(pk=table.game_id)).status != Game.Status.FINISHED:
        state = states.state_at(game.pk, game.seq)
        seat = state.deciders()[0]
        decision = Decision(view(state, seat), legal_moves(state, seat), rng)
        bot_turns.play_for(game, seat=seat, expected_seq=game.seq, move=choose_greedy(decision).move)
    scoring.game_score_and_rate(table.game_id)


def test_a_player_asks_for_the_analysis_of_a_finished_game_and_gets_every_decision_judged() -> None:
    table = finished("an-ask-")
    before = Game.objects.get(pk=table.game_id)
    events_before = Event.objects.filter(game_id=table.game_id).count()
    # Nobody asked yet: a normal state, answered as such (issue #33: it was a 404, a console error in the client).
    assert body(table.clients[0].get(url(table.game_id, "analysis"))) == {"status": "none"}

    asked = table.clients[1].post(url(table.game_id, "analysis"))
    assert asked.status_code == 200, asked.content  # (the worker ran inline: done at once)
    answer = body(table.clients[0].get(url(table.game_id, "analysis")))
    assert answer["status"] == "done" and answer["altered"] is False
    assert answer["bot"].startswith("strong") and answer["budget"] == {"samples": 6, "single": 1}
    moves = len(list(played_moves(event_log.events_between(table.game_id, 0, before.seq))))
    assert len(answer["decisions"]) == moves
    seqs = [d["seq"] for d in answer["decisions"]]
    assert seqs == sorted(seqs) and {d["seat"] for d in answer["decisions"]} == {0, 1}
    for decision in answer["decisions"]:
        # The loss is measured on fresh sampled games: unbiased, so it may be below 0; its interval beside it.
        assert decision["stderr"] >= 0
        assert decision["loss_low"] <= decision["loss"] <= decision["loss_high"]
        assert decision["loss_high"] - decision["loss"] == pytest.approx(2 * decision["stderr"], abs=0.02)
        assert decision["mark"] in (None, "inaccuracy", "mistake", "blunder")
        assert decision["mark"] is None or decision["loss_low"] >= 0
        if decision["best"] == decision["played"]:
            assert decision["loss"] == 0 and decision["reason"] == "" and decision["mark"] is None
    final = answer["leads"][-1]
    assert final["seq"] == before.seq and sum(final["leads"].values()) == 0
    assert [p["seat"] for p in answer["players"]] == [0, 1]
    assert sum(p["decisions"] for p in answer["players"]) == moves

    after = Game.objects.get(pk=table.game_id)  # the game's log is read, never written
    assert (after.seq, after.head_hash) == (before.seq, before.head_hash)
    assert Event.objects.filter(game_id=table.game_id).count() == events_before
    assert body(table.clients[0].get(url(table.game_id, "verify")))["ok"] is True


def test_only_a_player_of_a_finished_game_may_ask_and_asking_again_queues_nothing_new() -> None:
    table = seated_game("an-who-", "usa", 2)
    assert_error(table.clients[0].post(url(table.game_id, "analysis")), 409, "not_finished")
    play_to_its_end(table, 2)
    stranger = register("an-who-stranger")
    assert_error(stranger.post(url(table.game_id, "analysis")), 403, "not_a_player")
    assert APIClient().post(url(table.game_id, "analysis")).status_code == 401
    assert table.clients[0].post(url(table.game_id, "analysis")).status_code == 200
    finished_at = Analysis.objects.get(game_id=table.game_id).finished_at
    again = table.clients[1].post(url(table.game_id, "analysis"))
    assert again.status_code == 200 and Analysis.objects.get(game_id=table.game_id).finished_at == finished_at
    assert stranger.get(url(table.game_id, "analysis")).status_code == 200  # anyone who may see the game reads it


def test_while_it_waits_for_the_worker_the_answer_is_202_with_its_progress() -> None:
    table = finished("an-wait-")
    game = Game.objects.get(pk=table.game_id)
    an_hour_ago = timezone.now() - timedelta(hours=1)
    Analysis.objects.create(game=game, status=Analysis.Status.RUNNING, progress=0.25, started_at=an_hour_ago)
    answer = table.clients[0].get(url(table.game_id, "analysis"))
    assert answer.status_code == 202 and body(answer) == {"status": "running", "progress": 0.25}
    # A worker's run silent for longer than TTR_ANALYSIS_STALE_SECONDS is taken over when the sweep sends it again.
    assert analyses.analysis_sweep() >= 1
    assert body(table.clients[0].get(url(table.game_id, "analysis")))["status"] == "done"


# Each decision's move played, and the types of the events that name it (games/engine/played.py).
NAMING = {
    "keep_tickets": {"tickets_kept"}, "draw_card": {"card_drawn"}, "claim_route": {"route_claimed", "tunnel_revealed"},
    "draw_tickets": {"tickets_dealt"}, "build_station": {"station_built"}, "pay_tunnel": {"route_claimed"},
    "decline_tunnel": {"tunnel_declined"},
}


def named_by_its_event(decisions: list[dict[str, Any]], events: dict[int, dict[str, Any]]) -> None:
    """Each decision's `event` is an event of its seat naming its move played; `seq`, the position, is the event
    just before the move (and its reshuffles)."""
    for d in decisions:
        named = events[d["event"]]
        assert named["seat"] == d["seat"] and named["type"] in NAMING[d["played"]["type"]], (d, named)
        between = [events[seq]["type"] for seq in range(d["seq"] + 1, d["event"])]
        assert set(between) <= {"deck_shuffled"}, (d, between)


def test_each_decision_names_the_event_of_its_move_an_event_of_its_seat() -> None:
    """Issue #33: a mark shown at a decision's `seq` (the position decided on: the event before the move, often
    another seat's) told one seat's ticket keep beside the replay's line for another seat's deal. `event` is the
    move's own event, of the decision's seat and kind; an analysis stored before it had one gets it from the log."""
    table = finished("an-event-", seed=7)
    assert table.clients[0].post(url(table.game_id, "analysis")).status_code == 200
    answer = body(table.clients[0].get(url(table.game_id, "analysis")))
    events = {e["seq"]: e for e in body(table.clients[0].get(url(table.game_id, "events"), {"after": 0}))["events"]}
    named_by_its_event(answer["decisions"], events)
    setup = [d for d in answer["decisions"] if d["played"]["type"] == "keep_tickets"][:2]
    assert [events[d["seq"]]["type"] for d in setup] == ["tickets_dealt", "tickets_kept"]  # the position: not the move
    assert {d["seat"] for d in setup} == {0, 1}

    analysis = Analysis.objects.get(game_id=table.game_id)  # as stored before decisions kept their event
    analysis.decisions = [{k: v for k, v in d.items() if k != "event"} for d in analysis.decisions]
    analysis.save(update_fields=["decisions"])
    assert body(table.clients[0].get(url(table.game_id, "analysis")))["decisions"] == answer["decisions"]


def test_a_log_altered_after_its_analysis_is_reported() -> None:
    table = finished("an-alter-", seed=3)
    assert table.clients[0].post(url(table.game_id, "analysis")).status_code == 200
    row = Event.objects.filter(game_id=table.game_id, type="route_claimed").order_by("seq").first()
    assert row is not None
    tamper(table.game_id, row.seq, data={**row.data, "points": row.data["points"] + 10})
    answer = body(table.clients[0].get(url(table.game_id, "analysis")))
    assert answer["altered"] is True


def test_a_log_that_does_not_replay_move_by_move_fails_the_analysis_which_may_be_asked_again() -> None:
    table = finished("an-fail-", seed=4)
    row = Event.objects.filter(game_id=table.game_id, type="card_drawn", data__source="deck").order_by("seq")[5]
    card = row.data["card"]
    tamper(table.game_id, row.seq, data={**row.data, "card": "locomotive" if card != "locomotive" else "red"})
    assert_error(table.clients[0].post(url(table.game_id, "analysis")), 409, "analysis_failed")
    assert "event" in Analysis.objects.get(game_id=table.game_id).error
    tamper(table.game_id, row.seq, data=row.data)  # put back: asked again, it runs again
    assert table.clients[0].post(url(table.game_id, "analysis")).status_code == 200


@pytest.fixture
def analysed_at_game_over(settings: Any) -> Any:
    """The analysis hears of a game's end as games/apps.py wires it (the same dispatch_uid: connecting again is
    nothing); disconnected afterwards only if it was connected here. With ranked games analysed, as in production
    (tests/server/conftest.py turns it off for the other tests)."""
    settings.TTR_ANALYSIS_RANKED = True
    wired = any(key[0] == "analysis" for key, *_ in scoring.game_over.receivers)
    scoring.game_over.connect(analyses.game_over_heard, dispatch_uid="analysis")
    yield
    if not wired:
        scoring.game_over.disconnect(dispatch_uid="analysis")


@pytest.mark.usefixtures("analysed_at_game_over")
def test_a_ranked_game_that_ends_on_an_idle_queue_is_analysed_at_once() -> None:
    """Issue #35: queued as it is scored (not at the sweep's next beat), so it starts within a minute of its end."""
    ranked = finished("an-end-", seed=5, ranked=True)
    game = Game.objects.get(pk=ranked.game_id)
    analysis = Analysis.objects.get(game_id=ranked.game_id)
    assert analysis.requested_by_id is None and analysis.status == Analysis.Status.DONE  # (the worker runs inline)
    assert game.scored_at is not None and analysis.started_at is not None
    assert timedelta(0) <= analysis.started_at - game.scored_at < timedelta(minutes=1)
    assert analyses.analysis_sweep() == 0  # nothing left to take


@pytest.mark.usefixtures("analysed_at_game_over")
def test_a_ranked_game_that_ends_on_a_busy_queue_waits_for_the_sweep_and_an_unranked_one_for_a_player() -> None:
    busy = finished("an-busy-", seed=4)
    Analysis.objects.create(game_id=busy.game_id)  # a player's request, waiting for the worker
    ranked = finished("an-idle-", seed=5, ranked=True)
    assert not Analysis.objects.filter(game_id=ranked.game_id).exists()  # a player's request goes first
    assert analyses.analysis_sweep() == 0
    Analysis.objects.filter(game_id=busy.game_id).delete()
    assert analyses.analysis_sweep() == 1  # the queue is idle: the newest ranked game
    assert Analysis.objects.get(game_id=ranked.game_id).status == Analysis.Status.DONE
    assert analyses.analysis_sweep() == 0  # nothing left to take
    assert not Analysis.objects.filter(game_id=busy.game_id).exists()  # unranked: analysed when a player asks


def test_the_player_page_shows_the_mean_loss_per_decision_by_map() -> None:
    table = finished("an-page-", seed=6)
    assert table.clients[0].post(url(table.game_id, "analysis")).status_code == 200
    players = body(table.clients[0].get(url(table.game_id, "analysis")))["players"]
    page = body(table.clients[0].get(f"{API}/users/an-page-0"))
    usa = page["analysis"]["usa"]
    assert usa["games"] == 1 and usa["decisions"] == players[0]["decisions"]
    assert usa["mean_loss"] == pytest.approx(players[0]["mean_loss"], abs=0.01)
    assert [point["game"] for point in usa["trend"]] == [table.game_id]
    assert body(register("an-page-new").get(f"{API}/users/an-page-new"))["analysis"] == {}


# Hints


def against_bots(prefix: str, **extra: Any) -> tuple[Any, str]:
    client = register(prefix)
    game = create_game(client, "usa", 2, **extra)
    response = client.post(url(game["id"], "start"), {"fill_with_bots": "greedy"}, format="json")
    assert response.status_code == 200, response.content
    return client, game["id"]


def test_a_hint_against_bots_is_a_legal_move_with_its_reason_recorded_once_per_decision() -> None:
    client, game_id = against_bots("hint-one")
    legal = body(client.get(url(game_id, "legal-moves")))
    hint = client.post(url(game_id, "hint"))
    assert hint.status_code == 200, hint.content
    given = body(hint)
    assert given["move"] in legal["moves"] and given["reason"] and given["hints"] == 1
    assert given["seq"] == legal["seq"] + 1
    again = body(client.post(url(game_id, "hint")))
    assert again["move"] == given["move"] and again["hints"] == 1 and again["seq"] == given["seq"]
    events = body(client.get(url(game_id, "events"), {"after": legal["seq"]}))["events"]
    assert [e["type"] for e in events] == ["hint_used"] and events[0]["seat"] == 0
    summary = body(client.get(url(game_id)))
    assert summary["seats"][0]["hints"] == 1 and summary["seats"][1]["hints"] == 0
    # The hint changes nothing in the game: the move it names is still legal, at the new seq.
    played = client.post(url(game_id, "moves"), {"expected_seq": given["seq"], "move": given["move"]}, format="json")
    assert played.status_code == 201, played.content


def test_no_hints_in_a_ranked_game_or_with_another_person_at_the_table_or_out_of_turn() -> None:
    client, ranked = against_bots("hint-ranked", ranked=True)
    assert_error(client.post(url(ranked, "hint")), 403, "no_hints")
    table = seated_game("hint-people-", "usa", 2)
    assert_error(table.clients[0].post(url(table.game_id, "hint")), 403, "no_hints")
    stranger = register("hint-stranger")
    client, game_id = against_bots("hint-turn")
    assert_error(stranger.post(url(game_id, "hint")), 403, "no_hints")
    for move in body(client.get(url(game_id, "legal-moves")))["moves"][:1]:  # keep the setup tickets
        seq = body(client.get(url(game_id, "state")))["seq"]
        assert client.post(url(game_id, "moves"), {"expected_seq": seq, "move": move}, format="json").status_code == 201
    view = body(client.get(url(game_id, "state")))["view"]
    if 0 not in view["deciding_seats"]:
        assert_error(client.post(url(game_id, "hint")), 403, "not_your_turn")
    assert Event.objects.filter(game_id=game_id, type="hint_used").count() == 0
