"""Checking a tournament from its audit log alone, and the results its games' own logs hold (docs/TOURNAMENTS.md,
"Checking a tournament"). Pure: no framework, so the same check runs on the server (`verify.py`) and on an export.

The log is replayed line by line: its hash chain; who registered and withdrew; at each `round_paired`, the standings
so far and the pairing recomputed with the pure functions the server paired with (`pairing.py`), from the seed the
`ended` line reveals; each `game_finished` against the game's own record; the final standings recomputed. Until the
tournament is over its seed is secret, so the pairings cannot be recomputed yet: `fair` is None then.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from games.engine.hash_chain import GENESIS_HASH, row_hash
from games.engine.seeds import Seeds, Stream
from games.tournaments import pairing, standings


@dataclass(frozen=True, slots=True)
class GameRecord:
    """What a game's own log says of it: seat names in order, and (once scored) places and scores by seat."""

    seats: tuple[str, ...]
    places: tuple[int, ...] | None
    scores: tuple[int, ...] | None


@dataclass
class Check:
    problems: list[str] = field(default_factory=list)
    fair: bool | None = None
    head_hash: str = GENESIS_HASH


@dataclass
class _Replay:
    settings: pairing.Settings | None = None
    format: str = ""
    seed_hash: str = ""
    entrants: dict[str, standings.Entrant] = field(default_factory=dict)
    seeds: dict[str, str] = field(default_factory=dict)
    results: list[standings.Result] = field(default_factory=list)
    byes: dict[str, int] = field(default_factory=dict)
    seated: dict[str, str] = field(default_factory=dict)  # username -> game of their unfinished table
    last_table: dict[str, frozenset[str]] = field(default_factory=dict)
    started: bool = False
    seed: bytes = b""
    server_seed: bytes | None = None


def check(lines: Sequence[Mapping[str, Any]], games: Mapping[str, GameRecord]) -> Check:
    """Every problem of the tournament whose audit `lines` these are (in order); `games`: each game's own record."""
    result = Check()
    result.problems.extend(chain_problems(lines))
    result.head_hash = lines[-1]["hash"] if lines else GENESIS_HASH
    replay = _Replay()
    ended = next((line for line in lines if line["type"] == "ended"), None)
    if ended is not None:
        replay.server_seed = bytes.fromhex(ended["data"]["server_seed"])
    pairings_checked = True
    for line in lines:
        pairings_checked &= _step(replay, line, games, result.problems)
    if ended is not None and replay.server_seed is not None:
        result.fair = pairings_checked and not result.problems
    return result


def chain_problems(lines: Sequence[Mapping[str, Any]]) -> list[str]:
    problems, prev = [], GENESIS_HASH
    for expected, line in enumerate(lines, start=1):
        if line["seq"] != expected:
            problems.append(f"event {expected}: seq {line['seq']}")
        if line["prev_hash"] != prev:
            problems.append(f"event {line['seq']}: its prev_hash is not the hash before it")
        if line_hash(line) != line["hash"]:
            problems.append(f"event {line['seq']}: its hash does not match its content")
        prev = line["hash"]
    return problems


def line_hash(line: Mapping[str, Any]) -> str:
    return row_hash(line["prev_hash"], line["seq"], line["type"], None, line["data"], "", "", line["at"])


def _step(replay: _Replay, line: Mapping[str, Any], games: Mapping[str, GameRecord], problems: list[str]) -> bool:
    data, kind, seq = line["data"], line["type"], line["seq"]
    if kind == "created":
        replay.settings = pairing.Settings(data["table_size"], data["smaller_tables"], data["bots_fill"], data["bot_level"])
        replay.format, replay.seed_hash = data["format"], data["server_seed_hash"]
    elif kind == "registered":
        replay.entrants[data["player"]] = standings.Entrant(data["player"], float(data["rating"]))
        replay.seeds[data["player"]] = data["client_seed"]
    elif kind == "withdrawn":
        _withdraw(replay, data["player"])
    elif kind == "started":
        _start(replay, data, seq, problems)
    elif kind == "round_paired":
        return _paired(replay, data, seq, games, problems)
    elif kind == "game_finished":
        _finished(replay, data, seq, games, problems)
    elif kind == "ended":
        _ended(replay, data, seq, problems)
    return True


def _withdraw(replay: _Replay, username: str) -> None:
    entrant = replay.entrants.get(username)
    if entrant is None:
        return
    if replay.started:
        replay.entrants[username] = standings.Entrant(username, entrant.rating, withdrawn=True)
    else:
        del replay.entrants[username]
        replay.seeds.pop(username, None)


def _start(replay: _Replay, data: Mapping[str, Any], seq: int, problems: list[str]) -> None:
    replay.started = True
    if list(data["players"]) != list(replay.entrants):
        problems.append(f"event {seq}: the players started are not those registered")
    if replay.server_seed is not None:
        if hashlib.sha256(replay.server_seed).hexdigest() != replay.seed_hash:
            problems.append(f"event {seq}: the revealed server seed does not match the hash published at creation")
        clients = tuple(bytes.fromhex(replay.seeds[name]) for name in data["players"] if name in replay.seeds)
        replay.seed = Seeds(replay.server_seed, clients).game_seed()


def _paired(
    replay: _Replay, data: Mapping[str, Any], seq: int, games: Mapping[str, GameRecord], problems: list[str]
) -> bool:
    tables = [tuple(table["seats"]) for table in data["tables"]]
    for table in data["tables"]:
        record = games.get(table["game"])
        if record is None or record.seats != tuple(table["seats"]):
            problems.append(f"event {seq}: game {table['game']} does not seat the table paired")
    if replay.seed and replay.settings is not None:
        expected = _recompute(replay, data)
        if [list(t) for t in expected.tables] != [list(t) for t in tables] or list(expected.byes) != list(
            data.get("byes", [])
        ):
            problems.append(f"event {seq}: round {data['round']}'s tables are not those its inputs give")
    if replay.format == "arena":
        _pool_problem(replay, data, seq, problems)
    for name in data.get("byes", []):
        replay.byes[name] = replay.byes.get(name, 0) + 1
    for table in data["tables"]:
        for name in table["seats"]:
            replay.seated[name] = table["game"]
            replay.last_table[name] = frozenset(table["seats"]) - {name}
    return bool(replay.seed)


def _recompute(replay: _Replay, data: Mapping[str, Any]) -> pairing.Pairing:
    assert replay.settings is not None
    rows = standings.standings(replay.entrants.values(), replay.results, replay.byes, replay.seed)
    if replay.format == "swiss":
        met = standings.meetings(replay.results)
        return pairing.pair_swiss(rows, met, replay.settings, Stream(replay.seed, f"round:{data['round']}"))
    by_name = {row.player: row for row in rows}
    pool = [
        pairing.Waiter(w["player"], by_name[w["player"]].points, by_name[w["player"]].rating,
                       by_name[w["player"]].draw, w["since"], replay.last_table.get(w["player"], frozenset()))
        for w in data["pool"] if w["player"] in by_name
    ]
    return pairing.pair_arena(pool, replay.settings, Stream(replay.seed, f"pairing:{data['round']}"), now=data["now"],
                              wait_limit=data.get("wait_limit", 20.0))


def _pool_problem(replay: _Replay, data: Mapping[str, Any], seq: int, problems: list[str]) -> None:
    waiting = {w["player"] for w in data["pool"]}
    expected = {name for name, e in replay.entrants.items() if not e.withdrawn and name not in replay.seated}
    if waiting != expected:
        problems.append(f"event {seq}: the pool paired from is not the people the log shows waiting")


def _finished(
    replay: _Replay, data: Mapping[str, Any], seq: int, games: Mapping[str, GameRecord], problems: list[str]
) -> None:
    record = games.get(data["game"])
    if record is None:
        problems.append(f"event {seq}: game {data['game']} is not on record")
    elif data["places"] is not None and (
        list(record.places or ()) != list(data["places"]) or list(record.scores or ()) != list(data["scores"])
    ):
        problems.append(f"event {seq}: game {data['game']}'s places or scores differ from its own log")
    for name in data["seats"]:
        if replay.seated.get(name) == data["game"]:
            del replay.seated[name]
    if data["places"] is not None:
        replay.results.append(standings.Result(
            data["game"], data["round"], tuple(data["seats"]), tuple(data["places"]), tuple(data["scores"])
        ))


def _ended(replay: _Replay, data: Mapping[str, Any], seq: int, problems: list[str]) -> None:
    if not replay.seed:
        return
    rows = standings.standings(replay.entrants.values(), replay.results, replay.byes, replay.seed)
    mine = [(r.player, Fraction(r.points)) for r in rows]
    logged = [(r["player"], Fraction(r["points"])) for r in data["standings"]]
    if mine != logged:
        problems.append(f"event {seq}: the final standings are not those the games give")
