"""`evolve`: apply one fact to a state; `replay`: fold a whole log.

Nothing here validates or draws a random number: events are facts that `decide` already checked, and every
random outcome is written in them (docs/RULES.md X-RNG-1). Applying a log that `decide` produced never fails.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import assert_never

from . import events as ev
from .board import load_board
from .cards import add, remove, total
from .moves import cards_of
from .rules import SMALL_GAME
from .state import (
    FINISHED,
    KEEP_TICKETS,
    SECOND_CARD,
    SETUP_TICKETS,
    TUNNEL_PAYMENT,
    TURN,
    PendingTunnel,
    PlayerState,
    State,
)


def initial_state(event: ev.GameStarted) -> State:
    board = load_board(event.map)
    players = [PlayerState(trains=board.trains_per_player) for _ in range(event.players)]
    return State(board=board, players=players, first_seat=event.first_seat)


def evolve(state: State, event: ev.Event) -> State:
    """The state after `event`; `state` itself is left unchanged."""
    if isinstance(event, ev.GameStarted):
        return initial_state(event)
    new = state.copy()
    evolve_in_place(new, event)
    return new


def replay(events: Iterable[ev.Event]) -> State:
    """Fold a log, which must start with `GameStarted`, into the state it leads to."""
    iterator = iter(events)
    first = next(iterator, None)
    if not isinstance(first, ev.GameStarted):
        raise ValueError("a game's log starts with game_started")
    state = initial_state(first)
    for event in iterator:
        evolve_in_place(state, event)
    return state


def evolve_in_place(s: State, e: ev.Event) -> None:
    """Apply `e` to `s`, changing it (for owners of a state: replay, decide's scratch copy). Every event type
    has its case (mypy checks that none is missing); the commonest come first."""
    match e:
        case ev.TurnEnded():
            _turn_ended(s, e)
        case ev.CardDrawn():
            _card_drawn(s, e)
        case ev.MarketRevealed():
            _market_revealed(s, e)
        case ev.RouteClaimed():
            _route_claimed(s, e)
        case ev.TunnelRevealed():
            _tunnel_revealed(s, e)
        case ev.TicketsDealt():
            _tickets_dealt(s, e)
        case ev.TicketsKept():
            _tickets_kept(s, e)
        case ev.TunnelDeclined():
            pass  # the played cards never left the hand (E-TUN-3); the revealed ones wait for TurnEnded (E-TUN-4)
        case ev.StationBuilt():
            _station_built(s, e)
        case ev.MarketDiscarded():
            _market_discarded(s, e)
        case ev.DeckShuffled():
            _deck_shuffled(s, e)
        case ev.CardsDealt():
            _cards_dealt(s, e)
        case ev.TicketsShuffled():
            _tickets_shuffled(s, e)
        case ev.LastRoundStarted():
            s.turns_left = e.turns_left
        case ev.TurnPassed() | ev.MarketWipeSkipped():
            pass  # a record of what did not happen
        case ev.GameEnded() | ev.GameEndedV1():
            _game_ended(s, e)
        case ev.GameScored():
            _game_scored(s, e)
        case ev.GameAborted():
            _game_aborted(s)
        case ev.TurnTimedOut() | ev.SeatResigned() | ev.SeatReplaced() | ev.TimeGranted():
            pass  # who plays a seat and its clock are the server's (games/clocks): the seat's state is as it was
        case ev.SeedsCommitted() | ev.SeedsRevealed() | ev.HintUsed():
            pass  # records of the game, not parts of it
        case ev.GameStarted():
            raise ValueError("game_started can only begin a log")
        case _:
            assert_never(e)


def _deck_shuffled(s: State, e: ev.DeckShuffled) -> None:
    assert e.cards is not None, "a redacted event cannot be replayed"
    if e.reason != "setup":
        _forget_a_reveal_shuffled_in(s, e)
        s.discards.clear()
    # The new cards go under what is left of the pile; the pile's top is the end of the list.
    s.draw_pile[:0] = reversed(e.cards)
    s.shuffles += 1


def _forget_a_reveal_shuffled_in(s: State, e: ev.DeckShuffled) -> None:
    """Read logs written before E-TUN-4 was kept (November 2026): they put a tunnel's revealed cards on the
    discard pile with route_claimed or tunnel_declined, so a reshuffle later in the turn took them into the new
    deck, and its size counts them beside the discards. A log written since shuffles the discard pile alone."""
    if s.tunnel is not None and e.size == total(s.discards) + len(s.tunnel.revealed):
        s.tunnel = None


def _tickets_shuffled(s: State, e: ev.TicketsShuffled) -> None:
    assert e.tickets is not None and e.long_tickets is not None, "a redacted event cannot be replayed"
    s.ticket_pile = list(reversed(e.tickets))
    s.long_pile = list(reversed(e.long_tickets))
    s.shuffles += 2  # the regular pile's and the long one's (even when empty)


def _cards_dealt(s: State, e: ev.CardsDealt) -> None:
    hand = s.players[e.seat].hand
    pile = s.draw_pile
    for _ in range(e.count):
        card = pile.pop()
        hand[card] = hand.get(card, 0) + 1


def _market_revealed(s: State, e: ev.MarketRevealed) -> None:
    pile = s.draw_pile
    for slot in e.slots:
        s.market[slot] = pile.pop()


def _market_discarded(s: State, e: ev.MarketDiscarded) -> None:
    discards = s.discards
    for card in e.cards:
        discards[card] = discards.get(card, 0) + 1
    s.market = [None] * len(s.market)


def _tickets_dealt(s: State, e: ev.TicketsDealt) -> None:
    long_dealt = [s.long_pile.pop() for _ in range(e.long_count)]
    regular = [s.ticket_pile.pop() for _ in range(e.count - e.long_count)]
    s.offered[e.seat] = (*long_dealt, *regular)
    if s.phase == TURN:
        s.phase = KEEP_TICKETS


def _tickets_kept(s: State, e: ev.TicketsKept) -> None:
    assert e.kept is not None and e.returned is not None, "a redacted event cannot be replayed"
    s.players[e.seat].tickets.extend(e.kept)
    del s.offered[e.seat]
    board = s.board
    if s.phase == SETUP_TICKETS and board.has_stations:
        returned: tuple[str, ...] = ()  # Europe: returned setup tickets leave the game (E-SET-2)
    else:
        returned = tuple(t for t in e.returned if not board.tickets[t].long)
    # Returned tickets go to the bottom of the pile (C-TKT-1, U-SET-1): the start of the list.
    s.ticket_pile[:0] = reversed(returned)
    if s.phase == SETUP_TICKETS:
        if not s.offered:
            s.phase = TURN
            s.current = s.first_seat
    else:
        s.phase = TURN


def _card_drawn(s: State, e: ev.CardDrawn) -> None:
    if e.source == "deck":
        card = s.draw_pile.pop()
    else:
        assert e.index is not None
        card = s.market[e.index]  # type: ignore[assignment]
        s.market[e.index] = None
    hand = s.players[e.seat].hand
    hand[card] = hand.get(card, 0) + 1
    second = s.phase == TURN and not (e.source == "market" and card == "locomotive")  # C-DRW-2
    s.phase = SECOND_CARD if second else TURN


def _route_claimed(s: State, e: ev.RouteClaimed) -> None:
    player = s.players[e.seat]
    paid = cards_of(e.cards)
    remove(player.hand, paid)
    add(s.discards, paid)
    route = s.board.routes[e.route]
    player.trains -= route.length
    player.score += e.points
    s.route_owner[e.route] = e.seat
    twin = s.board.twin_masks[route.index]
    player.barred |= twin
    s.closed |= 1 << route.index | (twin if len(s.players) <= SMALL_GAME else 0)


def _tunnel_revealed(s: State, e: ev.TunnelRevealed) -> None:
    del s.draw_pile[len(s.draw_pile) - len(e.revealed) :]
    s.tunnel = PendingTunnel(e.route, e.cards, e.revealed, e.extra)
    s.phase = TUNNEL_PAYMENT


def _discard_tunnel_reveal(s: State) -> None:
    """E-TUN-4: the revealed cards go to the discard pile at the end of the turn, not with the claim or the
    decline, so that no reshuffle during that turn takes them into a new deck."""
    if s.tunnel is not None:
        discards = s.discards
        for card in s.tunnel.revealed:
            discards[card] = discards.get(card, 0) + 1
        s.tunnel = None


def _station_built(s: State, e: ev.StationBuilt) -> None:
    player = s.players[e.seat]
    paid = cards_of(e.cards)
    remove(player.hand, paid)
    add(s.discards, paid)
    player.stations += 1
    s.station_owner[e.city] = e.seat


def _turn_ended(s: State, e: ev.TurnEnded) -> None:
    if s.tunnel is not None:
        _discard_tunnel_reveal(s)
    if s.turns_left is not None:
        s.turns_left -= 1
    s.current = e.next_seat
    s.phase = TURN


def _game_ended(s: State, e: ev.GameEnded | ev.GameEndedV1) -> None:
    s.phase = FINISHED
    s.current = None
    s.end_reason = e.reason
    if isinstance(e, ev.GameEndedV1):  # the old shape carried the score
        _game_scored(s, e)


def _game_aborted(s: State) -> None:
    s.phase = FINISHED
    s.current = None
    s.offered.clear()
    s.end_reason = ev.ABORTED


def _game_scored(s: State, e: ev.GameScored | ev.GameEndedV1) -> None:
    s.scores = e.scores
    s.winner_seats = e.winner_seats
