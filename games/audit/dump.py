"""A month's dump (docs/AUDIT.md, "The monthly dump"): finding the dumps a command names, reading a manifest, and
the checks of the manifest and the file's bytes that need no game replayed.

A dump of month YYYY-MM is `games-YYYY-MM.jsonl.gz` and `games-YYYY-MM.manifest.json` side by side; the manifest's
bytes are `canonical(manifest) + b"\\n"`, its signature an Ed25519 signature of
`b"ttr-dump-manifest/1\\n" + canonical(manifest without "signature")`, and its `previous` the SHA-256 of the
previous month's manifest file, which chains the months.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from games.audit.keys import KeyRing, signature_problems
from games.engine.hash_chain import moment

FORMAT = "ttr-dump/1"
SIGNATURE_DOMAIN = b"ttr-dump-manifest/1\n"
_MONTH = re.compile(r"^\d{4}-(0[1-9]|1[0-2])$")
_MANIFEST_NAME = re.compile(r"^games-(\d{4}-\d{2})\.manifest\.json$")
_FILE_NAME = re.compile(r"^games-(\d{4}-\d{2})\.jsonl\.gz$")


class Unreadable(Exception):
    """A file the verifier needs cannot be read (missing, not JSON, not a manifest): exit 2."""


def canonical(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def signed_message(manifest: dict[str, Any]) -> bytes:
    """What a manifest's signature signs."""
    return SIGNATURE_DOMAIN + canonical({key: value for key, value in manifest.items() if key != "signature"})


def object_at(manifest: dict[str, Any], key: str) -> dict[str, Any]:
    """manifest[key] when it is an object, else an empty one (its fields then compare as missing)."""
    value = manifest.get(key)
    return value if isinstance(value, dict) else {}


def is_month(text: object) -> bool:
    return isinstance(text, str) and bool(_MONTH.match(text))


def month_start(month: str) -> datetime:
    year, number = map(int, month.split("-"))
    return datetime(year, number, 1, tzinfo=UTC)


def next_month(month: str) -> str:
    year, number = map(int, month.split("-"))
    return f"{year + number // 12:04d}-{number % 12 + 1:02d}"


def previous_month(month: str) -> str:
    year, number = map(int, month.split("-"))
    return f"{year - (number == 1):04d}-{(number - 2) % 12 + 1:02d}"


def month_bounds(month: str) -> tuple[str, str]:
    """The month's `from` and `until` as a manifest writes them."""
    return f"{month}-01T00:00:00Z", f"{next_month(month)}-01T00:00:00Z"


def file_name(month: str) -> str:
    return f"games-{month}.jsonl.gz"


def manifest_name(month: str) -> str:
    return f"games-{month}.manifest.json"


@dataclass(frozen=True)
class Dump:
    month: str
    manifest_path: Path
    file_path: Path
    manifest: dict[str, Any]
    manifest_bytes: bytes

    @property
    def count(self) -> int:
        count = self.manifest.get("count")
        return count if isinstance(count, int) else len(self.manifest.get("games") or ())


def dump_named(manifest_path: Path) -> Dump:
    """The dump whose manifest is at `manifest_path`; Unreadable when it or its file cannot be read."""
    found = _MANIFEST_NAME.match(manifest_path.name)
    if found is None or not is_month(found.group(1)):
        raise Unreadable(f"{manifest_path}: not the name of a dump's manifest (games-YYYY-MM.manifest.json)")
    month = found.group(1)
    try:
        manifest_bytes = manifest_path.read_bytes()
        manifest = json.loads(manifest_bytes)
    except OSError as error:
        raise Unreadable(f"{manifest_path}: {error.strerror or error}") from error
    except ValueError as error:
        raise Unreadable(f"{manifest_path}: not JSON ({error})") from error
    if not isinstance(manifest, dict) or not isinstance(manifest.get("games"), list):
        raise Unreadable(f"{manifest_path}: not a dump's manifest (no list of games)")
    if not all(isinstance(entry, dict) for entry in manifest["games"]):
        raise Unreadable(f"{manifest_path}: not a dump's manifest (its games are not objects)")
    file_path = manifest_path.with_name(file_name(month))
    if not file_path.is_file():
        raise Unreadable(f"{file_path}: no such file (the dump of {month} named by {manifest_path.name})")
    return Dump(month, manifest_path, file_path, manifest, manifest_bytes)


def dumps_named(paths: Sequence[Path]) -> list[Dump]:
    """The dumps the paths name, in month order: a .jsonl.gz file or its manifest names its month, a directory
    every month it holds. Unreadable when a path names none, or one cannot be read."""
    manifests: list[Path] = []
    for path in paths:
        if path.is_dir():
            inside = sorted(p for p in path.iterdir() if _MANIFEST_NAME.match(p.name))
            for file in sorted(path.iterdir()):
                found = _FILE_NAME.match(file.name)
                if found is not None and not (path / manifest_name(found.group(1))).exists():
                    raise Unreadable(f"{file}: no manifest beside it ({manifest_name(found.group(1))})")
            if not inside:
                raise Unreadable(f"{path}: no dump in it (games-YYYY-MM.manifest.json)")
            manifests += inside
        elif (found := _FILE_NAME.match(path.name)) is not None:
            manifests.append(path.with_name(manifest_name(found.group(1))))
        elif _MANIFEST_NAME.match(path.name):
            manifests.append(path)
        elif not path.exists():
            raise Unreadable(f"{path}: no such file or directory")
        else:
            raise Unreadable(f"{path}: not a dump (games-YYYY-MM.jsonl.gz, its manifest, or a directory of them)")
    unique = {p.resolve(): p for p in manifests}
    dumps = [dump_named(p) for p in unique.values()]
    months = [d.month for d in dumps]
    twice = sorted({m for m in months if months.count(m) > 1})
    if twice:
        raise Unreadable(f"two dumps of {twice[0]} named")
    return sorted(dumps, key=lambda dump: dump.month)


def file_digest(path: Path) -> tuple[int, str]:
    """The file's size in bytes and its SHA-256 (hex), read in blocks."""
    digest, size = hashlib.sha256(), 0
    try:
        with path.open("rb") as file:
            while block := file.read(1 << 20):
                digest.update(block)
                size += len(block)
    except OSError as error:
        raise Unreadable(f"{path}: {error.strerror or error}") from error
    return size, digest.hexdigest()


def manifest_problems(dump: Dump, ring: KeyRing, *, chain_starts: str | None = None) -> list[str]:
    """The manifest on its own: its format, its month and bounds, its count, the file it names, its canonical
    bytes, its signature (a key of `ring`, valid when it was signed, after the month ended) and its link to the
    previous month's manifest when that file is beside it (which it must be, unless `chain_starts` names this
    month as the first verified)."""
    manifest, problems = dump.manifest, []
    if manifest.get("format") != FORMAT:
        problems.append(f"manifest: format {manifest.get('format')!r}, expected {FORMAT!r}")
    if manifest.get("month") != dump.month:
        problems.append(f"manifest: month {manifest.get('month')!r}, its file name says {dump.month}")
    start, until = month_bounds(dump.month)
    if (manifest.get("from"), manifest.get("until")) != (start, until):
        problems.append(
            f"manifest: from {manifest.get('from')!r} until {manifest.get('until')!r}, the month is {start} to {until}"
        )
    if manifest.get("count") != len(manifest["games"]):
        problems.append(f"manifest: count {manifest.get('count')!r}, it lists {len(manifest['games'])} games")
    ids = [str(entry.get("id")) for entry in manifest["games"]]
    if len(set(ids)) != len(ids):
        problems.append("manifest: it lists a game twice")
    named = object_at(manifest, "file")
    if named.get("name") != dump.file_path.name:
        problems.append(f"manifest: it names the file {named.get('name')!r}, not {dump.file_path.name}")
    if dump.manifest_bytes != canonical(manifest) + b"\n":
        problems.append("manifest: its bytes are not its canonical JSON and a newline")
    signed_at = manifest.get("signed_at")
    signature = signature_problems(
        ring, manifest.get("key_id"), str(signed_at), signed_message(manifest), manifest.get("signature")
    )
    problems += (f"manifest: {problem}" for problem in signature)
    try:
        if moment(str(signed_at)) < month_start(next_month(dump.month)):
            problems.append(f"manifest: signed at {signed_at}, before the month was over")
    except ValueError:
        pass  # (said by signature_problems)
    return problems + chain_problems(dump, chain_starts=chain_starts)


def chain_problems(dump: Dump, *, chain_starts: str | None = None) -> list[str]:
    """The link to the previous month: `previous` names the month before, and the SHA-256 of its manifest file,
    present beside this one (unless the chain is said to start here); null only where the chain starts."""
    previous = dump.manifest.get("previous")
    expected = previous_month(dump.month)
    path = dump.manifest_path.with_name(manifest_name(expected))
    if previous is None:  # the first month the site dumps: there is no month before it
        return [f"chain: previous is null, yet {path.name} is beside this manifest"] if path.exists() else []
    if not isinstance(previous, dict):
        return [f"manifest: previous is {previous!r}, neither null nor a month and a hash"]
    if previous.get("month") != expected:
        return [
            f"chain: previous names month {previous.get('month')!r}, the month before is {expected} (a hole in the chain)"
        ]
    try:
        found = hashlib.sha256(path.read_bytes()).hexdigest()
    except FileNotFoundError:
        if chain_starts == dump.month:
            return []
        return [
            f"chain: the previous manifest {path.name} is not beside this one "
            f"(--from-month {dump.month} starts the chain here)"
        ]
    except OSError as error:
        return [f"chain: the previous manifest {path.name} cannot be read ({error.strerror or error})"]
    if found != previous.get("manifest_sha256"):
        return [
            f"chain broken: {path.name} has SHA-256 {found}, this manifest's previous.manifest_sha256 is "
            f"{previous.get('manifest_sha256')}"
        ]
    return []
