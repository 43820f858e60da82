"""The verification of monthly dumps, month by month in order (docs/AUDIT.md, "The verifier").

For each month: the manifest on its own and its link to the previous month's (games/audit/dump.py), the file's
size and SHA-256 against the manifest, then the file read line by line, never whole: each line's checks
(games/audit/game_line.py) run here or, with `jobs` > 1, in a pool of processes, a few lines a task and a few
tasks in flight, the results taken back in the file's order. Here each game is then matched with the manifest
(every game of the file in it and every game of it in the file, in the same order, with the same seq and head
hash), its `finished_at` is checked to lie in the month and after the game before it, and its rating changes are
chained to each account's previous ones (games/audit/rating_chain.py), across the months verified together.
"""

from __future__ import annotations

import gzip
import multiprocessing
import time
import zlib
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from multiprocessing.pool import AsyncResult, Pool
from pathlib import Path
from typing import Any

from games.audit.dump import Dump, Unreadable, dumps_named, file_digest, manifest_problems, month_bounds, object_at
from games.audit.game_line import GameChecked, line_checked
from games.audit.keys import KeyRing, read_key_ring
from games.audit.progress import Progress
from games.audit.rating_chain import RatingChain
from games.audit.report import Problem, Report
from games.engine.hash_chain import moment

LINES_A_TASK = 4  # game lines a worker checks per task
TASKS_IN_FLIGHT = 3  # per worker: what is read ahead of the checks is bounded


@dataclass
class Month:
    month: str
    games: int = 0
    events: int = 0
    key_id: str = ""


@dataclass
class Verified:
    report: Report
    months: list[Month] = field(default_factory=list)
    seconds: float = 0.0
    jobs: int = 1
    ratings_linked: int = 0  # rating changes chained to the account's previous one
    ratings_across_gaps: int = 0  # of them, those taken as given: a change not in the dumps may lie between


def keys_for(dump: Dump, keys: Path | None, read: dict[Path, KeyRing]) -> KeyRing:
    """The keys to check a dump with: `keys` when given, else the keys.json beside the dump (each read once)."""
    path = keys if keys is not None else dump.manifest_path.with_name("keys.json")
    if path not in read:
        try:
            read[path] = read_key_ring(path)
        except OSError as error:
            raise Unreadable(
                f"{path}: {error.strerror or error} (the keys: --keys KEYS.json, or keys.json beside the dump)"
            ) from error
        except (ValueError, KeyError, TypeError, AttributeError) as error:
            raise Unreadable(f"{path}: not a keys file as GET /api/keys gives it ({error!r})") from error
    return read[path]


def verify_dumps(
    paths: Sequence[Path], *, keys: Path | None = None, jobs: int = 1, from_month: str | None = None,
    progress: bool = True,
) -> Verified:
    """Verify every dump the paths name; Unreadable when a file cannot be read at all."""
    started = time.perf_counter()
    dumps = dumps_named(paths)
    read: dict[Path, KeyRing] = {}
    rings = [keys_for(dump, keys, read) for dump in dumps]
    verified = Verified(Report(), jobs=jobs)
    shown = Progress(sum(dump.count for dump in dumps), enabled=progress)
    chain = RatingChain()
    with _Checker(jobs) as checker:
        for dump, ring in zip(dumps, rings, strict=True):
            month = Month(dump.month, key_id=str(dump.manifest.get("key_id")))
            verified.months.append(month)
            _verify_month(dump, ring, from_month, checker, chain, verified.report, month, shown)
    for problem in chain.finish():
        verified.report.add(problem)
    verified.ratings_linked, verified.ratings_across_gaps = chain.linked, chain.across_gaps
    shown.finish(verified.report.games)
    verified.seconds = time.perf_counter() - started
    return verified


def _verify_month(
    dump: Dump, ring: KeyRing, from_month: str | None, checker: _Checker, chain: RatingChain, report: Report,
    month: Month, shown: Progress,
) -> None:
    name = dump.month
    report.add_all(name, None, manifest_problems(dump, ring, chain_starts=from_month))
    size, sha256 = file_digest(dump.file_path)
    named = object_at(dump.manifest, "file")
    if (named.get("bytes"), named.get("sha256")) != (size, sha256):
        report.add(Problem(name, None, (
            f"file {dump.file_path.name}: {size} bytes, SHA-256 {sha256}; the manifest says {named.get('bytes')} bytes, "
            f"SHA-256 {named.get('sha256')} (the file is not the one signed)"
        )))
    listed = dump.manifest["games"]
    position = {str(entry.get("id")): index for index, entry in enumerate(listed)}
    found = bytearray(len(listed))
    start, until = (moment(bound) for bound in month_bounds(name))
    matched = -1  # the manifest's position of the last game matched
    before: tuple[datetime, str] | None = None  # the last game's (finished_at, id)
    broken: list[str] = []
    lines = 0
    for game in checker.checked(_lines(dump.file_path, broken), ring):
        lines += 1
        month.games += 1
        month.events += game.events
        report.games += 1
        report.events += game.events
        report.add_all(name, game.id, game.problems)
        index = position.get(game.id)
        if index is None:
            report.add(Problem(name, game.id, "in the file, not in the manifest"))
        else:
            if found[index]:
                report.add(Problem(name, game.id, "in the file twice"))
            elif index < matched:
                where = f"its game {index + 1}, after game {matched + 1}"
                report.add(Problem(name, game.id, f"out of the manifest's order ({where})"))
            found[index] = 1
            matched = max(matched, index)
            entry: dict[str, Any] = listed[index]
            if (entry.get("seq"), entry.get("head_hash")) != (game.seq, game.head_hash):
                report.add(Problem(name, game.id, (
                    f"the manifest says seq {entry.get('seq')} head {entry.get('head_hash')}, the log's last line is "
                    f"seq {game.seq} head {game.head_hash}"
                )))
        before = _finished_problems(game, start, until, before, report, name)
        for problem in chain.add(name, game.id, game.ratings):
            report.add(problem)
        shown.update(report.games)
    report.add_all(name, None, broken)
    for index, entry in enumerate(listed):
        if not found[index]:
            report.add(Problem(name, str(entry.get("id")), "in the manifest, not in the file"))
    if lines != len(listed):
        report.add(Problem(name, None, f"the file holds {lines} games, the manifest lists {len(listed)}"))


def _finished_problems(
    game: GameChecked, start: datetime, until: datetime, before: tuple[datetime, str] | None, report: Report, name: str
) -> tuple[datetime, str] | None:
    """The game's finished_at within the month, and the file in (finished_at, id) order; the new last key."""
    if game.finished_at is None:
        return before
    try:
        at = moment(game.finished_at)
    except (ValueError, TypeError):
        report.add(Problem(name, game.id, f"finished_at {game.finished_at!r} is not a time"))
        return before
    if not start <= at < until:
        report.add(Problem(name, game.id, f"finished at {game.finished_at}, outside {name}"))
    key = (at, game.id)
    if before is not None and key < before:
        report.add(Problem(name, game.id, f"out of order: finished at {game.finished_at}, before the game above it"))
    return key


def _lines(path: Path, broken: list[str]) -> Iterator[bytes]:
    """The file's lines, decompressed as they are read; where it cannot be decompressed, said in `broken`."""
    number = 0
    try:
        with gzip.open(path, "rb") as file:
            for line in file:
                number += 1
                if line.strip():
                    yield line
    except (OSError, EOFError, zlib.error) as error:
        broken.append(f"file {path.name}: cannot be decompressed after line {number} ({error})")


def _checked_chunk(lines: list[bytes], ring: KeyRing) -> list[GameChecked]:
    return [line_checked(line, ring) for line in lines]


class _Checker:
    """The lines' checks, in this process (jobs = 1) or in a pool of `jobs` processes, results in order."""

    def __init__(self, jobs: int) -> None:
        self.jobs = jobs
        self.pool: Pool | None = None

    def __enter__(self) -> _Checker:
        if self.jobs > 1:
            self.pool = multiprocessing.get_context().Pool(self.jobs)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.pool is not None:
            self.pool.terminate()
            self.pool.join()

    def checked(self, lines: Iterator[bytes], ring: KeyRing) -> Iterator[GameChecked]:
        if self.pool is None:
            for line in lines:
                yield line_checked(line, ring)
            return
        pending: deque[AsyncResult[list[GameChecked]]] = deque()
        chunk: list[bytes] = []
        for line in lines:
            chunk.append(line)
            if len(chunk) == LINES_A_TASK:
                pending.append(self.pool.apply_async(_checked_chunk, (chunk, ring)))
                chunk = []
                while len(pending) >= self.jobs * TASKS_IN_FLIGHT:
                    yield from pending.popleft().get()
        if chunk:
            pending.append(self.pool.apply_async(_checked_chunk, (chunk, ring)))
        while pending:
            yield from pending.popleft().get()
