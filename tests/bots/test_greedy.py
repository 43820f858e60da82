"""The greedy bot: it plays only legal moves, sees only its own view, plays sensibly in small positions, and beats
the random bot.

Positions are built with the engine's test builders (a seeded opening, then hands, market and tickets set by
hand). On the USA map calgary--salt-lake-city is planned as calgary--helena (4 gray) and helena--salt-lake-city
(3 purple); on Europe kyiv--petrograd is planned through wilno, far from the tunnel munchen--venezia (2 blue),
and zurich--brindisi starts with the tunnel venezia--zurich (2 green).
"""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest

from bots.policies import Decision, policy_for
from bots.policies.greedy import choose_move
from bots.tournament import play_game
from games.engine import PlayerView, legal_moves, step, view
from games.engine import moves as mv
from games.engine.cards import CARD_KINDS, total
from games.engine.setup import begin
from games.engine.state import KEEP_TICKETS, TUNNEL_PAYMENT, State
from tests.engine.builders import arrange, claim, opening, pay, play, started

CALGARY_SLC = "calgary--salt-lake-city"
MARKET = ["red", "purple", "blue", "locomotive", "white"]


def decide(state: State, seat: int = 0) -> mv.Move:
    return choose_move(view(state, seat), legal_moves(state, seat))


def greedy_game(map_name: str, players: int, seed: int) -> list[tuple[State, int]]:
    """A whole game of greedy seats (and a random last seat, for variety): every position where a seat decided,
    checking on the way that the greedy move was one of the legal moves."""
    rng = random.Random(seed)
    state, _ = begin(map_name, players, rng)
    seen: list[tuple[State, int]] = []
    while not state.finished:
        seat = state.deciders()[0]
        moves = legal_moves(state, seat)
        level = "random" if seat == players - 1 and seed % 2 else "greedy"
        choice = policy_for(level)(Decision(view(state, seat), moves, rng))
        move = choice.move
        assert move in moves and choice.reason, f"{level} chose {move}, not a legal move in phase {state.phase}"
        if level == "greedy":
            seen.append((state.copy(), seat))
        state, _ = step(state, seat, move, rng, in_place=True)
    return seen


@pytest.mark.parametrize("map_name", ["europe", "usa"])
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_greedy_only_ever_chooses_a_legal_move(map_name: str, players: int) -> None:
    for seed in range(2):
        assert greedy_game(map_name, players, seed)


# It sees only its view.


def plain_data(value: Any) -> bool:
    """Frozen dataclasses of tuples, str-keyed dicts and scalars: nothing that leads back to a State."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        frozen = type(value).__dataclass_params__.frozen  # type: ignore[attr-defined]
        return frozen and all(plain_data(getattr(value, f.name)) for f in dataclasses.fields(value))
    if isinstance(value, dict):
        return all(isinstance(k, str | int) and plain_data(v) for k, v in value.items())
    if isinstance(value, tuple):
        return all(plain_data(v) for v in value)
    return value is None or isinstance(value, str | int | float | bool)


def scrambled(state: State, seat: int, rng: random.Random) -> State:
    """The same game as `seat` sees it, with everything else hidden from it changed: the other seats' hands,
    tickets and ticket offers, and the order of the draw pile and the ticket piles."""
    other = state.copy()
    tickets = list(other.board.tickets)
    for i, player in enumerate(other.players):
        if i != seat:
            cards = [rng.choice(CARD_KINDS) for _ in range(total(player.hand))]  # the count is public
            player.hand = {kind: cards.count(kind) for kind in set(cards)}
            player.tickets = rng.sample(tickets, len(player.tickets))
            if i in other.offered:
                other.offered[i] = tuple(rng.sample(tickets, len(other.offered[i])))
    for pile in (other.draw_pile, other.ticket_pile, other.long_pile):
        rng.shuffle(pile)
    return other


def test_greedy_is_given_a_frozen_view_of_plain_data_only_so_it_cannot_reach_the_state() -> None:
    for state, seat in greedy_game("europe", 3, seed=1)[::10]:
        seen = view(state, seat)
        assert isinstance(seen, PlayerView) and plain_data(seen)
        assert seen.routes is not state.route_owner and seen.hand is not state.players[seat].hand


@pytest.mark.parametrize("map_name", ["europe", "usa"])
def test_greedy_decides_the_same_whatever_the_other_seats_hide(map_name: str) -> None:
    rng = random.Random(7)
    for state, seat in greedy_game(map_name, 3, seed=2)[::3]:
        other = scrambled(state, seat, rng)
        assert view(other, seat) == view(state, seat)
        assert decide(other, seat) == decide(state, seat)


def test_greedy_needs_no_more_than_its_own_seat_s_part_of_the_view() -> None:
    state = arrange(started("usa", 2), tickets={0: [CALGARY_SLC]}, hands={0: {"purple": 3}})
    seen = view(state, 0)
    unknown = {"cards": -1, "tickets": -1, "stations": -1, "score": -1, "choosing_tickets": True}
    seen = dataclasses.replace(seen, players=tuple(dataclasses.replace(p, **unknown) for p in seen.players))
    assert choose_move(seen, legal_moves(state, 0)) == claim("helena--salt-lake-city", purple=3)


# Destination tickets.


def test_greedy_keeps_the_tickets_it_can_finish_and_returns_one_that_is_cut_off() -> None:
    state, _ = opening("usa", 2)
    # The other seat holds both ways into vancouver (its double closes in a 2-player game, C-DBL-2).
    state = arrange(state, routes={"calgary--vancouver": 1, "seattle--vancouver--1": 1})
    state.offered[0] = ("vancouver--montreal", "denver--el-paso", CALGARY_SLC)
    assert decide(state) == mv.KeepTickets(("denver--el-paso", CALGARY_SLC))


def test_greedy_keeps_the_ticket_that_fits_its_trains_when_few_are_left() -> None:
    state = arrange(started("usa", 2), tickets={0: []}, trains={0: 10},
                    ticket_pile=["seattle--new-york", "los-angeles--miami", "denver--el-paso"])
    state, _ = play(state, 0, mv.DrawTickets())
    assert state.phase == KEEP_TICKETS
    assert decide(state) == mv.KeepTickets(("denver--el-paso",))


def test_greedy_draws_tickets_once_its_tickets_are_complete() -> None:
    state = arrange(started("usa", 2), tickets={0: ["denver--el-paso"]}, hands={0: {}},
                    routes={"denver--santa-fe": 0, "el-paso--santa-fe": 0})
    assert decide(state) == mv.DrawTickets()


# Train cards and claims.


def test_greedy_takes_a_face_up_card_of_a_colour_its_plan_needs() -> None:
    state = arrange(started("usa", 2), tickets={0: [CALGARY_SLC]}, hands={0: {}}, market=MARKET)
    assert decide(state) == mv.DrawCard("market", MARKET.index("purple"))


def test_greedy_draws_blind_when_no_face_up_card_helps() -> None:
    market = ["red", "red", "blue", "white", "white"]
    state = arrange(started("usa", 2), tickets={0: [CALGARY_SLC]}, hands={0: {"green": 3}}, market=market,
                    routes={"calgary--helena": 0})
    assert decide(state) == mv.DrawCard("deck")


def test_greedy_claims_a_planned_route_as_soon_as_it_can_pay() -> None:
    state = arrange(started("usa", 2), tickets={0: [CALGARY_SLC]}, hands={0: {"purple": 3}}, market=MARKET)
    assert decide(state) == claim("helena--salt-lake-city", purple=3)


def test_greedy_says_which_ticket_a_claim_is_for_and_which_colour_a_card_is_for() -> None:
    state = arrange(started("usa", 2), tickets={0: [CALGARY_SLC]}, hands={0: {"purple": 3}}, market=MARKET)
    choice = policy_for("greedy")(Decision(view(state, 0), legal_moves(state, 0), random.Random(0)))
    assert choice.reason == "claims Helena\u2013Salt Lake City: ticket Calgary\u2013Salt Lake City needs it"
    state = arrange(started("usa", 2), tickets={0: [CALGARY_SLC]}, hands={0: {}}, market=MARKET)
    choice = policy_for("greedy")(Decision(view(state, 0), legal_moves(state, 0), random.Random(0)))
    assert choice.reason.startswith("draws purple for a purple route")


def test_greedy_claims_the_longest_planned_route_and_pays_without_locomotives_or_needed_colours() -> None:
    hand = {"purple": 3, "red": 4, "locomotive": 2}
    state = arrange(started("usa", 2), tickets={0: [CALGARY_SLC]}, hands={0: hand})
    assert decide(state) == claim("calgary--helena", red=4)


# Tunnels (E-TUN-2..3).


def tunnel_revealed(ticket: str, route: str, hand: dict[str, int], paid: mv.Payment, revealed: list[str]) -> State:
    state = arrange(started("europe", 2), tickets={0: [ticket]}, hands={0: hand}, deck=[*revealed, *["purple"] * 6])
    state, _ = play(state, 0, mv.ClaimRoute(route, paid))
    assert state.phase == TUNNEL_PAYMENT
    return state


def test_greedy_declines_a_tunnel_it_cannot_pay_for() -> None:
    state = tunnel_revealed("zurich--brindisi", "venezia--zurich", {"green": 2, "red": 3}, pay(green=2),
                            ["green", "locomotive", "red"])
    assert decide(state) == mv.DeclineTunnel()


def test_greedy_declines_the_extra_cards_of_a_tunnel_its_plan_does_not_need() -> None:
    state = tunnel_revealed("kyiv--petrograd", "munchen--venezia", {"blue": 4}, pay(blue=2), ["blue", "red", "red"])
    assert mv.PayTunnel(pay(blue=1)) in legal_moves(state, 0)
    assert decide(state) == mv.DeclineTunnel()


def test_greedy_pays_the_extra_cards_of_a_tunnel_its_plan_needs() -> None:
    state = tunnel_revealed("zurich--brindisi", "venezia--zurich", {"green": 3, "locomotive": 1}, pay(green=2),
                            ["green", "red", "red"])
    assert decide(state) == mv.PayTunnel(pay(green=1))


# Strength: a check that can fail.


@pytest.mark.parametrize("map_name", ["europe", "usa"])
def test_greedy_beats_random_in_nine_two_player_games_out_of_ten(map_name: str) -> None:
    games = [play_game(map_name, ("greedy", "random"), seed=11, number=i) for i in range(20)]
    won = sum(share for g in games for seat, share in enumerate(g.shares) if g.seats[seat] == "greedy")
    assert won >= 0.9 * len(games)
