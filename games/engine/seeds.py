"""The derivation of provably fair chance (docs/FAIRNESS.md): a game's seeds, the game seed made of them, and the
counter-mode SHA-256 streams every random outcome is drawn from (`FairDraws`, what `begin` and `step` take where they
take a Random). The checks of a finished game against these streams are in fairness.py and replayed.py, which both
build on this module.

Standard library only, like the rest of the engine.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Iterable, MutableSequence
from dataclasses import dataclass
from typing import Any, TypeVar

VERSION = 1
SEED_DOMAIN = b"ttr-fair-v1\x00"
SERVER_SEED_BYTES = 32
MAX_CLIENT_SEED_BYTES = 32
WORD_BYTES = 8  # the stream is read as 64-bit big-endian words
WORD_RANGE = 1 << (8 * WORD_BYTES)
FIRST_SEAT = "first-seat"
_WORDS = struct.Struct(">4Q")  # a SHA-256 block as four 64-bit big-endian words

_T = TypeVar("_T")


@dataclass(frozen=True)
class Seeds:
    """The seeds of one game: the server's (secret until the game ends) and each seat's, in seat order (b"" for a
    seat that gave none)."""

    server: bytes
    clients: tuple[bytes, ...]

    def __post_init__(self) -> None:
        if len(self.server) != SERVER_SEED_BYTES:
            raise ValueError(f"a server seed is {SERVER_SEED_BYTES} bytes")
        if any(len(seed) > MAX_CLIENT_SEED_BYTES for seed in self.clients):
            raise ValueError(f"a client seed is at most {MAX_CLIENT_SEED_BYTES} bytes")

    @property
    def server_hash(self) -> str:
        """What is published when the game is created: SHA-256 of the server seed, hex."""
        return hashlib.sha256(self.server).hexdigest()

    def game_seed(self) -> bytes:
        """SHA-256 of the domain tag, the server seed, then each client seed (seat order) after its length byte."""
        material = bytearray(SEED_DOMAIN + self.server)
        for seed in self.clients:
            material += bytes([len(seed)]) + seed
        return hashlib.sha256(material).digest()


class Stream:
    """The stream of one outcome: block k is SHA-256(game seed || label (UTF-8) || 0x00 || k as 8 bytes,
    big-endian), k = 0, 1, 2...; the blocks read in order as 64-bit big-endian words."""

    __slots__ = ("_block", "_prefix", "_words")

    def __init__(self, game_seed: bytes, label: str) -> None:
        self._prefix = game_seed + label.encode() + b"\x00"
        self._block = 0
        self._words: list[int] = []  # the current block's words not yet read, the next one last

    def word(self) -> int:
        if not self._words:
            block = hashlib.sha256(self._prefix + self._block.to_bytes(8, "big")).digest()
            self._words = list(reversed(_WORDS.unpack(block)))
            self._block += 1
        return self._words.pop()

    def below(self, n: int) -> int:
        """An integer in [0, n), every one equally likely: a word at or above the largest multiple of n that
        fits in 64 bits is thrown away and the next one read (no modulo bias)."""
        if not 1 <= n <= WORD_RANGE:
            raise ValueError(f"cannot draw below {n}")
        limit = WORD_RANGE - WORD_RANGE % n
        while True:
            word = self.word()
            if word < limit:
                return word % n

    def shuffle(self, items: MutableSequence[Any]) -> None:
        """Fisher-Yates from the end: for i = len - 1 down to 1, swap items[i] with items[below(i + 1)] (`below`
        written out: a whole game's shuffles draw some 400 times)."""
        word = self.word
        for i in range(len(items) - 1, 0, -1):
            n = i + 1
            limit = WORD_RANGE - WORD_RANGE % n
            w = word()
            while w >= limit:
                w = word()
            j = w % n
            items[i], items[j] = items[j], items[i]


def shuffle_label(number: int) -> str:
    """The label of the game's `number`-th shuffle (from 0: the setup's deck, regular and long tickets are 0, 1
    and 2, even on a map without long tickets; each reshuffle of the discards is the next)."""
    return f"shuffle-{number}"


class FairDraws:
    """The engine's source of randomness for a fair game (`begin`, `step` take it where they take a Random):
    `randrange` draws the first player, each `shuffle` the next shuffle's stream. `shuffles` is how many the
    game has had (`State.shuffles`, 0 at the start)."""

    def __init__(self, game_seed: bytes, shuffles: int = 0) -> None:
        self.game_seed = game_seed
        self.shuffles = shuffles

    def randrange(self, n: int) -> int:
        return Stream(self.game_seed, FIRST_SEAT).below(n)

    def shuffle(self, items: MutableSequence[Any]) -> None:
        Stream(self.game_seed, shuffle_label(self.shuffles)).shuffle(items)
        self.shuffles += 1


def shuffled(game_seed: bytes, number: int, items: Iterable[_T]) -> list[_T]:
    """`items` (in their canonical order) as the game's `number`-th shuffle leaves them."""
    result = list(items)
    Stream(game_seed, shuffle_label(number)).shuffle(result)
    return result
