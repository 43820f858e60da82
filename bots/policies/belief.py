"""What one seat knows of the hidden parts of a game, and whole games drawn consistently with it.

`Belief` folds the seat's history (its events as `redact` shows them to it): the discard pile card by card
(every discarded card was seen: payments, market wipes, tunnel reveals), for each other seat the cards it took
face up and has not spent since and how many of its cards nobody has seen, and each ticket deal's counts (dealt,
long, kept). `determinize(view, belief, rng)` then draws one whole `State` the seat cannot tell from the real
one: its own hand and tickets as they are, the unseen cards (110 less everything seen) dealt at random to the
other hands' unseen part and to the draw pile, the other seats' tickets drawn from the tickets the seat never
saw (their opening ones, given a model of how a seat keeps tickets, as that model keeps them: `draw_tickets`),
the ticket pile from the rest. It never reads anything but the view and the history, so the search it
feeds cannot peek.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from games.engine import events as ev
from games.engine.board import Board, load_board
from games.engine.cards import CARD_KINDS, CARDS_PER_COLOUR, COLOURS, LOCOMOTIVE, LOCOMOTIVES, Cards
from games.engine.rules import SMALL_GAME
from games.engine.state import PendingTunnel, PlayerState, State
from games.engine.view import PlayerView

from .decision import own_seat

TicketDeal = tuple[int, int, int]  # (tickets dealt, long ones among them, tickets kept)


@dataclass
class Belief:
    seat: int
    discards: Cards = field(default_factory=dict)
    known: list[Cards] = field(default_factory=list)  # per seat: cards seen going in (face up), not spent since
    deals: list[list[TicketDeal]] = field(default_factory=list)  # per seat: its ticket choices made so far
    dealing: dict[int, tuple[int, int]] = field(default_factory=dict)  # per seat: a deal not answered yet
    seen_tickets: set[str] = field(default_factory=set)  # every ticket ever dealt to this seat
    revealed: tuple[str, ...] = ()  # a tunnel's reveal, until the turn ends (E-TUN-4)
    complete: bool = False  # whether the history started at the game's start


def track(seat: int, history: Iterable[ev.Event]) -> Belief:
    belief = Belief(seat)
    for event in history:
        _fold(belief, event)
    return belief


def _fold(b: Belief, e: ev.Event) -> None:
    match e:
        case ev.GameStarted(players=n):
            b.known = [{} for _ in range(n)]
            b.deals = [[] for _ in range(n)]
            b.complete = True
        case ev.CardDrawn(seat=seat, source="market", card=card) if card is not None and b.known:
            b.known[seat][card] = b.known[seat].get(card, 0) + 1
        case ev.RouteClaimed(seat=seat, cards=paid) | ev.StationBuilt(seat=seat, cards=paid):
            _spend(b, seat, paid)
        case ev.MarketDiscarded(cards=cards):
            _add(b.discards, cards)
        case ev.TunnelRevealed(revealed=revealed):
            b.revealed = revealed
        case ev.TurnEnded():
            _add(b.discards, b.revealed)
            b.revealed = ()
        case ev.DeckShuffled(reason=reason) if reason != "setup":
            b.discards.clear()
        case ev.TicketsDealt(seat=seat, count=count, long_count=long_count, tickets=tickets):
            b.dealing[seat] = (count, long_count)
            if seat == b.seat and tickets:
                b.seen_tickets.update(tickets)
        case ev.TicketsKept(seat=seat, kept_count=kept) if b.deals:
            count, long_count = b.dealing.pop(seat, (kept, 0))
            b.deals[seat].append((count, long_count, kept))


def _add(pile: Cards, cards: Iterable[str]) -> None:
    for card in cards:
        pile[card] = pile.get(card, 0) + 1


def _spend(b: Belief, seat: int, paid: Sequence[tuple[str, int]]) -> None:
    for kind, n in paid:
        b.discards[kind] = b.discards.get(kind, 0) + n
        if b.known:
            known = b.known[seat]
            known[kind] = known.get(kind, 0) - min(n, known.get(kind, 0))


# Drawing a whole game.


def determinize(
    view: PlayerView, belief: Belief, rng: random.Random, tickets: TicketDraw | None = None
) -> State:
    """One whole state consistent with everything the seat has seen (see the module docstring). `tickets`: a
    draw of the hidden tickets to use (a search reuses a few, so that ticket plans are cached), else a new one."""
    board = load_board(view.map)
    me = own_seat(view)
    n = len(view.players)
    players = [_player(view, seat) for seat in range(n)]
    players[me].hand = dict(view.hand)
    players[me].tickets = list(view.tickets)
    unseen = _unseen_cards(view, belief)
    rng.shuffle(unseen)
    discards = _discards(view, belief, unseen)
    for seat in range(n):
        if seat != me:
            players[seat].hand = _hand(view, belief, seat, unseen)
    deck = [unseen.pop() if unseen else rng.choice(CARD_KINDS) for _ in range(view.deck_size)]
    dealt = tickets if tickets is not None else draw_tickets(view, belief, rng)
    for seat, held in enumerate(dealt.held):
        if seat != me:
            players[seat].tickets = list(held)
    offered, pile = dict(dealt.offered), list(dealt.pile)
    state = State(
        board=board, players=players, first_seat=view.first_seat, phase=view.phase,
        current=view.current_seat, draw_pile=deck, discards=discards, market=list(view.market),
        ticket_pile=pile, route_owner=dict(view.routes), station_owner=dict(view.stations),
        offered=offered, tunnel=_tunnel(view), turns_left=view.turns_left,
    )
    _close_routes(state)
    return state


def _player(view: PlayerView, seat: int) -> PlayerState:
    public = view.players[seat]
    return PlayerState(trains=public.trains, stations=public.stations, score=public.score)


def _unseen_cards(view: PlayerView, belief: Belief) -> list[str]:
    """The 110 cards less the seat's hand, the market, a tunnel's reveal, the discards and the other seats'
    known cards: what the draw pile and the other hands' unseen part are made of."""
    counts = {colour: CARDS_PER_COLOUR for colour in COLOURS}
    counts[LOCOMOTIVE] = LOCOMOTIVES
    seen: list[Mapping[str, int]] = [view.hand, belief.discards if _discards_known(view, belief) else {}]
    seen.extend(known for seat, known in enumerate(belief.known) if seat != view.your_seat)
    for cards in seen:
        for kind, k in cards.items():
            counts[kind] = counts.get(kind, 0) - k
    shown = [c for c in view.market if c is not None]
    if view.tunnel is not None:
        shown.extend(view.tunnel.revealed)
    for card in shown:
        counts[card] -= 1
    return [kind for kind in CARD_KINDS for _ in range(max(0, counts.get(kind, 0)))]


def _discards_known(view: PlayerView, belief: Belief) -> bool:
    return belief.complete and sum(belief.discards.values()) == view.discard_size


def _discards(view: PlayerView, belief: Belief, unseen: list[str]) -> Cards:
    if _discards_known(view, belief):
        return {kind: k for kind, k in belief.discards.items() if k}
    pile: Cards = {}  # no (whole) history: the discard pile is as unknown as the deck
    _add(pile, (unseen.pop() for _ in range(min(len(unseen), view.discard_size))))
    return pile


def _hand(view: PlayerView, belief: Belief, seat: int, unseen: list[str]) -> Cards:
    size = view.players[seat].cards
    known = belief.known[seat] if belief.known else {}
    hand = {kind: k for kind, k in known.items() if k > 0}
    while sum(hand.values()) > size:  # cannot happen with a whole history; keep the hand's public size
        kind = next(iter(hand))
        hand[kind] -= 1
        if not hand[kind]:
            del hand[kind]
    _add(hand, (unseen.pop() for _ in range(min(len(unseen), size - sum(hand.values())))))
    return hand


def _tunnel(view: PlayerView) -> PendingTunnel | None:
    tunnel = view.tunnel
    if tunnel is None:
        return None
    return PendingTunnel(tunnel.route, tunnel.cards, tunnel.revealed, tunnel.extra)


def _close_routes(state: State) -> None:
    """The masks `evolve` keeps: claimed routes closed (and their twins in small games), twins barred (C-DBL)."""
    board = state.board
    for route_id, seat in state.route_owner.items():
        route = board.routes[route_id]
        twin = board.twin_masks[route.index]
        state.players[seat].barred |= twin
        state.closed |= 1 << route.index | (twin if state.player_count <= SMALL_GAME else 0)


@dataclass(frozen=True)
class TicketDraw:
    """The hidden tickets of one sampled game: each seat's (the seat's own as they are), offers, the pile."""

    held: tuple[tuple[str, ...], ...]
    offered: tuple[tuple[int, tuple[str, ...]], ...]
    pile: tuple[str, ...]


Keeper = Callable[[str, int, tuple[str, ...]], tuple[str, ...]]  # (map, players, an opening deal) -> those kept
MODEL_DEALS = 6  # opening deals drawn for a seat, of which one that its model keeps as many of as it did is taken


def draw_tickets(view: PlayerView, belief: Belief, rng: random.Random, keeper: Keeper | None = None) -> TicketDraw:
    """The other seats' tickets (and offers) drawn from the tickets this seat never saw, and the ticket pile.
    `keeper`: a model of which tickets the other seats keep of their opening deal (the greedy bot's choice): their
    opening tickets are then drawn as that model keeps them, among deals it keeps as many of as the seat did."""
    board = load_board(view.map)
    me = own_seat(view)
    mine_now = set(view.tickets) | set(view.offered_tickets)
    mine = belief.seen_tickets | mine_now
    regular = [t for t in board.regular_tickets if t not in mine]
    long_ = [t for t in board.long_tickets if t not in mine]
    rng.shuffle(regular)
    rng.shuffle(long_)
    offered: dict[int, tuple[str, ...]] = {}
    if view.offered_tickets:
        offered[me] = view.offered_tickets
    held: list[tuple[str, ...]] = []
    for seat, public in enumerate(view.players):
        if seat == me:
            held.append(view.tickets)
            continue
        tickets: list[str] = []
        weight = _affinity(board, view, seat)
        for deal, (count, long_count, kept) in enumerate(belief.deals[seat] if belief.deals else []):
            modelled = None
            if deal == 0 and keeper is not None:
                modelled = _modelled(keeper, view, regular, long_, (count, long_count, kept), weight, rng)
            tickets.extend(modelled if modelled is not None else _kept(regular, long_, count, long_count, kept,
                                                                        weight, rng))
        missing = public.tickets - len(tickets)
        tickets.extend(regular.pop() for _ in range(min(missing, len(regular))))
        held.append(tuple(tickets))
        if public.choosing_tickets:
            count, long_count = belief.dealing.get(seat, (3, 0))
            offered[seat] = _deal(regular, long_, count, long_count)
    # Tickets this seat returned went to the bottom of the pile (C-TKT-1), under the unseen ones.
    returned = sorted(t for t in belief.seen_tickets - mine_now if not board.tickets[t].long)
    left = view.tickets_left
    return TicketDraw(tuple(held), tuple(offered.items()), tuple((returned + regular)[-left:] if left else ()))


AFFINITY = 4.0  # how much likelier a ticket is per end in the seat's network: people build towards their tickets


def _affinity(board: Board, view: PlayerView, seat: int) -> Callable[[str], float]:
    """A ticket's weight for `seat`: 1, plus AFFINITY per end that the seat's routes reach."""
    cities = {c for r, s in view.routes.items() if s == seat for c in (board.routes[r].a, board.routes[r].b)}

    def weight(ticket_id: str) -> float:
        ticket = board.tickets[ticket_id]
        return 1.0 + AFFINITY * ((ticket.a in cities) + (ticket.b in cities))

    return weight


def _kept(regular: list[str], long_: list[str], count: int, long_count: int, kept: int,
          weight: Callable[[str], float], rng: random.Random) -> list[str]:
    """The tickets a seat kept from one deal, drawn with weights (its routes so far say what it wants); the ones
    it returned leave the pools too. A long ticket is among those kept with the odds of kept/count."""
    longs = min(long_count, len(long_))
    keep_long = bool(longs) and rng.random() < kept / max(count, 1)
    chosen = [_take(long_, weight, rng)] if keep_long else []
    del long_[len(long_) - (longs - keep_long):]
    regular_kept = min(kept - len(chosen), len(regular))
    chosen.extend(_take(regular, weight, rng) for _ in range(regular_kept))
    returned = min(max(0, count - long_count - regular_kept), len(regular))
    del regular[len(regular) - returned:]
    return chosen


def _modelled(keeper: Keeper, view: PlayerView, regular: list[str], long_: list[str], deal: TicketDeal,
              weight: Callable[[str], float], rng: random.Random) -> list[str] | None:
    """The tickets a seat kept of its opening deal as `keeper` models it: of MODEL_DEALS deals drawn from the
    pools with the tickets' weights (the seat's routes so far say what it wants), one of those the model keeps
    as many of as the seat did; its tickets, kept and returned, leave the pools. None when the model keeps
    another number of every deal drawn."""
    count, long_count, kept = deal
    longs, rest = min(long_count, len(long_)), min(count - long_count, len(regular))
    long_weights, regular_weights = [weight(t) for t in long_], [weight(t) for t in regular]
    found: list[tuple[tuple[str, ...], tuple[str, ...]]] = []
    for _ in range(MODEL_DEALS):
        dealt = (*_sample(long_, long_weights, longs, rng), *_sample(regular, regular_weights, rest, rng))
        chosen = keeper(view.map, len(view.players), dealt)
        if len(chosen) == kept:
            found.append((dealt, chosen))
    if not found:
        return None
    dealt, chosen = rng.choice(found)
    for ticket in dealt:
        (long_ if ticket in long_ else regular).remove(ticket)
    return list(chosen)


def _sample(pool: list[str], weights: list[float], k: int, rng: random.Random) -> list[str]:
    """`k` distinct tickets of `pool`, each drawn with its weight among those left."""
    left, odds = list(pool), list(weights)
    chosen: list[str] = []
    for _ in range(k):
        index = rng.choices(range(len(left)), weights=odds)[0]
        chosen.append(left.pop(index))
        odds.pop(index)
    return chosen


def _take(pool: list[str], weight: Callable[[str], float], rng: random.Random) -> str:
    index = rng.choices(range(len(pool)), weights=[weight(t) for t in pool])[0]
    return pool.pop(index)


def _deal(regular: list[str], long_: list[str], count: int, long_count: int) -> tuple[str, ...]:
    longs = [long_.pop() for _ in range(min(long_count, len(long_)))]
    rest = [regular.pop() for _ in range(min(count - len(longs), len(regular)))]
    return (*longs, *rest)
