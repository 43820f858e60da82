"""Hypothesis games: random seeds, 2 to 5 players, both maps, uniformly random legal moves to the end.

Each property plays its own random games and checks one thing the rule book or docs/DESIGN.md promises: the 110
train cards are always all somewhere (C-CMP-1), trains never go below zero (C-CMP-2, C-CLM-1), a replayed log
is the state play reached, `decide` accepts every listed legal move and refuses everything else with a rule
ID of docs/RULES.md, no view or redacted event shows a seat another seat's secrets (X-SEC-1), every game ends
(C-END-1, C-END-2), every event survives the JSON codec, the final scores are `final_score` of the board, and
the market is wiped, or a skip recorded, exactly when the three-locomotive rule says (C-DRW-4).

The default run is a few games per property; `TTR_PROPERTY_EXAMPLES=2000 pytest tests/engine/test_properties.py`
plays thousands. The helpers here (playing a game, the invariants) are shared with test_many_games.py.
"""

from __future__ import annotations

import dataclasses
import json
import os
import random
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from games.engine import events as ev
from games.engine import moves as mv
from games.engine.cards import CARD_KINDS, CARDS_PER_COLOUR, COLOURS, LOCOMOTIVE, LOCOMOTIVES
from games.engine.codec import event_from_dict, event_from_json, event_to_dict, event_to_json, view_json
from games.engine.decide import score_ended, step
from games.engine.errors import IllegalMove, NotYourTurn
from games.engine.evolve import evolve, evolve_in_place, initial_state, replay
from games.engine.legal import legal_move_count, legal_moves, random_legal_move
from games.engine.moves import cards_of
from games.engine.scoring import final_score
from games.engine.setup import begin
from games.engine.state import FINISHED, SETUP_TICKETS, TUNNEL_PAYMENT, State
from games.engine.view import redact, view
from tests.engine.builders import assert_c_drw_4_kept

ROOT = Path(__file__).resolve().parents[2]
MAPS = ("europe", "usa")
MAX_DECISIONS = 5000  # a random game takes a few hundred decisions; more means a game that never ends
EXAMPLES = max(1, int(os.environ.get("TTR_PROPERTY_EXAMPLES", "25")))
FULL_DECK = {**{colour: CARDS_PER_COLOUR for colour in COLOURS}, LOCOMOTIVE: LOCOMOTIVES}
# A seed does not shrink to anything simpler, so hypothesis reports the failing seed instead of trying to.
PROPERTY = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
)


# The rule IDs of docs/RULES.md.

_RULE_ID = re.compile(r"\*\*([A-Z]-[A-Z]{3,4}-\d+)\*\*")


def rule_ids() -> frozenset[str]:
    return frozenset(_RULE_ID.findall((ROOT / "docs" / "RULES.md").read_text(encoding="utf-8")))


RULE_IDS = rule_ids()


# Playing a random game.


class GameSpec(NamedTuple):
    map: str
    players: int
    seed: int


game_specs = st.builds(GameSpec, st.sampled_from(MAPS), st.integers(2, 5), st.integers(0, 2**64 - 1))


@dataclass(frozen=True)
class Decision:
    number: int
    seat: int
    move: mv.Move
    before: State  # `step` never changes its input, so this is the state the move was decided on
    events: tuple[ev.Event, ...]
    after: State
    log: list[ev.Event]  # the game's events up to and including these (read it during the callback only)


@dataclass
class PlayedGame:
    spec: GameSpec
    events: list[ev.Event]
    decisions: int
    state: State


OnDecision = Callable[[Decision, random.Random], None]


def play(spec: GameSpec, on_decision: OnDecision | None = None) -> PlayedGame:
    """A whole game of uniformly random legal moves; in the setup phase a random deciding seat goes first."""
    rng = random.Random(f"properties:{spec.map}:{spec.players}:{spec.seed}")
    checks = random.Random(f"checks:{spec.seed}")  # the checks' own choices leave the game's course alone
    state, opening = begin(spec.map, spec.players, rng)
    events = list(opening)
    decisions = 0
    while not state.finished:
        assert decisions < MAX_DECISIONS, f"{spec}: the game has not ended after {MAX_DECISIONS} decisions"
        seat = rng.choice(state.deciders())
        move = random_legal_move(state, seat, rng)
        assert move is not None, f"{spec}: seat {seat} must decide in phase {state.phase} but has no legal move"
        after, new = step(state, seat, move, rng)
        events.extend(new)
        if on_decision is not None:
            on_decision(Decision(decisions, seat, move, state, new, after, events), checks)
        state = after
        decisions += 1
    scored = score_ended(state)  # what the server's workers append after game_ended
    events.append(scored)
    return PlayedGame(spec, events, decisions, evolve(state, scored))


def states_after_each_event(events: list[ev.Event]) -> Iterator[tuple[int, ev.Event, State]]:
    """Replay a log one event at a time (the same state object, changed in place)."""
    state = initial_state(events[0])  # type: ignore[arg-type]
    yield 0, events[0], state
    for i, event in enumerate(events[1:], start=1):
        evolve_in_place(state, event)
        yield i, event, state


# Invariants.


def card_locations(s: State) -> dict[str, int]:
    """Every train card the state holds: draw pile, discards, market, hands and a pending tunnel reveal."""
    found: dict[str, int] = {}

    def put(card: str, n: int = 1) -> None:
        found[card] = found.get(card, 0) + n

    for card in s.draw_pile:
        put(card)
    for kind, n in s.discards.items():
        put(kind, n)
    for card in s.market:
        if card is not None:
            put(card)
    for player in s.players:
        for kind, n in player.hand.items():
            put(kind, n)
    if s.tunnel is not None:
        for card in s.tunnel.revealed:
            put(card)
    return found


def assert_cards_conserved(s: State, where: str) -> None:
    found = card_locations(s)
    assert found == FULL_DECK, f"{where}: train cards are {found}, not the 110 of C-CMP-1"
    negative = [(i, kind, n) for i, p in enumerate(s.players) for kind, n in p.hand.items() if n <= 0]
    negative += [(-1, kind, n) for kind, n in s.discards.items() if n <= 0]
    assert not negative, f"{where}: card counts that are not positive (seat, kind, n): {negative}"


def assert_trains_accounted(s: State, where: str) -> None:
    board = s.board
    for seat, player in enumerate(s.players):
        assert player.trains >= 0, f"{where}: seat {seat} has {player.trains} trains"
        laid = sum(board.routes[r].length for r, owner in s.route_owner.items() if owner == seat)
        assert player.trains == board.trains_per_player - laid, f"{where}: seat {seat}'s trains do not add up"
        built = sum(1 for owner in s.station_owner.values() if owner == seat)
        assert player.stations == built <= board.stations_per_player, f"{where}: seat {seat}'s stations"


def state_fields(s: State) -> dict[str, Any]:
    """Everything a state holds but the (shared, immutable) board, as values that compare by content."""
    copied = s.copy()
    fields = {f.name: getattr(copied, f.name) for f in dataclasses.fields(copied) if f.name != "board"}
    fields["board"] = s.board.name
    return fields


def differing_fields(a: State, b: State) -> list[str]:
    fa, fb = state_fields(a), state_fields(b)
    return [name for name in fa if fa[name] != fb[name]]


def assert_scores_recomputed(s: State, where: str) -> None:
    assert s.phase == FINISHED
    board = s.board
    again = final_score(board, s.player_count, s.route_owner, s.station_owner, [p.tickets for p in s.players])
    assert s.scores == again.scores, f"{where}: the recorded scores are not final_score of the final board"
    assert s.winner_seats == again.winner_seats
    totals = [score.total for score in s.scores]
    for seat, (score, player) in enumerate(zip(s.scores, s.players, strict=True)):
        assert score.seat == seat
        # The public running score (C-CLM-2) and the final route points agree.
        assert score.route_points == player.score, f"{where}: seat {seat}'s route points"
        assert [t.ticket for t in score.tickets] == player.tickets, f"{where}: seat {seat} is scored on other tickets"
        assert score.ticket_points == sum(t.points for t in score.tickets)
        assert all(t.points == (1 if t.completed else -1) * board.tickets[t.ticket].points for t in score.tickets)
        assert score.stations_built == player.stations
        assert score.station_points == 4 * (board.stations_per_player - player.stations)  # E-STA-4
        assert score.total == score.route_points + score.ticket_points + score.station_points + score.longest_bonus
        # Places follow the totals; tie-breaks (E-WIN-1, U-WIN-1) only order seats with equal totals.
        higher = sum(1 for other in s.scores if other.total > score.total)
        at_least = sum(1 for other in s.scores if other.total >= score.total)
        assert higher + 1 <= score.place <= at_least, f"{where}: seat {seat}'s place does not follow the totals"
    longest = max(score.longest_path for score in s.scores)
    for score in s.scores:
        bonus = board.longest_path_bonus if longest > 0 and score.longest_path == longest else 0
        assert score.longest_bonus == bonus, f"{where}: the longest-path bonus (C-LNG-1) of seat {score.seat}"
    assert set(s.winner_seats) == {score.seat for score in s.scores if score.place == 1}
    assert max(totals) == max(s.scores[w].total for w in s.winner_seats)


def assert_event_round_trips(event: ev.Event, where: str) -> None:
    as_dict = event_to_dict(event)
    assert as_dict["type"] == event.type and as_dict["v"] == event.v
    assert event_from_dict(as_dict) == event, f"{where}: {event!r} does not survive event_to_dict/event_from_dict"
    assert event_from_dict(json.loads(json.dumps(as_dict))) == event, f"{where}: {event!r} via JSON text"
    assert event_from_json(event_to_json(event)) == event, f"{where}: {event!r} via event_to_json"


# The properties.


@PROPERTY
@given(spec=game_specs)
def test_c_cmp_1_the_110_train_cards_are_always_all_somewhere(spec: GameSpec) -> None:
    def after_decision(d: Decision, _: random.Random) -> None:
        assert_cards_conserved(d.after, f"{spec} after decision {d.number} ({d.move})")

    game = play(spec, after_decision)
    for i, event, state in states_after_each_event(game.events):
        if i > 0:  # game_started opens an empty table; the deck arrives with the next event
            assert_cards_conserved(state, f"{spec} after event {i} ({event.type})")


@PROPERTY
@given(spec=game_specs)
def test_c_cmp_2_trains_never_go_below_zero_and_match_the_routes_laid(spec: GameSpec) -> None:
    def after_decision(d: Decision, _: random.Random) -> None:
        assert_trains_accounted(d.after, f"{spec} after decision {d.number} ({d.move})")

    game = play(spec, after_decision)
    for i, event, state in states_after_each_event(game.events):
        assert_trains_accounted(state, f"{spec} after event {i} ({event.type})")


@PROPERTY
@given(spec=game_specs)
def test_c_drw_4_the_market_is_wiped_and_a_skip_recorded_only_as_the_rule_says(spec: GameSpec) -> None:
    def after_decision(d: Decision, _: random.Random) -> None:
        try:
            assert_c_drw_4_kept(d.before, d.events)
        except AssertionError as failure:
            raise AssertionError(f"{spec} decision {d.number} ({d.move}): {failure}") from failure

    play(spec, after_decision)


@PROPERTY
@given(spec=game_specs)
def test_replaying_the_log_gives_the_state_play_reached(spec: GameSpec) -> None:
    state, opening = begin(spec.map, spec.players, random.Random(f"properties:{spec.map}:{spec.players}:{spec.seed}"))
    assert not differing_fields(replay(opening), state), f"{spec}: the opening does not replay to begin()'s state"

    def after_decision(d: Decision, rng: random.Random) -> None:
        if rng.random() < 0.03 or d.before.phase == TUNNEL_PAYMENT:
            changed = differing_fields(replay(d.log), d.after)
            assert not changed, f"{spec}: replay after decision {d.number} differs in {changed}"

    game = play(spec, after_decision)
    changed = differing_fields(replay(game.events), game.state)
    assert not changed, f"{spec}: the replayed log differs in {changed}"
    decoded = [event_from_json(event_to_json(e)) for e in game.events]
    changed = differing_fields(replay(decoded), game.state)
    assert not changed, f"{spec}: the log read back from JSON replays to a state that differs in {changed}"


@PROPERTY
@given(spec=game_specs)
def test_decide_never_changes_the_state_it_is_given(spec: GameSpec) -> None:
    rng = random.Random(f"untouched:{spec.seed}")
    state, _ = begin(spec.map, spec.players, rng)
    for _ in range(MAX_DECISIONS):
        if state.finished:
            break
        before = state.copy()
        assert not differing_fields(before, state)  # copy() is faithful
        seat = rng.choice(state.deciders())
        move = random_legal_move(state, seat, rng)
        assert move is not None
        after, _ = step(state, seat, move, rng)
        assert after is not state and all(a is not b for a, b in zip(after.players, state.players, strict=True))
        changed = differing_fields(state, before)
        assert not changed, f"{spec}: decide changed {changed} of its input when playing {move}"
        state = after
    assert state.finished


def sample_decision_point(d: Decision, rng: random.Random, rate: float) -> bool:
    """Every kind of decision gets checked: the rare ones (tunnels, ticket choices) more often."""
    if d.before.phase in (TUNNEL_PAYMENT, SETUP_TICKETS) or isinstance(d.move, mv.KeepTickets):
        return rng.random() < 0.5
    return rng.random() < rate


@PROPERTY
@given(spec=game_specs)
def test_decide_accepts_every_move_legal_moves_lists(spec: GameSpec) -> None:
    checked = 0

    def after_decision(d: Decision, rng: random.Random) -> None:
        nonlocal checked
        s = d.before
        moves = legal_moves(s, d.seat)
        assert d.move in moves, f"{spec}: random_legal_move chose {d.move}, which legal_moves does not list"
        assert legal_move_count(s, d.seat) == len(moves)
        assert len(set(moves)) == len(moves), f"{spec}: legal_moves lists a move twice"
        for seat in range(s.player_count):
            if seat not in s.deciders():
                assert legal_moves(s, seat) == [], f"{spec}: seat {seat} has moves out of turn"
        if not sample_decision_point(d, rng, 0.02):
            return
        for move in moves:
            try:
                after, events = step(s, d.seat, move, random.Random(checked))
            except IllegalMove as refusal:
                raise AssertionError(f"{spec}: decide refused the listed legal move {move}: {refusal}") from None
            assert events, f"{spec}: {move} caused no event"
            replayed = s.copy()
            for event in events:
                evolve_in_place(replayed, event)
            assert not differing_fields(replayed, after), f"{spec}: {move}'s events do not lead to step's state"
            checked += 1

    play(spec, after_decision)
    assert checked > 0


# Moves that are not legal: mutations of the legal ones and of a few templates.


def _with(cards: mv.Payment, **changes: int) -> mv.Payment:
    """A canonical payment with some counts changed (zero drops the kind; negatives are kept)."""
    counted = cards_of(cards)
    for kind, delta in changes.items():
        counted[kind] = counted.get(kind, 0) + delta
    return tuple((kind, counted[kind]) for kind in CARD_KINDS if counted.get(kind, 0))


def _other_colour(cards: mv.Payment, rng: random.Random) -> mv.Payment:
    colours = [kind for kind, _ in cards if kind != LOCOMOTIVE]
    if not colours:
        return _with(cards, locomotive=-1, **{rng.choice(COLOURS): 1})
    old = colours[0]
    new = rng.choice([c for c in COLOURS if c != old])
    n = cards_of(cards)[old]
    return _with(cards, **{old: -n, new: n})


def payment_mutations(cards: mv.Payment, rng: random.Random) -> list[mv.Payment]:
    """Wrong counts, wrong colours, a second colour, negative counts, a card kind that does not exist."""
    some = rng.choice(COLOURS)
    first = cards[0][0] if cards else some
    return [
        (),
        _with(cards, **{first: 1}),
        _with(cards, **{first: -1}),
        _with(cards, locomotive=1),
        _with(cards, **{some: 1}),
        _other_colour(cards, rng),
        _with(cards, **{first: -1, rng.choice([c for c in COLOURS if c != first] or [some]): 1}),
        (*cards, ("gray", 1)),
        ((first, -1), *[(k, n) for k, n in cards if k != first]),
        ((LOCOMOTIVE, 99),),
    ]


def move_mutations(s: State, seat: int, moves: list[mv.Move], rng: random.Random) -> Iterator[mv.Move]:
    board = s.board
    routes = list(board.routes)
    cities = list(board.cities)
    tickets = list(board.tickets)
    hand = mv.payment(s.players[seat].hand)
    # Templates of every kind, whatever the phase.
    yield mv.DrawTickets()
    yield mv.DeclineTunnel()
    yield mv.PayTunnel(((LOCOMOTIVE, 1),))
    yield mv.KeepTickets((rng.choice(tickets),))
    yield mv.DrawCard("deck")
    for index in (-1, 0, 4, 5, None):
        yield mv.DrawCard("market", index)
    yield mv.ClaimRoute("atlantis--eldorado", hand)
    yield mv.ClaimRoute(rng.choice(routes), hand)
    yield mv.ClaimRoute(rng.choice(list(s.route_owner) or routes), hand)
    yield mv.BuildStation("eldorado", ((COLOURS[0], 1),))
    yield mv.BuildStation(rng.choice(list(s.station_owner) or cities), hand[:1])
    yield mv.BuildStation(rng.choice(cities), hand)
    for move in rng.sample(moves, min(len(moves), 6)):
        match move:
            case mv.ClaimRoute(route=route, cards=cards):
                yield mv.ClaimRoute(rng.choice(routes), cards)
                r = board.routes[route]
                if r.twin is not None:
                    yield mv.ClaimRoute(r.twin, cards)
                for wrong in payment_mutations(cards, rng):
                    yield mv.ClaimRoute(route, wrong)
            case mv.BuildStation(city=city, cards=cards):
                yield mv.BuildStation(rng.choice(cities), cards)
                for wrong in payment_mutations(cards, rng):
                    yield mv.BuildStation(city, wrong)
            case mv.PayTunnel(cards=cards):
                for wrong in payment_mutations(cards, rng):
                    yield mv.PayTunnel(wrong)
            case mv.KeepTickets(tickets=kept):
                yield mv.KeepTickets(())
                yield mv.KeepTickets(kept[:1])
                yield mv.KeepTickets((*kept, kept[0]))
                yield mv.KeepTickets((*kept, rng.choice(tickets)))
                yield mv.KeepTickets((*kept[1:], rng.choice(tickets)))
            case mv.DrawCard(source="market", index=index):
                assert index is not None
                yield mv.DrawCard("market", index + 5)
                yield mv.DrawCard("market", rng.randrange(-2, 7))
            case _:
                pass


def move_key(move: mv.Move) -> object:
    """Moves that mean the same: tickets kept are a set (a ticket named twice is a different, illegal, move)."""
    if isinstance(move, mv.KeepTickets) and len(set(move.tickets)) == len(move.tickets):
        return (mv.KeepTickets, frozenset(move.tickets))
    return move


def assert_refused(s: State, seat: int, move: mv.Move, where: str) -> IllegalMove:
    before = s.copy()
    try:
        events = step(s, seat, move, random.Random(0))[1]
    except IllegalMove as refusal:
        assert refusal.rule in RULE_IDS, f"{where}: {move} was refused with {refusal.rule!r}, not a docs/RULES.md rule ID"
        assert isinstance(refusal.detail, str) and refusal.detail, f"{where}: {move} was refused without a reason"
        assert not differing_fields(s, before), f"{where}: refusing {move} changed the state"
        return refusal
    raise AssertionError(f"{where}: {move} by seat {seat} is not in legal_moves, yet decide accepted it: {events}")


@PROPERTY
@given(spec=game_specs)
def test_moves_not_in_legal_moves_are_refused_with_a_rules_md_rule_id(spec: GameSpec) -> None:
    refused: dict[str, int] = {}

    def after_decision(d: Decision, rng: random.Random) -> None:
        if not sample_decision_point(d, rng, 0.1):
            return
        s = d.before
        where = f"{spec} at decision {d.number} (phase {s.phase})"
        legal = legal_moves(s, d.seat)
        keys = {move_key(move) for move in legal}
        for move in move_mutations(s, d.seat, legal, rng):
            if move_key(move) not in keys:
                refusal = assert_refused(s, d.seat, move, where)
                refused[refusal.rule] = refused.get(refusal.rule, 0) + 1
        # A seat that is not deciding may do nothing at all (C-TRN-1), nor may a seat that does not exist.
        idle = [seat for seat in range(s.player_count) if seat not in s.deciders()]
        for seat in [*idle, -1, s.player_count]:
            with pytest.raises(NotYourTurn) as refusal:
                step(s, seat, d.move, random.Random(0))
            assert refusal.value.rule == "C-TRN-1"

    game = play(spec, after_decision)
    with pytest.raises(IllegalMove) as over:
        step(game.state, 0, mv.DrawCard("deck"), random.Random(0))
    assert over.value.rule == "C-END-1"
    assert refused, f"{spec}: no mutation was tried"


# Hidden information (X-SEC-1).


def strings_in(value: Any) -> set[str]:
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return {s for k, v in value.items() for s in (strings_in(k) | strings_in(v))}
    if isinstance(value, list | tuple):
        return {s for item in value for s in strings_in(item)}
    return set()


SECRET = "SECRET"


def with_secrets_scrambled(s: State, viewer: int | None, variant: int) -> State:
    """The state with everything `viewer` may not see changed: other hands, tickets and offers, pile orders.

    Other hands keep their size; variant 0 shifts every card to the next kind, variant 1 makes the hand one kind.
    """
    other = s.copy()
    shift = {kind: CARD_KINDS[(i + 1) % len(CARD_KINDS)] for i, kind in enumerate(CARD_KINDS)}
    for seat, player in enumerate(other.players):
        if seat == viewer:
            continue
        if variant == 0:
            player.hand = {shift[kind]: n for kind, n in player.hand.items()}
        elif player.hand:
            single = COLOURS[0] if set(player.hand) == {LOCOMOTIVE} else LOCOMOTIVE
            player.hand = {single: sum(player.hand.values())}
        player.tickets = [f"{SECRET}-ticket-{seat}-{k}" for k in range(len(player.tickets))]
        if seat in other.offered:
            other.offered[seat] = tuple(f"{SECRET}-offer-{seat}-{k}" for k in range(len(other.offered[seat])))
    other.draw_pile = [f"{SECRET}-card-{k}" for k in range(len(other.draw_pile))]
    other.ticket_pile = [f"{SECRET}-pile-{k}" for k in range(len(other.ticket_pile))]
    other.long_pile = [f"{SECRET}-long-{k}" for k in range(len(other.long_pile))]
    return other


def assert_view_hides_secrets(s: State, viewer: int | None, where: str) -> None:
    seen = view(s, viewer)
    others = [seat for seat in range(s.player_count) if seat != viewer]
    secret_tickets = {t for seat in others for t in (*s.players[seat].tickets, *s.offered.get(seat, ()))}
    shown = strings_in(view_json(seen))  # what the API serves the viewer
    assert not shown & secret_tickets, f"{where}: viewer {viewer} sees other seats' tickets {shown & secret_tickets}"
    for variant in (0, 1):
        scrambled = view(with_secrets_scrambled(s, viewer, variant), viewer)
        assert scrambled == seen, f"{where}: viewer {viewer}'s view changes with other hands, tickets or pile orders"
        scrambled_text = json.dumps(view_json(scrambled), sort_keys=True)
        assert SECRET not in scrambled_text, f"{where}: viewer {viewer}'s view shows a hidden value"
    if viewer is not None:
        assert seen.hand == {k: n for k, n in s.players[viewer].hand.items() if n}
        assert seen.tickets == tuple(s.players[viewer].tickets)
        assert seen.offered_tickets == s.offered.get(viewer, ())
    assert [p.cards for p in seen.players] == [sum(p.hand.values()) for p in s.players]
    assert seen.deck_size == len(s.draw_pile)


def assert_redacted_event_hides_secrets(
    event: ev.Event, viewer: int | None, all_tickets: frozenset[str], own_tickets: set[str], where: str
) -> None:
    """`own_tickets`: the tickets ever dealt to the viewer, the only ones it may read in the log before the end."""
    shown = redact(event, viewer)
    data = json.loads(event_to_json(shown))
    if isinstance(event, ev.GameScored):
        return  # the final scores name every ticket: once the game is over everything is public
    leaked = (strings_in(data) & all_tickets) - own_tickets
    assert not leaked, f"{where}: viewer {viewer} is shown tickets {leaked} in {event.type}"
    match shown:
        case ev.DeckShuffled(cards=cards):
            assert cards is None, f"{where}: the deck order is shown to viewer {viewer}"
        case ev.TicketsShuffled(tickets=tickets, long_tickets=long_tickets):
            assert tickets is None and long_tickets is None, f"{where}: the ticket order is shown to {viewer}"
        case ev.CardsDealt(seat=seat, cards=cards) if seat != viewer:
            assert cards is None, f"{where}: seat {seat}'s dealt cards are shown to viewer {viewer}"
        case ev.CardDrawn(seat=seat, source="deck", card=card) if seat != viewer:
            assert card is None, f"{where}: seat {seat}'s blind draw is shown to viewer {viewer}"
        case _:
            pass
    # What is hidden is only what is secret: public counts stay, and the acting seat sees its own event.
    if viewer is not None and getattr(event, "seat", None) == viewer and not isinstance(event, ev.DeckShuffled):
        assert shown == event
    for name in ("size", "count", "kept_count", "returned_count", "long_count", "seat", "source", "index"):
        assert getattr(shown, name, None) == getattr(event, name, None)
    assert redact(event, viewer, finished=True) == event


@PROPERTY
@given(spec=game_specs)
def test_x_sec_1_no_view_or_redacted_event_shows_another_seats_secrets(spec: GameSpec) -> None:
    viewers: list[int | None] = [*range(spec.players), None]

    def after_decision(d: Decision, rng: random.Random) -> None:
        if rng.random() < 0.25 or d.before.phase in (SETUP_TICKETS, TUNNEL_PAYMENT):
            for viewer in viewers:
                assert_view_hides_secrets(d.before, viewer, f"{spec} before decision {d.number} (phase {d.before.phase})")

    game = play(spec, after_decision)
    all_tickets = frozenset(game.state.board.tickets)
    dealt: dict[int | None, set[str]] = {viewer: set() for viewer in viewers}
    for i, event in enumerate(game.events):
        if isinstance(event, ev.TicketsDealt):
            dealt[event.seat] |= set(event.tickets or ())
        for viewer in viewers:
            assert_redacted_event_hides_secrets(event, viewer, all_tickets, dealt[viewer], f"{spec} event {i}")
    final = view(game.state, None).final
    assert final is not None
    assert final.hands == tuple({k: n for k, n in p.hand.items() if n} for p in game.state.players)
    assert final.player_tickets == tuple(tuple(p.tickets) for p in game.state.players)


# Ending, the codec and scoring.


@PROPERTY
@given(spec=game_specs)
def test_c_end_1_every_game_ends_and_the_last_round_gives_each_seat_one_more_turn(spec: GameSpec) -> None:
    game = play(spec)  # play() fails if the game has not ended within MAX_DECISIONS
    s = game.state
    assert s.finished and s.deciders() == ()
    ended = [i for i, e in enumerate(game.events) if isinstance(e, ev.GameEnded)]
    assert ended == [len(game.events) - 2], f"{spec}: game_ended must be the last move's event, once"
    last, scored = game.events[-2:]
    assert isinstance(last, ev.GameEnded) and isinstance(scored, ev.GameScored)
    assert scored.scores == s.scores and scored.winner_seats == s.winner_seats
    started = [i for i, e in enumerate(game.events) if isinstance(e, ev.LastRoundStarted)]
    assert len(started) <= 1, f"{spec}: the last round started twice"
    if last.reason == "last_round":
        assert started, f"{spec}: the game ended on the last round, which never started"
        trigger = game.events[started[0]]
        assert isinstance(trigger, ev.LastRoundStarted) and trigger.turns_left == spec.players
        assert s.players[trigger.seat].trains <= 2
        turns_after = [e for e in game.events[started[0] :] if isinstance(e, ev.TurnEnded)]
        assert len(turns_after) == spec.players, f"{spec}: the last round had {len(turns_after)} turns (C-END-1)"
        assert [e.seat for e in turns_after] == [(trigger.seat + 1 + k) % spec.players for k in range(spec.players)]
        turn_ends = [i for i, e in enumerate(game.events) if isinstance(e, ev.TurnEnded)]
        assert game.events[turn_ends[-spec.players - 1]] == ev.TurnEnded(
            seat=trigger.seat, next_seat=(trigger.seat + 1) % spec.players
        ), f"{spec}: the last round must start at the turn of the seat that triggered it"
    else:
        assert last.reason == "no_moves", f"{spec}: unknown end reason {last.reason!r}"
        tail = game.events[-2 - 2 * spec.players : -2]  # before game_ended and game_scored
        assert [type(e) for e in tail] == [ev.TurnPassed, ev.TurnEnded] * spec.players, f"{spec}: C-END-2"
    for seat in range(spec.players):
        assert legal_moves(s, seat) == []
    assert game.decisions < MAX_DECISIONS


@PROPERTY
@given(spec=game_specs)
def test_every_event_and_its_redactions_round_trip_through_the_codec(spec: GameSpec) -> None:
    game = play(spec)
    for i, event in enumerate(game.events):
        assert_event_round_trips(event, f"{spec} event {i}")
        for viewer in [*range(spec.players), None]:
            shown = redact(event, viewer)
            if shown != event:
                assert_event_round_trips(shown, f"{spec} event {i} as {viewer} (None: a spectator) sees it")
    assert {type(e) for e in game.events} >= {ev.GameStarted, ev.DeckShuffled, ev.CardDrawn, ev.GameEnded}


@PROPERTY
@given(spec=game_specs)
def test_final_scores_are_final_score_of_the_final_board(spec: GameSpec) -> None:
    game = play(spec)
    assert_scores_recomputed(game.state, str(spec))
    replayed = replay(game.events)
    assert replayed.scores == game.state.scores
