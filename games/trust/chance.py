"""Where a game's chance comes from (docs/RULES.md X-RNG-2, docs/FAIRNESS.md).

A game created now has a secret server seed (`Game.server_seed`), drawn from the operating system when the game is
created, its SHA-256 public at once in the summary. A person may add a client seed when they join or start it
(`Seat.client_seed`). At the start the seeds are written into the log (`seeds_committed`, after
`game_started`), and every shuffle and the first player are drawn from their streams (`seeds.FairDraws`);
once the game is scored the server seed is written too (`seeds_revealed`), so the audit log checks alone. A game
from before fair chance has no server seed: its chance stays the operating system's, unprovable.

A game formed whole by the matchmaker or a rematch starts at once, before anyone could give a seed: its chance
is the server seed's alone. It is still fixed before the deal and checkable afterwards, but the players had no
part in it.
"""

from __future__ import annotations

import hashlib
import random
import re
import secrets

from games.engine import State
from games.engine.draws import Draws
from games.engine.events import SeedsCommitted, SeedsRevealed
from games.engine.seeds import MAX_CLIENT_SEED_BYTES, SERVER_SEED_BYTES, FairDraws, Seeds
from games.store.models import Game
from games.store.service_error import ServiceError

_HEX = re.compile(r"(?:[0-9a-f]{2})*")


def new_server_seed() -> str:
    return secrets.token_hex(SERVER_SEED_BYTES)


def server_seed_hash(game: Game) -> str | None:
    """What the summary publishes: SHA-256 of the server seed, hex (None: a game from before fair chance)."""
    return hashlib.sha256(bytes.fromhex(game.server_seed)).hexdigest() if game.server_seed else None


def client_seed(text: str) -> str:
    """A client seed as given (`join`, `start`): hex of up to 32 bytes, any case; '' for none. Raises ServiceError."""
    seed = text.lower()
    if len(seed) > 2 * MAX_CLIENT_SEED_BYTES or not _HEX.fullmatch(seed):
        raise ServiceError(
            "invalid", f"client_seed is hex: an even number of digits, at most {2 * MAX_CLIENT_SEED_BYTES}",
            field="client_seed",
        )
    return seed


def _seeds(game: Game) -> Seeds:
    return Seeds(bytes.fromhex(game.server_seed), tuple(bytes.fromhex(seat.client_seed) for seat in game.seat_list))


def draws(game: Game, state: State | None) -> Draws:
    """The chance of `game`'s next step (`state`: the game as it stands; None: the deal)."""
    if not game.server_seed:
        return random.SystemRandom()  # shuffles must be unpredictable to players: never a seeded generator
    return FairDraws(_seeds(game).game_seed(), state.shuffles if state is not None else 0)


def committed(game: Game, *, first_seat_drawn: bool) -> SeedsCommitted | None:
    """The seeds' entry in the log at the deal (None: a game without fair chance)."""
    if not game.server_seed:
        return None
    seeds = _seeds(game)
    return SeedsCommitted(seeds.server_hash, tuple(seed.hex() for seed in seeds.clients), first_seat_drawn)


def revealed(game: Game) -> list[SeedsRevealed]:
    """What the log gets once the game is scored: the server seed (nothing for a game without fair chance)."""
    return [SeedsRevealed(game.server_seed)] if game.server_seed else []
