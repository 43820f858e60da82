"""`decide`: check a move against the rules and return the events it causes, or raise `IllegalMove`.

The checks run on the given state, which is never changed; the effects are worked out on a `Table` (a scratch
copy that applies each event as it is emitted). `step` returns that scratch state too, for callers that want
the new state without replaying the events (the simulator, bots searching ahead, the server's cache).
"""

from __future__ import annotations

from functools import lru_cache
from typing import assert_never

from . import events as ev
from . import moves as mv
from .cards import CARD_KINDS, LOCOMOTIVE, holds
from .draws import Draws
from .errors import IllegalMove, NotYourTurn, quoted
from .moves import cards_of, payment
from .payment import (
    check_route_payment,
    check_station_payment,
    check_tunnel_payment,
    tunnel_extra,
)
from .rules import can_act, can_draw_card, can_draw_second_card, check_route_open, setup_rule
from .scoring import final_score
from .state import FINISHED, SECOND_CARD, SETUP_TICKETS, TURN, Phase, State
from .table import Table

TICKETS_PER_DRAW = 3
KEEP_AT_LEAST = 1


def decide(state: State, seat: int, move: mv.Move, rng: Draws) -> tuple[ev.Event, ...]:
    """The events `move` by `seat` causes; raises `IllegalMove` (nothing happens) when the rules forbid it."""
    return step(state, seat, move, rng)[1]


def step(
    state: State, seat: int, move: mv.Move, rng: Draws, *, in_place: bool = False
) -> tuple[State, tuple[ev.Event, ...]]:
    """Like `decide`, and also the state those events lead to. With `in_place` (for owners of `state`:
    simulations, bot rollouts) that state is `state` itself, changed, rather than a copy; an illegal move
    still raises before anything changes."""
    _check_phase(state, seat, move)
    table = Table(state if in_place else state.copy(), rng)
    _check_and_play(table, seat, move)
    return table.state, tuple(table.events)


def _check_and_play(t: Table, seat: int, move: mv.Move) -> None:
    """Raise `IllegalMove` when the rules forbid `move` in a phase that allows its kind (the table is still the
    state as given: nothing is emitted before the check), else emit its events on the table."""
    s = t.state
    match move:
        case mv.DrawCard():
            _check_draw_card(s, seat, move)
            _draw_card(t, seat, move)
        case mv.ClaimRoute():
            _check_claim(s, seat, move)
            _claim(t, seat, move)
        case mv.PayTunnel():
            _check_pay_tunnel(s, seat, move)
            _pay_tunnel(t, seat, move)
        case mv.DeclineTunnel():
            _decline_tunnel(t, seat)  # a tunnel may always be declined (E-TUN-3)
        case mv.DrawTickets():
            _check_draw_tickets(s)
            _draw_tickets(t, seat)
        case mv.KeepTickets():
            _check_keep_tickets(s, seat, move)
            _keep_tickets(t, seat, move)
        case mv.BuildStation():
            _check_station(s, seat, move)
            _build_station(t, seat, move)
        case _:
            assert_never(move)


# Whose decision it is, and which kinds of move the phase allows.


def _check_phase(state: State, seat: int, move: mv.Move) -> None:
    phase = state.phase
    if seat != state.current or phase in (SETUP_TICKETS, FINISHED):  # (else: the seat in turn decides)
        _check_seat(state, seat)
    if not isinstance(move, _PHASE_MOVES[phase]):
        raise IllegalMove(*_phase_rule(state))
    if isinstance(move, mv.BuildStation) and not state.board.has_stations:
        raise IllegalMove("U-TRN-1", "there are no stations on this map")


def _check_seat(state: State, seat: int) -> None:
    if not 0 <= seat < len(state.players):
        raise NotYourTurn(f"there is no seat {seat}")
    phase = state.phase
    if phase != FINISHED and (state.current != seat or phase == SETUP_TICKETS) and seat not in state.deciders():
        raise NotYourTurn()  # (the seat in turn is the only decider outside the setup: no tuple to build)


def _phase_moves(phase: Phase) -> tuple[type[mv.Move], ...]:
    """The kinds of move a phase allows."""
    match phase:
        case Phase.TURN:
            return (mv.DrawCard, mv.ClaimRoute, mv.DrawTickets, mv.BuildStation)
        case Phase.SECOND_CARD:
            return (mv.DrawCard,)
        case Phase.SETUP_TICKETS | Phase.KEEP_TICKETS:
            return (mv.KeepTickets,)
        case Phase.TUNNEL_PAYMENT:
            return (mv.PayTunnel, mv.DeclineTunnel)
        case Phase.FINISHED:
            return ()
        case _:
            assert_never(phase)


_PHASE_MOVES = {phase: _phase_moves(phase) for phase in Phase}  # (a dict: a lookup, not a match, on every move)


def _phase_rule(s: State) -> tuple[str, str]:
    """The rule a move the phase does not allow breaks, and how."""
    match s.phase:
        case Phase.TURN:
            return "C-TRN-1", "on a turn a player draws cards, claims a route, draws tickets or builds a station"
        case Phase.SECOND_CARD:
            return "C-DRW-1", "the turn's second train card must be drawn first"
        case Phase.SETUP_TICKETS:
            return setup_rule(s)
        case Phase.KEEP_TICKETS:
            return "C-TKT-1", "the drawn destination tickets must be kept or returned first"
        case Phase.TUNNEL_PAYMENT:
            return "E-TUN-3", "the tunnel must be paid for or declined first"
        case Phase.FINISHED:
            return "C-END-1", "the game is over"
        case _:
            assert_never(s.phase)


# Ending a turn: refill the market, count down the last round, pass for seats that cannot act.


def _end_turn(t: Table, seat: int) -> None:
    s = t.state
    if None in s.market or s.market.count(LOCOMOTIVE) >= 3:  # (`fill_market`'s own test: most turns end with none)
        t.fill_market()
    n = len(s.players)
    reveal_waits = s.tunnel is not None  # TurnEnded puts a tunnel's revealed cards on the discard pile (E-TUN-4)
    t.emit(_turn_ended(seat, (seat + 1) % n))
    if s.turns_left is None and s.players[seat].trains <= 2:
        t.emit(ev.LastRoundStarted(seat=seat, turns_left=n))
    if reveal_waits and t.market_would_change():
        # Now discarded, those cards may fill an empty market slot or allow a wipe (C-DRW-1, C-DRW-4).
        t.fill_market()
    passes = 0
    while True:
        if s.turns_left == 0:
            return _finish(t, "last_round")
        current = s.current
        assert current is not None
        if s.draw_pile or can_act(s, current):  # (a card to draw: the commonest way to act, C-END-2)
            return None
        passes += 1
        t.emit(ev.TurnPassed(seat=current))
        t.emit(ev.TurnEnded(seat=current, next_seat=(current + 1) % n))
        if passes >= n:
            return _finish(t, "no_moves")


# The commonest events, each made once: an event is an immutable value, and these few recur every turn (typed:
# a seat given as True stays True in its event, as it would if made anew).
_card_drawn = lru_cache(maxsize=None, typed=True)(ev.CardDrawn)
_turn_ended = lru_cache(maxsize=None, typed=True)(ev.TurnEnded)
# Claims recur across the games a process plays (simulations, the bots' sampled games): the same seat, route and
# payment. Made once while remembered (a frozen dataclass costs about three times a plain one to make).
_route_claimed = lru_cache(maxsize=4096, typed=True)(ev.RouteClaimed)
_tunnel_declined = lru_cache(maxsize=1024, typed=True)(ev.TunnelDeclined)


def _canonical(paid: mv.Payment) -> mv.Payment:
    """`payment(cards_of(paid))`: `paid` itself when it is that already (its kinds in card order, once each,
    none counted 0), as the bots' payments are."""
    last = -1
    for kind, n in paid:
        rank = _KIND_RANK.get(kind, -1)
        if rank <= last or not n:
            return payment(cards_of(paid))
        last = rank
    return paid


_KIND_RANK = {kind: i for i, kind in enumerate(CARD_KINDS)}


def _finish(t: Table, reason: str) -> None:
    t.emit(ev.GameEnded(reason=reason))


def score_ended(state: State) -> ev.GameScored:
    """The `game_scored` event of an ended game: its final score, from the board as it stands (pure)."""
    if not state.finished:
        raise ValueError("only an ended game is scored")
    s = state
    result = final_score(
        s.board, s.player_count, s.route_owner, s.station_owner, [p.tickets for p in s.players]
    )
    return ev.GameScored(scores=result.scores, winner_seats=result.winner_seats)


# Drawing train cards (C-DRW-1..5).


def _check_draw_card(s: State, seat: int, move: mv.DrawCard) -> None:
    if move.source not in ("deck", "market"):
        raise IllegalMove("C-DRW-1", "a card is drawn from the deck or from the market")
    if move.source == "deck":
        if not s.draw_pile and not s.discards:
            raise IllegalMove("C-DRW-5", "the draw pile and the discard pile are both empty")
        return
    index = move.index
    if type(index) is not int or not 0 <= index < len(s.market) or s.market[index] is None:
        raise IllegalMove("C-DRW-1", "there is no face-up card in that market slot")
    if s.phase == SECOND_CARD and s.market[index] == "locomotive":
        raise IllegalMove("C-DRW-2", "a face-up locomotive cannot be taken as the second card")


def _draw_card(t: Table, seat: int, move: mv.DrawCard) -> None:
    s = t.state
    first = s.phase == TURN
    if move.source == "deck":
        if not s.draw_pile:
            t.ensure_pile(1)
        t.emit(_card_drawn(seat, "deck", None, s.draw_pile[-1]))
    else:
        assert move.index is not None
        t.emit(_card_drawn(seat, "market", move.index, s.market[move.index]))
        t.fill_market()
    if first and s.phase == SECOND_CARD and (s.draw_pile or can_draw_second_card(s)):
        return
    _end_turn(t, seat)


# Claiming routes, tunnels included (C-CLM-1..3, C-DBL-1..2, E-FER-1, E-TUN-1..5).


def _check_claim(s: State, seat: int, move: mv.ClaimRoute) -> None:
    route = check_route_open(s, seat, move.route)
    paid = cards_of(move.cards)
    check_route_payment(paid, route)
    if not holds(s.players[seat].hand, paid):
        raise IllegalMove("C-CLM-1", "the hand does not hold those cards")


def _claim(t: Table, seat: int, move: mv.ClaimRoute) -> None:
    s = t.state
    route = s.board.routes[move.route]
    paid = _canonical(move.cards)
    if route.tunnel:
        t.ensure_pile(3, reason="tunnel")
        revealed = tuple(t.top_cards(3))
        if revealed:
            extra = tunnel_extra(cards_of(paid), revealed)
            t.emit(ev.TunnelRevealed(seat, route.id, paid, revealed, extra))
            if extra:
                return  # the seat now pays or declines
    t.emit(_route_claimed(seat, route.id, paid, s.board.route_points[route.length]))
    _end_turn(t, seat)


def _check_pay_tunnel(s: State, seat: int, move: mv.PayTunnel) -> None:
    assert s.tunnel is not None
    played = cards_of(s.tunnel.played)
    paid = cards_of(move.cards)
    check_tunnel_payment(paid, played, s.tunnel.extra)
    whole = {kind: played.get(kind, 0) + paid.get(kind, 0) for kind in {*played, *paid}}
    if not holds(s.players[seat].hand, whole):
        raise IllegalMove("E-TUN-2", "the hand does not hold those extra cards")


def _pay_tunnel(t: Table, seat: int, move: mv.PayTunnel) -> None:
    s = t.state
    tunnel = s.tunnel
    assert tunnel is not None
    whole = cards_of(tunnel.played)
    for kind, n in move.cards:
        whole[kind] = whole.get(kind, 0) + n
    route = s.board.routes[tunnel.route]
    t.emit(_route_claimed(seat, route.id, payment(whole), s.board.route_points[route.length]))
    _end_turn(t, seat)


def _decline_tunnel(t: Table, seat: int) -> None:
    assert t.state.tunnel is not None
    t.emit(_tunnel_declined(seat, t.state.tunnel.route))
    _end_turn(t, seat)


# Destination tickets (C-TKT-1..2, E-SET-2, U-SET-1).


def _check_draw_tickets(s: State) -> None:
    if not s.ticket_pile:
        raise IllegalMove("C-TKT-1", "the destination ticket pile is empty")


def _draw_tickets(t: Table, seat: int) -> None:
    top = tuple(t.state.ticket_pile[: -TICKETS_PER_DRAW - 1 : -1])
    t.emit(ev.TicketsDealt(seat=seat, count=len(top), tickets=top))


def _check_keep_tickets(s: State, seat: int, move: mv.KeepTickets) -> None:
    offered = s.offered[seat]
    rule = setup_rule(s)[0] if s.phase == SETUP_TICKETS else "C-TKT-1"
    least = 2 if s.phase == SETUP_TICKETS else KEEP_AT_LEAST
    if len(set(move.tickets)) != len(move.tickets):
        raise IllegalMove(rule, "a ticket is named twice")
    if not set(move.tickets) <= set(offered):
        raise IllegalMove(rule, "only the tickets just dealt can be kept")
    if len(move.tickets) < min(least, len(offered)):
        raise IllegalMove(rule, f"at least {least} of the dealt tickets must be kept")


def _keep_tickets(t: Table, seat: int, move: mv.KeepTickets) -> None:
    s = t.state
    setup = s.phase == SETUP_TICKETS
    offered = s.offered[seat]
    kept = tuple(x for x in offered if x in move.tickets)
    returned = tuple(x for x in offered if x not in move.tickets)
    t.emit(ev.TicketsKept(seat, len(kept), len(returned), kept, returned))
    if not setup:
        _end_turn(t, seat)


# Stations (E-STA-1..2).


def _check_station(s: State, seat: int, move: mv.BuildStation) -> None:
    if move.city not in s.board.cities:
        raise IllegalMove("E-STA-1", f"there is no city {quoted(move.city)}")
    if move.city in s.station_owner:
        raise IllegalMove("E-STA-1", "that city already has a station")
    player = s.players[seat]
    if player.stations >= s.board.stations_per_player:
        raise IllegalMove("E-STA-1", f"a player builds at most {s.board.stations_per_player} stations")
    paid = cards_of(move.cards)
    check_station_payment(paid, player.stations + 1)
    if not holds(player.hand, paid):
        raise IllegalMove("E-STA-2", "the hand does not hold those cards")


def _build_station(t: Table, seat: int, move: mv.BuildStation) -> None:
    t.emit(ev.StationBuilt(seat=seat, city=move.city, cards=payment(cards_of(move.cards))))
    _end_turn(t, seat)


__all__ = ["can_draw_card", "decide", "step"]
