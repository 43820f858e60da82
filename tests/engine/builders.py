"""Positions for the rule tests: a real, seeded opening, then hands, piles and market set by hand.

A test reads like the rule book: given a position (`started(...)` then `arrange(...)`), when a seat makes a
move (`play`), then these events and this state, or this `IllegalMove` rule (`refused`). Piles are given top
card first, as a player would deal them; the engine keeps the top of a pile at the end of its list.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, MutableSequence, Sequence
from typing import Any, TypeVar

import pytest

from games.engine import IllegalMove, decide, step
from games.engine import events as ev
from games.engine import moves as mv
from games.engine.board import load_board
from games.engine.cards import CARD_KINDS, total
from games.engine.evolve import evolve_in_place
from games.engine.scoring import FinalScore, final_score
from games.engine.setup import begin
from games.engine.state import State

E = TypeVar("E")

LOCO = "locomotive"


def opening(map_name: str = "europe", players: int = 2, seed: int = 1) -> tuple[State, tuple[ev.Event, ...]]:
    """A freshly dealt game (every seat still choosing its setup tickets) and the events that opened it."""
    return begin(map_name, players, random.Random(seed))


def started(map_name: str = "europe", players: int = 2, seed: int = 1, current: int = 0) -> State:
    """A game past setup (every seat kept all its tickets) with `current` to play a fresh turn."""
    state, _ = opening(map_name, players, seed)
    for seat in sorted(state.offered):
        state, _ = step(state, seat, mv.KeepTickets(state.offered[seat]), random.Random(0))
    state.current = current
    return state


def arrange(
    state: State,
    *,
    current: int | None = None,
    hands: Mapping[int, Mapping[str, int]] | None = None,
    market: Sequence[str | None] | None = None,
    deck: Sequence[str] | None = None,
    discards: Mapping[str, int] | None = None,
    tickets: Mapping[int, Sequence[str]] | None = None,
    ticket_pile: Sequence[str] | None = None,
    trains: Mapping[int, int] | None = None,
    routes: Mapping[str, int] | None = None,
    stations: Mapping[str, int] | None = None,
) -> State:
    """A copy of `state` with the given parts replaced (piles top card first).

    `routes` (route id -> seat) and `stations` (city -> seat) are taken through `evolve`, as if claimed and
    built earlier for no cards, so that whatever the state derives from them stays consistent; they cost the
    usual trains, and give the usual points, before any `trains` given here.
    """
    s = state.copy()
    for route, seat in (routes or {}).items():
        length = s.board.routes[route].length
        evolve_in_place(s, ev.RouteClaimed(seat, route, (), s.board.route_points[length]))
    for city, seat in (stations or {}).items():
        evolve_in_place(s, ev.StationBuilt(seat, city, ()))
    if current is not None:
        s.current = current
    for seat, hand in (hands or {}).items():
        s.players[seat].hand = {kind: n for kind, n in hand.items() if n}
    if market is not None:
        assert len(market) == 5
        s.market = list(market)
    if deck is not None:
        s.draw_pile = list(reversed(deck))
    if discards is not None:
        s.discards = {kind: n for kind, n in discards.items() if n}
    for seat, kept in (tickets or {}).items():
        s.players[seat].tickets = list(kept)
    if ticket_pile is not None:
        s.ticket_pile = list(reversed(ticket_pile))
    for seat, n in (trains or {}).items():
        s.players[seat].trains = n
    return s


def play(state: State, seat: int, move: mv.Move, seed: int = 0) -> tuple[State, tuple[ev.Event, ...]]:
    """The state after `move` and the events it caused (the given state is left unchanged)."""
    return step(state, seat, move, random.Random(seed))


def refused(state: State, seat: int, move: mv.Move) -> IllegalMove:
    """The `IllegalMove` that `decide` raises for `move`, after checking that the refusal changed nothing."""
    before = state.copy()
    with pytest.raises(IllegalMove) as raised:
        decide(state, seat, move, random.Random(0))
    assert state == before
    return raised.value


def pay(**cards: int) -> mv.Payment:
    """A canonical payment, e.g. `pay(red=2, locomotive=1)`."""
    return mv.payment(cards)


def claim(route: str, **cards: int) -> mv.ClaimRoute:
    return mv.ClaimRoute(route, pay(**cards))


def station(city: str, **cards: int) -> mv.BuildStation:
    return mv.BuildStation(city, pay(**cards))


def of_type(events: Iterable[object], cls: type[E]) -> list[E]:
    return [e for e in events if isinstance(e, cls)]


def event_types(events: Iterable[ev.Event]) -> list[str]:
    return [e.type for e in events]


def card_count(state: State) -> dict[str, int]:
    """Every train card in the game, wherever it lies (hands, piles, market, a pending tunnel's reveal)."""
    counts = dict.fromkeys(CARD_KINDS, 0)
    places: list[Iterable[str]] = [state.draw_pile, [c for c in state.market if c is not None]]
    if state.tunnel is not None:
        places.append(state.tunnel.revealed)
    for place in places:
        for card in place:
            counts[card] += 1
    for cards in [state.discards, *(p.hand for p in state.players)]:
        for kind, n in cards.items():
            counts[kind] += n
    return counts


def non_locomotives_left(state: State) -> int:
    """Train cards other than locomotives in the draw pile, the discard pile and the market (C-DRW-4)."""
    in_piles = [card for card in state.draw_pile if card != LOCO]
    in_market = [card for card in state.market if card is not None and card != LOCO]
    return len(in_piles) + len(in_market) + sum(n for kind, n in state.discards.items() if kind != LOCO)


def assert_c_drw_4_kept(state: State, events: Iterable[ev.Event]) -> None:
    """Fold a move's `events` from `state` and check the three-locomotive rule (C-DRW-4) all the way: a market is
    wiped only while it shows 3 locomotives, a skip is recorded only when fewer than 3 other cards are left to
    make a better market, and the move never ends on 3 face-up locomotives that a wipe could replace."""
    s = state.copy()
    for i, event in enumerate(events):
        where = f"event {i} ({event.type}), market {s.market}, {non_locomotives_left(s)} other cards left"
        if isinstance(event, ev.MarketDiscarded):
            assert s.market.count(LOCO) >= 3, f"a wipe without three face-up locomotives at {where}"
        if isinstance(event, ev.MarketWipeSkipped):
            assert s.market.count(LOCO) >= 3, f"a skip recorded after a legal market came up at {where}"
            assert non_locomotives_left(s) < 3, f"a skip recorded while a legal market can still come up at {where}"
        evolve_in_place(s, event)
    assert s.market.count(LOCO) < 3 or non_locomotives_left(s) < 3, f"the move ends on the market {s.market}"


class ScriptedShuffles(random.Random):
    """Chance as a test orders it: the first `locomotives_first` shuffles put the locomotives on top, the later
    ones put them at the bottom (a shuffle's order is a recorded outcome, X-RNG-1, so any order is a possible one)."""

    def __init__(self, locomotives_first: int) -> None:
        super().__init__(0)
        self.locomotives_first = locomotives_first

    def shuffle(self, x: MutableSequence[Any]) -> None:
        on_top = self.locomotives_first > 0
        self.locomotives_first -= 1
        x[:] = sorted(x, key=lambda card: (card != LOCO) if on_top else (card == LOCO))


def hand_size(state: State, seat: int) -> int:
    return total(state.players[seat].hand)


def scored(
    map_name: str,
    routes: Mapping[str, int],
    *,
    players: int = 2,
    stations: Mapping[str, int] | None = None,
    tickets: Mapping[int, Sequence[str]] | None = None,
) -> FinalScore:
    """Final scoring of a board where `routes` (id -> seat) and `stations` (city -> seat) are taken."""
    board = load_board(map_name)
    for route in routes:
        assert route in board.routes, route
    held = [list((tickets or {}).get(seat, ())) for seat in range(players)]
    return final_score(board, players, dict(routes), dict(stations or {}), held)


def route_points(map_name: str, *route_ids: str) -> int:
    """Route points by the scoring table of the map's board data (C-CLM-2)."""
    board = load_board(map_name)
    return sum(board.route_points[board.routes[r].length] for r in route_ids)
