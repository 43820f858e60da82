"""Provably fair randomness (X-RNG-2, games/engine/fairness.py, docs/FAIRNESS.md): a fair game's every random
outcome comes from its seeds, the verifier recomputes them all from the log and the revealed seeds, and any single
change (to a shuffle, a seed, the reveal, or which stream a draw was taken from) makes it say so. The streams are
unbiased: a chi-square test over 100,000 shuffles, and the rejection of the words that would bias a draw."""

from __future__ import annotations

import dataclasses
import hashlib
import random
from collections import Counter
from itertools import permutations
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import begin, step
from games.engine import events as ev
from games.engine.fairness import outcomes_checked
from games.engine.legal import random_legal_move
from games.engine.seeds import FairDraws, Seeds, Stream, shuffled

seeds_strategy = st.builds(
    Seeds,
    server=st.binary(min_size=32, max_size=32),
    clients=st.lists(st.binary(max_size=32), min_size=2, max_size=2).map(tuple),
)


def fair_game(seeds: Seeds, map_name: str, moves_seed: int) -> list[ev.Event]:
    """A 2-seat game whose chance is the seeds' and whose moves are random (the players' own choices)."""
    game_seed, moves = seeds.game_seed(), random.Random(moves_seed)
    state, opening = begin(map_name, len(seeds.clients), FairDraws(game_seed))
    log = list(opening)
    while not state.finished:
        seat = state.deciders()[0]
        move = random_legal_move(state, seat, moves)
        assert move is not None
        state, events = step(state, seat, move, FairDraws(game_seed, state.shuffles), in_place=True)
        log.extend(events)
    return log


@settings(max_examples=12, deadline=None)
@given(seeds=seeds_strategy, map_name=st.sampled_from(["europe", "usa"]), moves_seed=st.integers(0, 10**6),
       change=st.integers(0, 10**6))
def test_x_rng_2_the_verifier_takes_a_fair_log_and_refuses_it_after_any_single_change(
    seeds: Seeds, map_name: str, moves_seed: int, change: int
) -> None:
    log = fair_game(seeds, map_name, moves_seed)
    published = seeds.server_hash
    verdict = outcomes_checked(log, seeds, published_hash=published)
    reshuffles = [e for e in log if isinstance(e, ev.DeckShuffled) and e.reason != "setup"]
    assert verdict.fair and verdict.checked == 4 + len(reshuffles), verdict  # first seat, deck, 2 ticket piles

    # A shuffle changed: two cards of one deck shuffle (that differ) swapped.
    shuffles = [i for i, e in enumerate(log) if isinstance(e, ev.DeckShuffled) and len(set(e.cards or ())) > 1]
    at = shuffles[change % len(shuffles)]
    cards = list(log[at].cards or ())
    i = change % len(cards)
    j = next(k for k in range(len(cards)) if cards[k] != cards[i])
    cards[i], cards[j] = cards[j], cards[i]
    tampered = [*log[:at], dataclasses.replace(log[at], cards=tuple(cards)), *log[at + 1 :]]
    assert not outcomes_checked(tampered, seeds, published_hash=published).fair

    # A seed changed: one bit of the server's, or a client's seed.
    flipped = bytes([seeds.server[0] ^ (1 << change % 8)]) + seeds.server[1:]
    other_server = Seeds(flipped, seeds.clients)
    assert not outcomes_checked(log, other_server, published_hash=other_server.server_hash).fair
    mine = seeds.clients[0]
    changed = mine[:-1] + bytes([mine[-1] ^ 1]) if mine else b"\x01"
    other_client = Seeds(seeds.server, (changed, seeds.clients[1]))
    assert not outcomes_checked(log, other_client, published_hash=published).fair
    # The reveal changed: a server seed other than the one whose hash was published.
    assert not outcomes_checked(log, other_server, published_hash=published).fair
    # The order of draws changed: the tickets drawn from the deck's stream and the deck from theirs.
    deck_at = next(i for i, e in enumerate(log) if isinstance(e, ev.DeckShuffled))
    tickets_at = next(i for i, e in enumerate(log) if isinstance(e, ev.TicketsShuffled))
    game_seed = seeds.game_seed()
    swapped = list(log)
    swapped[deck_at] = dataclasses.replace(log[deck_at], cards=tuple(shuffled(game_seed, 1, log[deck_at].cards or ())))
    swapped[tickets_at] = dataclasses.replace(
        log[tickets_at], tickets=tuple(shuffled(game_seed, 0, log[tickets_at].tickets or ()))
    )
    assert not outcomes_checked(swapped, seeds, published_hash=published).fair


def test_x_rng_2_a_rematchs_given_first_seat_is_not_taken_for_a_drawn_one() -> None:
    seeds = Seeds(bytes(range(32)), (b"", b"\xff"))
    _, opening = begin("usa", 2, FairDraws(seeds.game_seed()), first_seat=1)
    assert outcomes_checked(opening, seeds, published_hash=seeds.server_hash, first_seat_drawn=False).fair
    drawn = Stream(seeds.game_seed(), "first-seat").below(2)
    as_drawn = outcomes_checked(opening, seeds, published_hash=seeds.server_hash)
    assert as_drawn.fair == (drawn == 1)


def test_x_rng_2_shuffles_are_uniform_over_100000_shuffles_of_four_cards() -> None:
    """Chi-square over the 24 orders of 4 cards, 100,000 shuffles of a fixed seed (each its own stream): under
    uniformity the statistic exceeds 49.7 (23 degrees of freedom) one time in 1,000."""
    seed = hashlib.sha256(b"chi-square").digest()
    counts = Counter(tuple(shuffled(seed, n, "abcd")) for n in range(100_000))
    assert set(counts) == set(permutations("abcd"))
    expected = 100_000 / 24
    statistic = sum((count - expected) ** 2 / expected for count in counts.values())
    assert statistic < 49.7, statistic


def test_x_rng_2_a_word_that_would_bias_a_draw_is_thrown_away() -> None:
    """Below n = 2^63 + 1, only the words under 2^64 - (2^64 mod n) = n are kept (a word at or over n would make
    the small results twice as likely): half the words, about, are thrown away, and every kept one is below n."""
    n = 2**63 + 1
    stream, kept_words = Stream(b"\x00" * 32, "bias"), 0
    words = Stream(b"\x00" * 32, "bias")
    results = [stream.below(n) for _ in range(2_000)]
    read = 0
    while kept_words < 2_000:
        read += 1
        kept_words += words.word() < n
    assert all(0 <= r < n for r in results)
    assert 0.4 < 2_000 / read < 0.6  # the share of words kept
    assert Stream(b"\x00" * 32, "small").below(1) == 0


def test_x_rng_2_a_verifier_written_from_docs_fairness_md_alone_agrees_with_the_engine_and_the_worked_example() -> None:
    """Only hashlib and the page's words: if the page and the code ever part, this fails."""

    def stream_words(game_seed: bytes, label: str):  # type: ignore[no-untyped-def]
        k = 0
        while True:
            block = hashlib.sha256(game_seed + label.encode("ascii") + b"\x00" + k.to_bytes(8, "big")).digest()
            for at in range(0, 32, 8):
                yield int.from_bytes(block[at : at + 8], "big")
            k += 1

    def below(words, n: int) -> int:  # type: ignore[no-untyped-def]
        limit = 2**64 - (2**64 % n)
        for w in words:
            if w < limit:
                return w % n
        raise AssertionError("unreachable")

    def shuffle(game_seed: bytes, label: str, items: list[str]) -> list[str]:
        x, words = list(items), stream_words(game_seed, label)
        for i in range(len(x) - 1, 0, -1):
            j = below(words, i + 1)
            x[i], x[j] = x[j], x[i]
        return x

    server = bytes.fromhex("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f")
    clients = [b"\xc0\xff\xee", b""]
    material = b"ttr-fair-v1\x00" + server + b"".join(bytes([len(c)]) + c for c in clients)
    game_seed = hashlib.sha256(material).digest()
    deck = [kind for kind in ("purple", "blue", "orange", "white", "green", "yellow", "black", "red") for _ in range(12)]
    deck += ["locomotive"] * 14
    first_seat, top = below(stream_words(game_seed, "first-seat"), 2), shuffle(game_seed, "shuffle-0", deck)[:8]

    page = (Path(__file__).resolve().parents[2] / "docs" / "FAIRNESS.md").read_text(encoding="utf-8")
    assert hashlib.sha256(server).hexdigest() in page and game_seed.hex() in page
    assert "seat **1** plays first" in page and first_seat == 1
    assert ", ".join(top) in " ".join(page.replace("\n", " ").split())
    # The engine: the same seeds, the same game seed, the same first seat and deck, and seat 0 dealt the top four.
    seeds = Seeds(server, tuple(clients))
    assert seeds.game_seed() == game_seed
    state, opening = begin("europe", 2, FairDraws(seeds.game_seed()))
    assert state.first_seat == first_seat
    dealt = next(e for e in opening if isinstance(e, ev.CardsDealt) and e.seat == 0)
    assert list(next(e for e in opening if isinstance(e, ev.DeckShuffled)).cards or ())[:8] == top
    assert sorted(dealt.cards or ()) == sorted(top[:4])


def test_x_rng_2_the_simulators_fair_games_verify_and_its_others_do_not() -> None:
    from games.engine.simulate import play_random_game

    for number in range(3):
        rng = random.Random(f"fair:{number}")
        server = random.Random(f"fair:{number}").randbytes(32)  # what play_random_game draws first
        seeds = Seeds(server, (b"", b"", b""))
        fair = play_random_game("europe", 3, rng, fair=True).events
        assert outcomes_checked(fair, seeds, published_hash=seeds.server_hash).fair
        other = play_random_game("europe", 3, random.Random(f"fair:{number}")).events
        assert not outcomes_checked(other, seeds, published_hash=seeds.server_hash).fair
