"""The monthly dumps (games/api/dumps.py, docs/AUDIT.md): `manage.py dump_games` writes each month that is over and
scored as game lines (gzip) and a signed manifest chained to the month before, a month without a game as a dump of
count 0, never a month twice; a month with a game not scored waits, and the months after it; GET /api/dumps lists
them and /dumps/<name> serves exactly their files; `python -m games.audit verify-dump` finds them true, and finds a
changed byte, a dropped game and swapped months.
"""

from __future__ import annotations

import asyncio
import base64
import fcntl
import gzip
import hashlib
import json
import os
import random
import shutil
import subprocess
import sys
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from django.core.management import CommandError, call_command
from django.utils import timezone
from rest_framework.test import APIClient

from tests.server.helpers import (
    assert_error,
    body,
    create_game,
    finish_by_services,
    register,
    registrations_unthrottled,
    url,
)

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def directory(tmp_path: Path, settings: Any) -> Path:
    settings.TTR_DUMP_DIR = tmp_path / "dumps"
    settings.TTR_EXPORT_RATE = "100000/min"
    return Path(settings.TTR_DUMP_DIR)


def months_back(count: int) -> Any:
    from games.api.dumps import Month

    month = Month.of(timezone.now())
    for _ in range(count):
        month = month.previous()
    return month


def finished(client: APIClient, month: Any, *, minute: int, map_name: str = "usa", ranked: bool = False,
             seed: int = 1, score: bool = True) -> str:
    """A game of the client's and random bots played to its end (scored and rated unless `score` is False), moved
    into `month` (its finish time only: what puts a game in a month)."""
    from games.store.models import Game

    game = create_game(client, map_name, 2, ranked=ranked)["id"]
    assert client.post(url(game, "start"), {"fill_with_bots": "random"}, format="json").status_code == 200
    finish_by_services(game, random.Random(seed), score=score)
    Game.objects.filter(pk=game).update(finished_at=month.start + timedelta(days=2, minutes=minute))
    return str(game)


def dumped_months(directory: Path) -> list[str]:
    return sorted(path.name.removeprefix("games-").removesuffix(".manifest.json")
                  for path in directory.glob("games-*.manifest.json"))


def expected_months(first: Any) -> list[str]:
    """Every month from `first` that is over (by an hour) now."""
    from games.api import dumps

    months, month = [], first
    while dumps.over(month, timezone.now()):
        months.append(month.name)
        month = month.next()
    return months


def manifest_of(directory: Path, month: str) -> dict[str, Any]:
    return dict(json.loads((directory / f"games-{month}.manifest.json").read_bytes()))


def file_lines(directory: Path, month: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in gzip.decompress((directory / f"games-{month}.jsonl.gz").read_bytes()).splitlines()]


def files(directory: Path) -> dict[str, tuple[bytes, int]]:
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(directory.iterdir()) if p.name != ".lock"}


@pytest.fixture(scope="module")
def two_months(django_db_setup: Any, django_db_blocker: Any) -> Iterator[dict[str, Any]]:
    """Games in the month four back (a casual one and a ranked one) and two back (one), none in between: made once
    for the module in a transaction rolled back after it (each test runs in a savepoint of it)."""
    from django.db import transaction

    with registrations_unthrottled(), django_db_blocker.unblock(), transaction.atomic():
        ada = register("dumps-ada")
        first, second = months_back(4), months_back(2)
        games = {
            first.name: [finished(ada, first, minute=0, seed=1), finished(ada, first, minute=5, ranked=True, seed=2)],
            months_back(3).name: [],
            second.name: [finished(ada, second, minute=0, seed=3)],
        }
        yield {"first": first, "games": games, "client": ada}
        transaction.set_rollback(True)


def test_every_month_over_is_dumped_signed_and_chained_and_an_empty_one_has_a_dump_of_count_0(
    directory: Path, two_months: dict[str, Any]
) -> None:
    from games.api import dumps, game_lines
    from games.store.models import Game
    from games.trust import signing

    call_command("dump_games")
    months = expected_months(two_months["first"])
    assert dumped_months(directory) == months and len(months) >= 3
    held = signing.keys()
    keys = {key.id: key.public for key in held}
    previous = None
    for month in months:
        manifest = manifest_of(directory, month)
        content = (directory / f"games-{month}.manifest.json").read_bytes()
        assert content == dumps.canonical(manifest) + b"\n"
        start = dumps.Month.parsed(month)
        assert (manifest["format"], manifest["month"]) == ("ttr-dump/1", month)
        assert manifest["from"] == start.start.strftime("%Y-%m-%dT%H:%M:%SZ")
        assert manifest["until"] == start.end.strftime("%Y-%m-%dT%H:%M:%SZ")
        wanted = two_months["games"].get(month, [])
        rows = [Game.objects.get(pk=game) for game in wanted]
        assert manifest["count"] == len(wanted)
        assert manifest["games"] == [{"id": str(g.pk), "seq": g.seq, "head_hash": g.head_hash} for g in rows]
        data = directory / manifest["file"]["name"]
        assert manifest["file"] == {
            "name": f"games-{month}.jsonl.gz", "bytes": data.stat().st_size,
            "sha256": hashlib.sha256(data.read_bytes()).hexdigest(),
        }
        assert file_lines(directory, month) == [game_lines.game_line(g) for g in rows]
        assert manifest["previous"] == previous
        previous = {"month": month, "manifest_sha256": hashlib.sha256(content).hexdigest()}
        unsigned = {name: value for name, value in manifest.items() if name != "signature"}
        keys[manifest["key_id"]].verify(  # raises when the signature is not the key's over these bytes
            base64.b64decode(manifest["signature"]), b"ttr-dump-manifest/1\n" + dumps.canonical(unsigned)
        )
        assert manifest["signed_at"] >= manifest["until"]
    assert manifest_of(directory, months_back(3).name)["count"] == 0
    assert gzip.decompress((directory / f"games-{months_back(3).name}.jsonl.gz").read_bytes()) == b""
    assert json.loads((directory / "keys.json").read_bytes()) == body(APIClient().get("/api/keys"))
    # The dump holds what the stream gives for the month.
    first = two_months["first"]
    streamed = APIClient().get("/api/games/export", {"since": first.start.isoformat(), "until": first.end.isoformat()})
    assert [json.loads(line) for line in b"".join(streamed.streaming_content).splitlines()] == file_lines(
        directory, first.name
    )


def test_a_signature_over_another_manifest_does_not_check(directory: Path, two_months: dict[str, Any]) -> None:
    from cryptography.exceptions import InvalidSignature

    from games.api import dumps
    from games.trust import signing

    call_command("dump_games", "--month", two_months["first"].name)
    manifest = manifest_of(directory, two_months["first"].name)
    held = signing.keys()
    public: Ed25519PublicKey = next(key.public for key in held if key.id == manifest["key_id"])
    changed = {name: value for name, value in manifest.items() if name != "signature"} | {"count": 3}
    with pytest.raises(InvalidSignature):
        public.verify(base64.b64decode(manifest["signature"]), b"ttr-dump-manifest/1\n" + dumps.canonical(changed))


def test_running_again_writes_nothing(directory: Path, two_months: dict[str, Any], capsys: Any) -> None:
    call_command("dump_games")
    before = files(directory)
    call_command("dump_games")
    assert "no month is due" in capsys.readouterr().out
    call_command("dump_games", "--month", two_months["first"].name)
    assert "dumped already" in capsys.readouterr().out
    assert files(directory) == before


def test_a_game_not_scored_holds_its_month_back_and_the_months_after_it(
    directory: Path, two_months: dict[str, Any]
) -> None:
    from games.play import scoring

    first, held = two_months["first"], months_back(3)
    waiting = finished(two_months["client"], held, minute=0, seed=4, score=False)
    call_command("dump_games")
    assert dumped_months(directory) == [first.name]
    with pytest.raises(CommandError, match="not scored"):
        call_command("dump_games", "--month", held.name)
    with pytest.raises(CommandError, match=f"dump {held.name} first"):
        call_command("dump_games", "--month", months_back(2).name)
    assert scoring.game_score_and_rate(waiting)
    call_command("dump_games")
    assert dumped_months(directory) == expected_months(first)
    assert manifest_of(directory, held.name)["count"] == 1


def test_a_month_not_over_or_before_the_first_game_is_refused(directory: Path, two_months: dict[str, Any]) -> None:
    from games.api import dumps

    with pytest.raises(CommandError, match="not over"):
        call_command("dump_games", "--month", dumps.Month.of(timezone.now()).name)
    with pytest.raises(CommandError, match=f"starts at {two_months['first'].name}"):
        call_command("dump_games", "--month", two_months["first"].previous().name)
    with pytest.raises(CommandError, match="YYYY-MM"):
        call_command("dump_games", "--month", "2026-13")
    assert dumped_months(directory) == []


def test_one_dumper_at_a_time(directory: Path, two_months: dict[str, Any]) -> None:
    from games.api import dumps

    directory.mkdir(parents=True)
    with (directory / ".lock").open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        assert dumps.dump_due(directory) == []
        with pytest.raises(CommandError, match="another dump"):
            call_command("dump_games", "--month", two_months["first"].name)
    assert dumps.dump_due(directory)


def test_beat_runs_the_dumps(directory: Path, two_months: dict[str, Any], settings: Any) -> None:
    from games import tasks

    assert settings.CELERY_BEAT_SCHEDULE["dumps"]["task"] == "games.tasks.dump_games"
    assert tasks.dump_games() == len(expected_months(two_months["first"]))
    assert tasks.dump_games() == 0


def test_the_dumps_are_listed_newest_first_and_served_exactly(directory: Path, two_months: dict[str, Any]) -> None:
    client = APIClient()
    assert body(client.get("/api/dumps")) == {"dumps": [], "keys_url": "http://testserver/api/keys"}
    call_command("dump_games")
    listed = body(client.get("/api/dumps"))
    months = expected_months(two_months["first"])
    assert [dump["month"] for dump in listed["dumps"]] == months[::-1]
    assert listed["keys_url"] == "http://testserver/dumps/keys.json"
    for dump in listed["dumps"]:
        manifest = manifest_of(directory, dump["month"])
        assert dump["count"] == manifest["count"]
        for part in ("file", "manifest"):
            path = directory / dump[part]["name"]
            assert dump[part]["url"] == f"http://testserver/dumps/{path.name}"
            assert dump[part]["bytes"] == path.stat().st_size
            assert dump[part]["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
            response = client.get(f"/dumps/{path.name}")
            assert response.status_code == 200
            assert b"".join(response.streaming_content) == path.read_bytes()
        assert dump["file"] == manifest["file"] | {"url": dump["file"]["url"]}
    keys = client.get("/dumps/keys.json")
    assert json.loads(b"".join(keys.streaming_content)) == body(client.get("/api/keys"))


def test_no_other_name_is_served(directory: Path, two_months: dict[str, Any]) -> None:
    call_command("dump_games")
    stray = months_back(1).next()  # this month: a data file without its manifest is not a dump
    (directory / stray.file_name).write_bytes(b"not yet")
    names = [
        "games-2001-01.jsonl.gz", "games-2001-01.manifest.json", stray.file_name, ".lock", "..", "games-2026-13.jsonl.gz",
        "keys.json.tmp", "%2e%2e%2fsettings.py", "..%2fdumps%2fkeys.json", "KEYS.JSON",
    ]
    for name in names:
        assert_error(APIClient().get(f"/dumps/{name}"), 404, "not_found")


# ---------------------------------------------------------------------------------------------------------
# End to end: the server's dumps through the offline verifier (games/audit/, standard library and engine only).


def verify(directory: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "games.audit", "verify-dump", str(directory), "--quiet"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )


def rewritten(directory: Path, month: str, change: Any) -> None:
    """The month's data file with its lines (bytes) changed by `change`, compressed again."""
    path = directory / f"games-{month}.jsonl.gz"
    lines = gzip.decompress(path.read_bytes()).splitlines(keepends=True)
    path.write_bytes(gzip.compress(b"".join(change(lines)), mtime=0))


def test_the_offline_verifier_finds_the_dumps_true_and_each_tampering(
    directory: Path, two_months: dict[str, Any], tmp_path: Path
) -> None:
    call_command("dump_games")
    true = verify(directory)
    assert true.returncode == 0, true.stdout + true.stderr
    first, second = two_months["first"].name, months_back(2).name

    def byte_changed(lines: list[bytes]) -> list[bytes]:
        at = lines[0].index(b'"head_hash":"') + len(b'"head_hash":"')  # the checkpoint's head hash, one digit
        digit = b"1" if lines[0][at:at + 1] != b"1" else b"2"
        return [lines[0][:at] + digit + lines[0][at + 1:], *lines[1:]]

    tamperings = {
        "a byte of a game line": lambda d: rewritten(d, first, byte_changed),
        "a game dropped": lambda d: rewritten(d, first, lambda lines: lines[1:]),
        "one month's file for another's": lambda d: shutil.copyfile(
            d / f"games-{second}.jsonl.gz", d / f"games-{first}.jsonl.gz"
        ),
    }
    for n, (what, tamper) in enumerate(tamperings.items()):
        copy = tmp_path / f"tampered-{n}"
        shutil.copytree(directory, copy, ignore=shutil.ignore_patterns(".lock"))
        tamper(copy)
        found = verify(copy)
        assert found.returncode == 1, (what, found.returncode, found.stdout + found.stderr)


def test_a_file_is_served_a_block_at_a_time_through_the_asgi_application(directory: Path) -> None:
    """A big file under ASGI: sent in parts while this process (the server) holds far less than the file."""
    from ttr_server.asgi import application

    month = months_back(5)
    directory.mkdir(parents=True)
    (directory / month.manifest_name).write_bytes(b"{}\n")  # (a manifest's name is what lists a month)
    size = 96 * 2**20
    with (directory / month.file_name).open("wb") as file:
        file.truncate(size)
    got = {"status": 0, "bytes": 0, "parts": 0, "most": 0}

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            got["status"] = message["status"]
        elif message.get("body"):
            got["bytes"] += len(message["body"])
            got["parts"] += 1
            got["most"] = max(got["most"], rss())

    path = f"/dumps/{month.file_name}"
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET", "scheme": "http",
        "path": path, "raw_path": path.encode(), "query_string": b"", "root_path": "",
        "headers": [(b"host", b"testserver")], "client": ("127.0.0.1", 5000), "server": ("testserver", 80),
    }
    before = rss()
    asyncio.run(application(scope, receive, send))
    assert got["status"] == 200 and got["bytes"] == size and got["parts"] >= size // 2**16
    assert got["most"] - before < size / 4, (before, got)


def rss() -> int:
    return int(Path("/proc/self/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE")
