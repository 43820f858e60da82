"""A verifier that trusts nobody (X-RNG-2, games/engine/replayed.py, docs/FAIRNESS.md "Checking a game"): the whole
log is played again under the rules with the orders derived from the revealed seeds, and every event compared
with the log's, field by field. Finding 9 of #30: a dealt hand changed after the fact passed a check of the
shuffles alone; each single change below is now found at its seq and field, and a true log passes whole."""

from __future__ import annotations

import dataclasses
import random
import time
from typing import Any

import pytest

from games.engine import begin, score_ended, step
from games.engine import events as ev
from games.engine.fairness import outcomes_checked
from games.engine.legal import random_legal_move
from games.engine.replayed import log_replayed
from games.engine.seeds import FairDraws, Seeds

SEEDS = Seeds(bytes(range(32)), (b"\xc0\xff\xee", b"", b"\x01" * 32, b"\xab"))


def server_game(seeds: Seeds, map_name: str = "europe", moves_seed: int = 9) -> list[ev.Event]:
    """A fair game logged as the server logs one: the seeds after `game_started`, each move's chance the seeds',
    and at the end the server seed revealed, then the score."""
    game_seed, moves = seeds.game_seed(), random.Random(moves_seed)
    committed = ev.SeedsCommitted(seeds.server_hash, tuple(c.hex() for c in seeds.clients), True)
    state, opening = begin(map_name, len(seeds.clients), FairDraws(game_seed), committed=committed)
    log = list(opening)
    while not state.finished:
        seat = state.deciders()[0]
        move = random_legal_move(state, seat, moves)
        assert move is not None
        state, made = step(state, seat, move, FairDraws(game_seed, state.shuffles), in_place=True)
        log.extend(made)
    return [*log, ev.SeedsRevealed(seeds.server.hex()), score_ended(state)]


@pytest.fixture(scope="module")
def log() -> list[ev.Event]:
    return server_game(SEEDS)


def changed(log: list[ev.Event], at: int, **fields: Any) -> list[ev.Event]:
    return [*log[:at], dataclasses.replace(log[at], **fields), *log[at + 1 :]]  # type: ignore[type-var]


def first(log: list[ev.Event], kind: type[ev.Event], **where: Any) -> int:
    return next(i for i, e in enumerate(log) if isinstance(e, kind) and all(getattr(e, k) == v for k, v in where.items()))


def test_x_rng_2_a_true_four_seat_log_replays_whole_under_the_rules_in_milliseconds(log: list[ev.Event]) -> None:
    began = time.perf_counter()
    replayed = log_replayed(log, SEEDS.game_seed())
    took = time.perf_counter() - began
    assert replayed.difference is None and replayed.over, replayed
    assert replayed.events == len(log) and replayed.moves > 100
    assert took < 2.0, took  # about 20 ms on a quiet machine; generous for a busy one


def test_x_rng_2_a_dealt_hand_changed_after_the_fact_is_found_at_its_seq_and_field(log: list[ev.Event]) -> None:
    """Finding 9 of #30: seq 4 is seat 0's `cards_dealt`; one card of it changed to a locomotive (or from one)."""
    assert isinstance(log[3], ev.CardsDealt) and log[3].seat == 0 and log[3].cards is not None
    hand = list(log[3].cards)
    k = next((i for i, card in enumerate(hand) if card != "locomotive"), 0)
    was, hand[k] = hand[k], "locomotive" if hand[k] != "locomotive" else "purple"
    tampered = changed(log, 3, cards=tuple(hand))
    assert outcomes_checked(tampered, SEEDS, published_hash=SEEDS.server_hash).fair  # the shuffles alone: fooled
    difference = log_replayed(tampered, SEEDS.game_seed()).difference
    assert difference is not None
    assert (difference.seq, difference.type, difference.field) == (4, "cards_dealt", f"cards[{k}]")
    assert (difference.expected, difference.found) == (repr(was), repr(hand[k]))
    assert "seq 4 (cards_dealt), field cards[" in str(difference)


def test_x_rng_2_the_same_change_is_found_without_seeds_from_the_logs_own_orders(log: list[ev.Event]) -> None:
    hand = list(log[3].cards or ())
    hand[0] = "locomotive" if hand[0] != "locomotive" else "purple"
    difference = log_replayed(changed(log, 3, cards=tuple(hand)), None).difference
    assert difference is not None and (difference.seq, difference.field) == (4, "cards[0]")


@pytest.mark.parametrize("what", ["blind draw", "points", "next seat", "score", "market"])
def test_x_rng_2_any_single_changed_fact_is_found_where_it_stands(log: list[ev.Event], what: str) -> None:
    if what == "blind draw":
        at = first(log, ev.CardDrawn, source="deck")
        card = log[at].card  # type: ignore[union-attr]
        tampered, field = changed(log, at, card="red" if card != "red" else "blue"), "card"
    elif what == "points":
        at = first(log, ev.RouteClaimed)
        tampered, field = changed(log, at, points=log[at].points + 5), "points"  # type: ignore[union-attr]
    elif what == "next seat":
        at = first(log, ev.TurnEnded)
        tampered, field = changed(log, at, next_seat=(log[at].next_seat + 1) % 4), "next_seat"  # type: ignore[union-attr]
    elif what == "score":
        at = len(log) - 1
        scored = log[at]
        assert isinstance(scored, ev.GameScored)
        scores = (dataclasses.replace(scored.scores[0], total=999), *scored.scores[1:])
        tampered, field = changed(log, at, scores=scores), "scores[0].total"
    else:
        at = first(log, ev.MarketRevealed)
        cards = log[at].cards  # type: ignore[union-attr]
        other = "white" if cards[0] != "white" else "black"
        tampered, field = changed(log, at, cards=(other, *cards[1:])), "cards[0]"
    difference = log_replayed(tampered, SEEDS.game_seed()).difference
    assert difference is not None and (difference.seq, difference.field) == (at + 1, field), difference


def test_x_rng_2_an_event_removed_inserted_or_cut_off_is_found(log: list[ev.Event]) -> None:
    at = first(log, ev.TurnEnded)
    removed = log_replayed([*log[:at], *log[at + 1 :]], SEEDS.game_seed()).difference
    assert removed is not None and removed.seq == at + 1 and removed.field == "type", removed
    inserted = log_replayed([*log[:at], log[3], *log[at:]], SEEDS.game_seed()).difference
    assert inserted is not None and inserted.seq == at + 1 and inserted.found == "'cards_dealt'", inserted
    cut = log_replayed(log[:-2], SEEDS.game_seed())
    assert cut.difference is None and not cut.over  # a true prefix: only the end is missing


def test_x_rng_2_a_move_the_rules_forbid_is_found_as_a_move() -> None:
    log = server_game(SEEDS, "usa", moves_seed=4)
    at = first(log, ev.RouteClaimed)
    claim = log[at]
    assert isinstance(claim, ev.RouteClaimed)
    tampered = changed(log, at, cards=(("locomotive", 50),))  # cards the seat never held
    difference = log_replayed(tampered, SEEDS.game_seed()).difference
    assert difference is not None and (difference.seq, difference.field) == (at + 1, "move"), difference


def test_x_rng_2_without_seeds_a_reshuffle_that_is_no_order_of_the_discards_is_found() -> None:
    log = server_game(SEEDS, "europe", moves_seed=2)
    at = first(log, ev.DeckShuffled, reason="reshuffle")
    cards = log[at].cards or ()  # type: ignore[union-attr]
    other = "red" if cards[0] != "red" else "blue"
    difference = log_replayed(changed(log, at, cards=(other, *cards[1:])), None).difference
    assert difference is not None and (difference.seq, difference.field) == (at + 1, "cards"), difference


def test_x_rng_2_an_aborted_game_replays_to_its_abort_and_its_seed_may_not_be_revealed_earlier(
    log: list[ev.Event],
) -> None:
    at = first(log, ev.TurnEnded)
    reveal = ev.SeedsRevealed(SEEDS.server.hex())
    aborted = [*log[: at + 1], ev.GameAborted(staff=1, reason="test"), reveal]
    replayed = log_replayed(aborted, SEEDS.game_seed())
    assert replayed.difference is None and replayed.over, replayed
    early = log_replayed([*log[: at + 1], reveal, *log[at + 1 :]], SEEDS.game_seed()).difference
    assert early is not None and (early.seq, early.type) == (at + 2, "seeds_revealed"), early
    twice = log_replayed([*log, ev.GameAborted(staff=1, reason="late")], SEEDS.game_seed()).difference
    assert twice is not None and twice.seq == len(log) + 1, twice


def test_x_rng_2_the_servers_facts_between_moves_are_taken_as_they_stand(log: list[ev.Event]) -> None:
    at = first(log, ev.TurnEnded) + 1
    facts = [ev.HintUsed(seat=1), ev.TurnTimedOut(seat=1, seconds=60, bot="greedy"), ev.SeatResigned(seat=1, bot="greedy")]
    replayed = log_replayed([*log[:at], *facts, *log[at:]], SEEDS.game_seed())
    assert replayed.difference is None and replayed.over and replayed.events == len(log) + 3, replayed
