"""The monthly dumps (docs/AUDIT.md, "The monthly dump"): every finished game of a month (UTC) as game lines,
gzip-compressed, and its manifest, signed with the checkpoint signing key and chained to the month before by the
SHA-256 of that month's manifest; `keys.json` (GET /api/keys's body) beside them.

A month is dumped once it has been over for GRACE (a move that ended a game just before midnight has committed) and
every game finished in it is scored (its checkpoint signed); until then it waits, and the months after it with it,
so the chain is written in order. The chain starts at the first month with a finished game (or at the first month
the directory holds) and has no hole: a month without a game gets a dump of count 0. A month's files are written
under temporary names and renamed into place, the data file first, the manifest last (the manifest is what says the
month is dumped), and a month with a manifest is never written again. One dumper at a time: a lock file in the
directory.
"""

from __future__ import annotations

import base64
import fcntl
import gzip
import hashlib
import json
import os
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Any

from django.db.models import Min, QuerySet
from django.utils import timezone

from games.api import game_lines
from games.api.typed_json import to_json
from games.engine.hash_chain import GENESIS_HASH
from games.store.models import Game
from games.store.shape_marks import Schema
from games.trust import signing

FORMAT = "ttr-dump/1"
SIGNED_PREFIX = b"ttr-dump-manifest/1\n"
GRACE = timedelta(hours=1)  # how long a month has been over before it is dumped
KEYS_FILE = "keys.json"
NAME = re.compile(r"games-(\d{4})-(0[1-9]|1[0-2])\.(jsonl\.gz|manifest\.json)|keys\.json")
NAME_PATTERN = "^(games-[0-9]{4}-(0[1-9]|1[0-2])\\.(jsonl\\.gz|manifest\\.json)|keys\\.json)$"  # the schema's
_MANIFEST = re.compile(r"games-(\d{4})-(0[1-9]|1[0-2])\.manifest\.json")


class NotDue(RuntimeError):
    """A month that may not be dumped yet, or not here (the message says why)."""


@dataclass(frozen=True, order=True)
class Month:
    """A month of UTC."""

    year: int
    month: int

    @classmethod
    def of(cls, at: datetime) -> Month:
        at = at.astimezone(UTC)
        return cls(at.year, at.month)

    @classmethod
    def parsed(cls, text: str) -> Month:
        """`YYYY-MM`; ValueError otherwise."""
        found = re.fullmatch(r"(\d{4})-(0[1-9]|1[0-2])", text)
        if found is None:
            raise ValueError(f"a month is YYYY-MM, not {text[:20]!r}")
        return cls(int(found[1]), int(found[2]))

    @property
    def name(self) -> str:
        return f"{self.year:04d}-{self.month:02d}"

    @property
    def start(self) -> datetime:
        return datetime(self.year, self.month, 1, tzinfo=UTC)

    @property
    def end(self) -> datetime:
        return self.next().start

    def next(self) -> Month:
        return Month(self.year + self.month // 12, self.month % 12 + 1)

    def previous(self) -> Month:
        return Month(self.year - (self.month == 1), (self.month - 2) % 12 + 1)

    @property
    def file_name(self) -> str:
        return f"games-{self.name}.jsonl.gz"

    @property
    def manifest_name(self) -> str:
        return f"games-{self.name}.manifest.json"


def canonical(value: Any) -> bytes:
    """The manifest's bytes before its newline, and what its signature covers (after SIGNED_PREFIX)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def _second_text(at: datetime) -> str:
    return at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


# ---------------------------------------------------------------------------------------------------------
# Which months are due, and writing one.


def dumped(directory: Path) -> list[Month]:
    """The months the directory holds a manifest of, oldest first."""
    if not directory.is_dir():
        return []
    found = (_MANIFEST.fullmatch(entry.name) for entry in os.scandir(directory))
    return sorted(Month(int(m[1]), int(m[2])) for m in found if m is not None)


def first_month() -> Month | None:
    """The month of the first finished game a dump holds, where the chain starts (None: no such game yet)."""
    first = game_lines.listed_finished().aggregate(first=Min("finished_at"))["first"]
    return Month.of(first) if first is not None else None


def over(month: Month, now: datetime) -> bool:
    return now >= month.end + GRACE


def unscored(month: Month) -> int:
    """How many of the month's games are not scored yet (the month waits for them)."""
    return _games_of(month).filter(scored_at__isnull=True).count()


def due(directory: Path, now: datetime) -> list[Month]:
    """The months to dump now, in order: after the last one dumped (or from the first month with a game), those
    over, up to the first one with a game not yet scored."""
    held = dumped(directory)
    start = held[-1].next() if held else first_month()
    months: list[Month] = []
    while start is not None and over(start, now) and not unscored(start):
        months.append(start)
        start = start.next()
    return months


def dump_due(directory: Path, now: datetime | None = None) -> list[Month]:
    """Dump every month due (beat's task, `manage.py dump_games`); the months written. Another dumper at work: none."""
    at = now or timezone.now()
    with _locked(directory) as locked:
        if not locked:
            return []
        months = due(directory, at)
        for month in months:
            _write(month, directory, at)
        return months


def dump_month(month: Month, directory: Path, now: datetime | None = None) -> bool:
    """Dump `month` alone: False when it is dumped already. NotDue when it may not be yet (not over, a game not
    scored, the month before not dumped) or another dumper is at work."""
    at = now or timezone.now()
    with _locked(directory) as locked:
        if not locked:
            raise NotDue("another dump is being written in that directory")
        if (directory / month.manifest_name).exists():
            return False
        _refusal(month, directory, at)
        _write(month, directory, at)
        return True


def _refusal(month: Month, directory: Path, now: datetime) -> None:
    if not over(month, now):
        raise NotDue(f"{month.name} is not over yet (a month is dumped {GRACE} after its end)")
    if waiting := unscored(month):
        raise NotDue(f"{month.name} has {waiting} game(s) not scored yet: it waits for them")
    held = dumped(directory)
    start = held[0] if held else first_month()
    if start is None or month < start:
        raise NotDue(f"the chain starts at {start.name}" if start else "no game is finished yet: nothing to dump")
    if month != start and month.previous() not in held:
        raise NotDue(f"dump {month.previous().name} first: the chain has no hole")


def _games_of(month: Month) -> QuerySet[Game]:
    return game_lines.listed_finished().filter(finished_at__gte=month.start, finished_at__lt=month.end)


def _write(month: Month, directory: Path, now: datetime) -> dict[str, Any]:
    """The month's data file, then its signed manifest, then keys.json."""
    data_path = directory / month.file_name
    games = _write_lines(month, data_path)
    unsigned: dict[str, Any] = {
        "format": FORMAT, "month": month.name, "from": _second_text(month.start), "until": _second_text(month.end),
        "count": len(games), "games": games,
        "file": {"name": month.file_name, "bytes": data_path.stat().st_size, "sha256": _sha256(data_path)},
        "previous": _previous(month, directory),
    }
    key = signing.signing_key(now)
    assert key.private is not None
    unsigned.update(key_id=key.id, signed_at=_second_text(now))
    signature = key.private.sign(SIGNED_PREFIX + canonical(unsigned))
    manifest = {**unsigned, "signature": base64.b64encode(signature).decode()}
    _publish(directory / month.manifest_name, canonical(manifest) + b"\n", replace=False)
    _publish(directory / KEYS_FILE, canonical(to_json(signing.signing_keys())) + b"\n")
    return manifest


def _write_lines(month: Month, path: Path) -> list[dict[str, Any]]:
    """The month's game lines, gzip-compressed (no name, no time in the header: the same games, the same bytes),
    into `path`; each game's id, seq and head hash, in the file's order."""
    games: list[dict[str, Any]] = []
    with _written(path) as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as packed:
        for line in game_lines.game_lines(_games_of(month)):
            packed.write(game_lines.encoded(line))
            head = line["audit"][-1]["hash"] if line["audit"] else GENESIS_HASH
            games.append({"id": line["game"]["id"], "seq": line["game"]["seq"], "head_hash": head})
    return games


def _previous(month: Month, directory: Path) -> dict[str, str] | None:
    before = directory / month.previous().manifest_name
    if not before.exists():
        return None  # the chain's first month (`_refusal` and `due` see that no other is without one)
    return {"month": month.previous().name, "manifest_sha256": _sha256(before)}


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as file:
        while block := file.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


@contextmanager
def _written(path: Path) -> Iterator[Any]:
    """A file written under a temporary name beside `path`, flushed to disk and renamed to `path` when whole."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with temporary.open("wb") as file:
            yield file
            file.flush()
            os.fsync(file.fileno())
        temporary.replace(path)
        _sync_directory(path.parent)
    finally:
        temporary.unlink(missing_ok=True)


def _publish(path: Path, content: bytes, *, replace: bool = True) -> None:
    """`content` at `path`, whole or not at all; with `replace` False an existing file is never overwritten
    (FileExistsError)."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with temporary.open("wb") as file:
            file.write(content)
            file.flush()
            os.fsync(file.fileno())
        if replace:
            temporary.replace(path)
        else:
            os.link(temporary, path)  # fails where the file exists: a month's manifest is written once
        _sync_directory(path.parent)
    finally:
        temporary.unlink(missing_ok=True)


def _sync_directory(directory: Path) -> None:
    descriptor = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


@contextmanager
def _locked(directory: Path) -> Iterator[bool]:
    """The directory's dump lock, if no other process holds it (True) or not (False)."""
    directory.mkdir(parents=True, exist_ok=True)
    with (directory / ".lock").open("a") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


# ---------------------------------------------------------------------------------------------------------
# What GET /api/dumps lists and /dumps/<name> serves.


@dataclass(frozen=True, slots=True, kw_only=True)
class DumpFile:
    name: str
    bytes: Annotated[int, Schema(minimum=0)]
    sha256: str
    url: Annotated[str, Schema(format="uri")]


@dataclass(frozen=True, slots=True, kw_only=True)
class Dump:
    month: str
    count: Annotated[int, Schema(minimum=0)]
    file: DumpFile
    manifest: DumpFile


@dataclass(frozen=True, slots=True, kw_only=True)
class Dumps:
    """The monthly dumps, newest first, and where the keys that signed them are."""

    dumps: tuple[Dump, ...]
    keys_url: Annotated[str, Schema(format="uri")]


def listed(directory: Path, url: Callable[[str], str], keys_url: str) -> Dumps:
    """The dumps the directory holds, newest first; `url(name)`: where a file is served; `keys_url`: where the keys
    are while the directory holds no keys.json."""
    dumps = []
    for month in reversed(dumped(directory)):
        path = directory / month.manifest_name
        stat = path.stat()
        file, digest = _manifest_facts(str(path), stat.st_mtime_ns, stat.st_size)
        dumps.append(Dump(
            month=month.name, count=file["count"],
            file=DumpFile(name=file["name"], bytes=file["bytes"], sha256=file["sha256"], url=url(file["name"])),
            manifest=DumpFile(name=path.name, bytes=stat.st_size, sha256=digest, url=url(path.name)),
        ))
    return Dumps(dumps=tuple(dumps), keys_url=url(KEYS_FILE) if (directory / KEYS_FILE).is_file() else keys_url)


@lru_cache(maxsize=256)
def _manifest_facts(path: str, version: int, size: int) -> tuple[dict[str, Any], str]:
    """A manifest's data file (name, bytes, sha256) and game count, and the manifest's own SHA-256; read once per
    version of the file (a manifest of a big month is megabytes)."""
    content = Path(path).read_bytes()
    manifest = json.loads(content)
    return {**manifest["file"], "count": manifest["count"]}, hashlib.sha256(content).hexdigest()


def served(directory: Path, name: str) -> Path | None:
    """The file `/dumps/<name>` serves: a month's data file or manifest the directory holds a manifest of, or
    keys.json; None for any other name (a name is matched whole, never joined to the directory unchecked)."""
    found = NAME.fullmatch(name)
    if found is None:
        return None
    if name != KEYS_FILE and Month(int(found[1]), int(found[2])) not in set(dumped(directory)):
        return None
    path = directory / name
    return path if path.is_file() else None
