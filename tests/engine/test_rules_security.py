"""Hidden information (X-SEC-1) and chance written in the log (X-RNG-1), over whole games on both maps; the view
as a typed value and as the API's JSON (games/engine/codec.py `view_json`)."""

from __future__ import annotations

import dataclasses
import json
import random
from collections.abc import Iterator
from typing import Any

import pytest

from games.engine import events as ev
from games.engine import evolve, random_legal_move, redact, replay, score_ended, view
from games.engine import moves as mv
from games.engine.cards import CARD_KINDS, total
from games.engine.codec import event_from_json, event_to_json, view_json
from games.engine.state import State
from tests.engine.builders import arrange, claim, of_type, opening, play, started

MAPS = ["europe", "usa"]


def game(map_name: str, players: int, seed: int) -> Iterator[tuple[State, tuple[ev.Event, ...]]]:
    """Every state of a random game with the events that led to it (the opening first)."""
    rng = random.Random(seed)
    state, events = opening(map_name, players, seed)
    yield state, events
    while not state.finished:
        seat = state.deciders()[0]
        move = random_legal_move(state, seat, rng)
        assert move is not None
        state, events = play(state, seat, move, seed=rng.randrange(1 << 30))
        yield state, events


def whole_log(map_name: str, players: int, seed: int) -> tuple[State, list[ev.Event]]:
    steps = list(game(map_name, players, seed))
    final = steps[-1][0]
    assert final.finished
    scored = score_ended(final)  # the workers' step after game_ended
    return evolve(final, scored), [event for _, events in steps for event in events] + [scored]


# X-RNG-1: every random outcome is a fact of the log.


@pytest.mark.parametrize("map_name", MAPS)
@pytest.mark.parametrize("seed", [1, 2])
def test_x_rng_1_replaying_the_log_needs_no_random_generator(
    map_name: str, seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    final, log = whole_log(map_name, 3, seed)

    def no_chance(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("replay used a random number generator")

    for name in ("random", "shuffle", "randrange", "randint", "choice", "choices", "sample", "getrandbits"):
        monkeypatch.setattr(random.Random, name, no_chance)
    assert replay(log) == final
    assert replay(event_from_json(event_to_json(e)) for e in log) == final  # the log survives JSON


@pytest.mark.parametrize("map_name", MAPS)
def test_x_rng_1_the_first_player_and_every_shuffle_are_written_in_the_log(map_name: str) -> None:
    _, log = whole_log(map_name, 2, seed=3)
    started_event = log[0]
    assert isinstance(started_event, ev.GameStarted) and 0 <= started_event.first_seat < 2
    shuffles = of_type(log, ev.DeckShuffled)
    assert shuffles[0].reason == "setup" and len(shuffles) > 1  # reshuffles happen in a whole game
    assert all(s.cards is not None and len(s.cards) == s.size for s in shuffles)
    tickets = of_type(log, ev.TicketsShuffled)[0]
    assert tickets.tickets is not None and tickets.long_tickets is not None


def test_x_rng_1_the_same_log_gives_the_same_game_whatever_the_generator() -> None:
    state = arrange(started("europe", 2), hands={0: {"red": 2}}, deck=["white"], discards={"red": 2, "blue": 3})
    one, events_one = play(state, 0, claim("bucuresti--sofia", red=2), seed=1)
    two, events_two = play(state, 0, claim("bucuresti--sofia", red=2), seed=2)
    assert of_type(events_one, ev.DeckShuffled)[0].reason == "tunnel"
    shuffled = [of_type(e, ev.DeckShuffled)[0].cards for e in (events_one, events_two)]
    assert shuffled[0] is not None and shuffled[1] is not None
    for events, after in ((events_one, one), (events_two, two)):
        again = state
        for event in events:
            again = evolve(again, event)
        assert again == after


# X-SEC-1: a player sees only what they may.

HIDDEN_WHEN_OTHERS: dict[type[Any], tuple[str, ...]] = {
    ev.CardsDealt: ("cards",),
    ev.TicketsDealt: ("tickets",),
    ev.TicketsKept: ("kept", "returned"),
}


def scramble(state: State, viewer: int | None, rng: random.Random) -> State:
    """The same public position with everything `viewer` may not see changed."""
    s = state.copy()
    ticket_ids = sorted(s.board.tickets)
    for seat, player in enumerate(s.players):
        if seat == viewer:
            continue
        player.hand = {}
        for _ in range(total(state.players[seat].hand)):
            kind = rng.choice(CARD_KINDS)
            player.hand[kind] = player.hand.get(kind, 0) + 1
        player.tickets = rng.sample(ticket_ids, len(player.tickets))
        if seat in s.offered:
            s.offered[seat] = tuple(rng.sample(ticket_ids, len(s.offered[seat])))
    rng.shuffle(s.draw_pile)
    rng.shuffle(s.ticket_pile)
    rng.shuffle(s.long_pile)
    return s


@pytest.mark.parametrize("map_name", MAPS)
def test_x_sec_1_a_view_never_depends_on_what_the_viewer_may_not_see(map_name: str) -> None:
    rng = random.Random(map_name)
    checked = 0
    for step_number, (state, _) in enumerate(game(map_name, 3, seed=5)):
        if state.finished or step_number % 3:
            continue
        for viewer in (0, 1, 2, None):
            assert view(scramble(state, viewer, rng), viewer) == view(state, viewer)
            checked += 1
    assert checked > 100


@pytest.mark.parametrize("map_name", MAPS)
def test_x_sec_1_a_player_sees_their_own_hand_and_tickets_and_everyones_counts(map_name: str) -> None:
    state = started(map_name, 3)
    state, _ = play(state, 0, mv.DrawCard("deck"))
    for viewer in range(3):
        shown = view(state, viewer)
        assert shown.hand == state.players[viewer].hand
        assert shown.tickets == tuple(state.players[viewer].tickets)
        assert [p.cards for p in shown.players] == [total(p.hand) for p in state.players]
        assert [p.tickets for p in shown.players] == [len(p.tickets) for p in state.players]
        assert shown.market == tuple(state.market)
        assert shown.deck_size == len(state.draw_pile) and shown.discard_size == total(state.discards)
        assert shown.final is None
    spectator = view(state, None)
    assert spectator.your_seat is None and spectator.hand == {} and spectator.tickets == ()


@pytest.mark.parametrize("map_name", MAPS)
def test_x_sec_1_the_log_hides_hands_tickets_and_pile_orders_from_others(map_name: str) -> None:
    _, log = whole_log(map_name, 3, seed=6)
    public_kinds = (ev.RouteClaimed, ev.TunnelRevealed, ev.MarketRevealed, ev.MarketDiscarded, ev.StationBuilt)
    for event in log:
        for viewer in (0, 1, 2, None):
            shown = redact(event, viewer)
            owner = getattr(event, "seat", None)
            if isinstance(event, ev.DeckShuffled | ev.TicketsShuffled):
                assert shown == dataclasses.replace(event, **{  # type: ignore[arg-type]
                    f.name: None for f in dataclasses.fields(event) if f.name in ("cards", "tickets", "long_tickets")
                })  # nobody sees the order of a pile
            elif type(event) in HIDDEN_WHEN_OTHERS and owner != viewer:
                assert all(getattr(shown, name) is None for name in HIDDEN_WHEN_OTHERS[type(event)])
            elif isinstance(event, ev.CardDrawn) and event.source == "deck" and owner != viewer:
                assert shown == dataclasses.replace(event, card=None)
            else:
                assert shown == event  # own secrets, and what a public action revealed
            if isinstance(event, public_kinds):
                assert shown == event
            assert redact(event, viewer, finished=True) == event


@pytest.mark.parametrize("map_name", MAPS)
def test_x_sec_1_a_blind_draw_is_secret_but_a_face_up_draw_is_public(map_name: str) -> None:
    state = arrange(started(map_name, 2), deck=["red", "blue", "green"], market=["white"] * 5)
    state, blind = play(state, 0, mv.DrawCard("deck"))
    _, face_up = play(state, 0, mv.DrawCard("market", 0))
    drawn_blind = of_type(blind, ev.CardDrawn)[0]
    assert redact(drawn_blind, 0).card == "red" and redact(drawn_blind, 1).card is None
    drawn_face_up = of_type(face_up, ev.CardDrawn)[0]
    assert redact(drawn_face_up, 1).card == "white"


@pytest.mark.parametrize("map_name", MAPS)
def test_x_sec_1_after_the_game_ends_everything_is_public(map_name: str) -> None:
    final, _ = whole_log(map_name, 2, seed=8)
    for viewer in (0, 1, None):
        shown = view(final, viewer).final
        assert shown is not None
        assert shown.hands == tuple({k: p.hand[k] for k in CARD_KINDS if p.hand.get(k)} for p in final.players)
        assert shown.player_tickets == tuple(tuple(p.tickets) for p in final.players)
        assert [s.seat for s in shown.scores] == [0, 1]


# X-SEC-1 in the API's JSON of a view (games/engine/codec.py `view_json`): the keys docs/API.md names, in their order.

VIEW_KEYS = [
    "map", "phase", "current_seat", "your_seat", "first_seat", "deciding_seats", "players", "market", "deck_size",
    "discard_size", "tickets_left", "routes", "stations", "tunnel", "last_round", "turns_left", "hand", "tickets",
    "offered_tickets",
]
FINAL_KEYS = ["hands", "player_tickets", "end_reason", "scores", "winner_seats"]  # only once the game is over
PLAYER_KEYS = ["seat", "cards", "tickets", "trains", "stations", "stations_left", "score", "choosing_tickets"]


@pytest.mark.parametrize("map_name", MAPS)
def test_x_sec_1_a_seats_view_in_json_holds_its_own_hand_tickets_and_offer_and_everyones_counts(map_name: str) -> None:
    state, _ = opening(map_name, 3, seed=4)  # every seat still chooses its setup tickets
    for seat in range(3):
        shown = view_json(view(state, seat))
        assert list(shown) == VIEW_KEYS
        assert shown["your_seat"] == seat
        assert shown["hand"] == {k: state.players[seat].hand[k] for k in CARD_KINDS if state.players[seat].hand.get(k)}
        assert shown["tickets"] == state.players[seat].tickets
        assert shown["offered_tickets"] == list(state.offered[seat])
        assert [list(p) for p in shown["players"]] == [PLAYER_KEYS] * 3
        assert [p["cards"] for p in shown["players"]] == [total(p.hand) for p in state.players]
        assert [p["choosing_tickets"] for p in shown["players"]] == [True] * 3
        assert shown["deciding_seats"] == [0, 1, 2] and shown["market"] == state.market and shown["tunnel"] is None


@pytest.mark.parametrize("map_name", MAPS)
def test_x_sec_1_a_spectators_view_in_json_has_the_same_keys_and_no_hand_tickets_or_offer(map_name: str) -> None:
    state, _ = opening(map_name, 3, seed=4)
    for spectator in (None, 3, -1):  # a viewer who holds no seat sees what a spectator sees
        shown = view_json(view(state, spectator))
        assert list(shown) == VIEW_KEYS
        assert shown["your_seat"] is None
        assert shown["hand"] == {} and shown["tickets"] == [] and shown["offered_tickets"] == []
        assert shown["players"] == view_json(view(state, 0))["players"]


@pytest.mark.parametrize("map_name", MAPS)
def test_x_sec_1_a_finished_games_view_in_json_adds_every_hand_and_ticket_and_the_scores(map_name: str) -> None:
    final, _ = whole_log(map_name, 2, seed=8)
    for viewer in (0, 1, None):
        shown = view_json(view(final, viewer))
        assert list(shown) == VIEW_KEYS + FINAL_KEYS
        assert shown["hands"] == [{k: p.hand[k] for k in CARD_KINDS if p.hand.get(k)} for p in final.players]
        assert shown["player_tickets"] == [p.tickets for p in final.players]
        assert shown["end_reason"] == final.end_reason
        assert shown["scores"] == [dataclasses.asdict(score) for score in final.scores]
        assert shown["winner_seats"] == list(final.winner_seats)
        assert json.loads(json.dumps(shown))["scores"][0]["seat"] == 0  # plain JSON all through


def test_x_sec_1_a_tunnels_reveal_is_in_every_viewers_json_until_the_turn_ends() -> None:
    state = next(s for s, _ in game("europe", 3, seed=5) if s.tunnel is not None)
    assert state.tunnel is not None
    for viewer in (0, 1, 2, None):
        tunnel = view_json(view(state, viewer))["tunnel"]
        assert list(tunnel) == ["seat", "route", "cards", "revealed", "extra"]
        assert tunnel["seat"] == state.current and tunnel["route"] == state.tunnel.route
        assert tunnel["cards"] == dict(state.tunnel.played) and tunnel["revealed"] == list(state.tunnel.revealed)


def test_x_sec_1_a_view_is_frozen_and_shares_nothing_with_the_state_or_its_json() -> None:
    state, _ = opening("usa", 2, seed=3)
    shown = view(state, 0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        shown.hand = {}  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        shown.players[1].cards = 0  # type: ignore[misc]
    assert isinstance(shown.players, tuple) and isinstance(shown.tickets, tuple) and isinstance(shown.market, tuple)
    hand, routes = dict(shown.hand), dict(shown.routes)
    state.players[0].hand["red"] = 99  # the game goes on: the view a bot kept stays as it was
    state.route_owner["anything"] = 1
    as_json = view_json(shown)
    as_json["hand"]["red"] = 98
    as_json["routes"]["else"] = 0
    assert shown.hand == hand and shown.routes == routes
