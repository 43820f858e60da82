"""The dump verifier's speed: a month's dump of N engine-played games written to a temporary directory, then
`python -m games.audit verify-dump` timed on it with one process (docs/AUDIT.md, "Figures").

    python bench/verify_dump.py [--games 200] [--players 4] [--map europe] [--seed 1] [--keep DIR]

Each game is a provably fair game of uniformly random legal moves (games/engine/simulate.py's policy), logged as
the server logs one: the seeds committed after `game_started`, every event hash-chained with its commitment and
salt, the server seed revealed and the score at the end, a checkpoint signed with an Ed25519 key; ranked, its
seats played by accounts of a small pool, rated with openskill's Plackett-Luce as games/play/ratings.py rates
them. It prints the games verified a second on one core, the compressed dump's MB per 1,000 games, and from them
the core-hours a year of a busy site (100,000 games a day) takes to verify.

The writer here (`Site`, `write_month`) is what the verifier's tests build their dumps with
(tests/engine/test_audit_verifier.py): it follows docs/AUDIT.md's text, not the verifier's code.
"""

from __future__ import annotations

import argparse
import base64
import gzip
import hashlib
import json
import random
import sys
import tempfile
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from openskill.models import PlackettLuce

from games.engine import begin, redact, score_ended, step
from games.engine import events as ev
from games.engine.codec import event_to_dict
from games.engine.hash_chain import GENESIS_HASH, checkpoint_message, commitment_of, hidden_fields, row_hash
from games.engine.legal import random_legal_move
from games.engine.seeds import FairDraws, Seeds

MODEL = PlackettLuce(mu=25.0, sigma=25.0 / 3)  # games/play/ratings.py's (RATING_MU, RATING_SIGMA)
BUSY_DAY = 100_000  # games a day


def canonical(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def played(rng: random.Random, map_name: str, players: int, *, resign: int | None = None) -> tuple[list[ev.Event], Seeds]:
    """A provably fair game of random legal moves logged as the server logs one; `resign`: a seat whose player
    leaves a third of the way in (the log says `seat_resigned`; the moves go on being random)."""
    seeds = Seeds(rng.randbytes(32), tuple(rng.randbytes(rng.choice((0, 8, 32))) for _ in range(players)))
    game_seed = seeds.game_seed()
    committed = ev.SeedsCommitted(seeds.server_hash, tuple(c.hex() for c in seeds.clients), True)
    state, opening = begin(map_name, players, FairDraws(game_seed), committed=committed)
    log: list[ev.Event] = list(opening)
    decisions = 0
    while not state.finished:
        seat = state.deciders()[0]
        move = random_legal_move(state, seat, rng)
        assert move is not None
        state, made = step(state, seat, move, FairDraws(game_seed, state.shuffles), in_place=True)
        log.extend(made)
        decisions += 1
        if resign is not None and decisions == 60:
            log.append(ev.SeatResigned(seat=resign, bot="greedy"))
    return [*log, ev.SeedsRevealed(seeds.server.hex()), score_ended(state)], seeds


def audit_lines(events: Sequence[ev.Event], started_at: datetime, salts: random.Random) -> list[dict[str, Any]]:
    """The log as GET /api/games/{id}/audit gives it: each event a line, with its commitment, salt and hashes."""
    lines, prev = [], GENESIS_HASH
    for seq, event in enumerate(events, start=1):
        data = event_to_dict(event)
        hidden = hidden_fields(data, event_to_dict(redact(event, None)))
        salt = salts.randbytes(16).hex() if hidden else ""
        commitment = commitment_of(salt, hidden) if hidden else ""
        seat = getattr(event, "seat", None)
        seat = seat if isinstance(seat, int) else None
        at = (started_at + timedelta(seconds=seq)).isoformat()
        digest = row_hash(prev, seq, event.type, seat, data, commitment, salt, at)
        lines.append({
            "seq": seq, "type": event.type, "at": at, "seat": seat, "data": data, "commitment": commitment,
            "salt": salt, "prev_hash": prev, "hash": digest,
        })
        prev = digest
    return lines


def rated_places(scored: ev.GameScored, resigned: set[int]) -> dict[int, int]:
    """games/play/scoring.py's: the score's places, players who resigned after everyone else."""
    stayed = {s.seat: s.place for s in scored.scores if s.seat not in resigned}
    places = {seat: 1 + sum(1 for other in stayed.values() if other < place) for seat, place in stayed.items()}
    places.update(dict.fromkeys(resigned, len(stayed) + 1))
    return places


@dataclass
class Site:
    """What the server holds that a dump's lines carry: its signing key, every account's rating on each map, the
    next RatingChange id."""

    key: Ed25519PrivateKey = field(default_factory=Ed25519PrivateKey.generate)
    key_id: str = "k2026"
    valid_from: str = "2026-01-01T00:00:00Z"
    ratings: dict[tuple[int, str], tuple[float, float]] = field(default_factory=dict)
    next_order: int = 1

    def keys_json(self) -> dict[str, Any]:
        public = self.key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        return {"keys": [{
            "id": self.key_id, "algorithm": "ed25519", "public_key": base64.b64encode(public).decode(),
            "valid_from": self.valid_from, "valid_to": None,
        }]}

    def sign(self, message: bytes) -> str:
        return base64.b64encode(self.key.sign(message)).decode()

    def rate(self, map_name: str, accounts: Sequence[int], places: dict[int, int]) -> list[dict[str, Any]]:
        """games/play/ratings.py's `rate_game`, with openskill: one team of one per seat, an account of several
        seats the mean of its seats' results; its changes in the order of their first seat."""
        priors = {user: self.ratings.get((user, map_name), (MODEL.mu, MODEL.sigma)) for user in accounts}
        teams = [[MODEL.rating(mu=priors[user][0], sigma=priors[user][1])] for user in accounts]
        results = MODEL.rate(teams, ranks=[places[seat] for seat in range(len(accounts))])
        by_account: dict[int, list[Any]] = {}
        for user, (result,) in zip(accounts, results, strict=True):
            by_account.setdefault(user, []).append(result)
        changes = []
        for user in sorted(set(accounts), key=accounts.index):
            rs = by_account[user]
            after = (sum(r.mu for r in rs) / len(rs), sum(r.sigma for r in rs) / len(rs))
            seats = [seat for seat, holder in enumerate(accounts) if holder == user]
            changes.append({
                "user": user, "map": map_name, "place": min(places[s] for s in seats),
                "seat_places": {str(s): places[s] for s in seats}, "mu_before": priors[user][0],
                "sigma_before": priors[user][1], "mu_after": after[0], "sigma_after": after[1],
                "order": self.next_order,
            })
            self.ratings[(user, map_name)] = after
            self.next_order += 1
        return changes

    def game_line(
        self, rng: random.Random, started_at: datetime, accounts: Sequence[int], *, map_name: str = "europe",
        ranked: bool = True, resign: int | None = None,
    ) -> dict[str, Any]:
        """One finished game's line (docs/AUDIT.md, "The game line"), its seats held by `accounts`."""
        game_id = str(uuid.UUID(bytes=rng.randbytes(16), version=4))
        events, seeds = played(rng, map_name, len(accounts), resign=resign)
        lines = audit_lines(events, started_at, rng)
        last = lines[-1]
        checkpoint = {
            "game": game_id, "seq": last["seq"], "head_hash": last["hash"], "key_id": self.key_id,
            "signature": self.sign(checkpoint_message(game_id, last["seq"], last["hash"])),
        }
        last["checkpoint"] = checkpoint
        scored = events[-1]
        assert isinstance(scored, ev.GameScored)
        resigned = {resign} if resign is not None else set()
        ratings = self.rate(map_name, accounts, rated_places(scored, resigned)) if ranked else []
        return {
            "format": "ttr-game/1",
            "game": {
                "id": game_id, "map": map_name, "players": len(accounts), "ranked": ranked, "status": "finished",
                "seats": [
                    {"seat": seat, "username": f"player{user}", "bot": None, "resigned": seat in resigned, "hints": 0}
                    for seat, user in enumerate(accounts)
                ],
                "created_at": started_at.isoformat(), "seq": len(lines), "server_seed_hash": seeds.server_hash,
            },
            "finished_at": last["at"].replace("+00:00", "Z"),
            "audit": lines,
            "seeds": {"server_seed": seeds.server.hex(), "client_seeds": [c.hex() for c in seeds.clients]},
            "checkpoint": checkpoint,
            "ratings": ratings,
        }


def month_bounds(month: str) -> tuple[str, str]:
    year, number = map(int, month.split("-"))
    following = f"{year + number // 12:04d}-{number % 12 + 1:02d}"
    return f"{month}-01T00:00:00Z", f"{following}-01T00:00:00Z"


def write_month(
    directory: Path, site: Site, month: str, lines: Sequence[dict[str, Any]], *, previous: Path | None,
    signed_at: str | None = None,
) -> Path:
    """games-MONTH.jsonl.gz and its signed manifest (docs/AUDIT.md, "The monthly dump"), and keys.json; the
    manifest's path. `previous`: the previous month's manifest (None: the first month)."""
    ordered = sorted(lines, key=lambda line: (line["finished_at"], line["game"]["id"]))
    name = f"games-{month}.jsonl.gz"
    path = directory / name
    with path.open("wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as file:
        for line in ordered:
            file.write(json.dumps(line, separators=(",", ":"), ensure_ascii=False).encode() + b"\n")
    data = path.read_bytes()
    start, until = month_bounds(month)
    manifest: dict[str, Any] = {
        "format": "ttr-dump/1", "month": month, "from": start, "until": until, "count": len(ordered),
        "games": [{"id": line["game"]["id"], "seq": line["audit"][-1]["seq"], "head_hash": line["audit"][-1]["hash"]}
                  for line in ordered],
        "file": {"name": name, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()},
        "previous": (
            {"month": previous.name[6:13], "manifest_sha256": hashlib.sha256(previous.read_bytes()).hexdigest()}
            if previous is not None else None
        ),
        "key_id": site.key_id, "signed_at": signed_at or until.replace("T00:00:00Z", "T00:05:00Z"),
    }
    manifest["signature"] = site.sign(b"ttr-dump-manifest/1\n" + canonical(manifest))
    manifest_path = directory / f"games-{month}.manifest.json"
    manifest_path.write_bytes(canonical(manifest) + b"\n")
    (directory / "keys.json").write_text(json.dumps(site.keys_json()))
    return manifest_path


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--map", default="europe")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", type=Path, help="write the dump here and keep it (default: a temporary directory)")
    args = parser.parse_args(argv)

    from games.audit.verifier import verify_dumps

    rng, site = random.Random(args.seed), Site()
    accounts = list(range(1, 4 * args.players + 1))  # a small pool: every account plays many games, chained
    began = time.perf_counter()
    start = datetime(2026, 11, 1, tzinfo=UTC)
    lines = [
        site.game_line(rng, start + timedelta(minutes=20 * n), rng.sample(accounts, args.players), map_name=args.map)
        for n in range(args.games)
    ]
    written = time.perf_counter() - began
    with tempfile.TemporaryDirectory() as temporary:
        directory = args.keep or Path(temporary)
        directory.mkdir(parents=True, exist_ok=True)
        manifest = write_month(directory, site, "2026-11", lines, previous=None)
        size = (directory / "games-2026-11.jsonl.gz").stat().st_size
        began = time.perf_counter()
        cpu = time.process_time()
        verified = verify_dumps([manifest], jobs=1, from_month="2026-11", progress=False)
        seconds, cpu = time.perf_counter() - began, time.process_time() - cpu
    if verified.report.count:
        print(f"the dump does not verify: {[str(p) for p in verified.report.first]}")
        return 1
    per_second = args.games / cpu
    mb_per_1000 = size / args.games * 1000 / 1e6
    year = 365 * BUSY_DAY
    print(f"games: {args.games} ({args.map}, {args.players} players, ranked, provably fair, random moves), "
          f"{verified.report.events:,} events ({verified.report.events / args.games:.0f} a game), "
          f"written in {written:.1f} s")
    print(f"verify-dump --jobs 1: {seconds:.2f} s wall, {cpu:.2f} s CPU: {per_second:.1f} games/s per core")
    print(f"dump: {size / 1e6:.2f} MB compressed, {mb_per_1000:.2f} MB per 1,000 games")
    print(f"a year at {BUSY_DAY:,} games a day: {year / per_second / 3600:,.0f} core-hours to verify, "
          f"{year / 1000 * mb_per_1000 / 1e3:,.1f} GB of dumps")
    return 0


if __name__ == "__main__":
    sys.exit(main())
