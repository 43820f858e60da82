"""The stream of finished games over HTTP (GET /api/games/export, docs/AUDIT.md "Figures"), and the size of a dump.

    .venv/bin/python bench/export.py [--games 10000] [--real 40] [--seed 1] [--json]

In a scratch PostgreSQL database (created, migrated, dropped at the end): `--real` games played to their end through
the services by random legal moves (2 to 4 seats of bots, half of them ranked, both maps), scored, rated and signed
as the worker does, then `--games` finished games copied from them by the database (`copies`: their seats, events,
checkpoint and rating changes under new ids, a millisecond apart: the cheap way to have many; their checkpoints
name the game they were copied from, so they stream as real ones do but do not verify). One uvicorn web process, as
production runs it, serves the stream; the figures: games/s and MB/s of the whole stream read by one client, the
bytes a game, and the web process's resident memory before the stream, at its peak and after. Then the real games,
put in one month that is over, are dumped (games/api/dumps.py) and the dump's compressed MB per 1,000 games printed.

`copies` is how tests/server/test_audit_export.py makes its 10,000 games.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

if TYPE_CHECKING:
    from django.contrib.auth.models import User

    from games.store.models import Game

COPY_BATCH = 2000  # games a bulk insert


def played_game(user: User, rng: random.Random, *, map_name: str, players: int, ranked: bool) -> Game:
    """A game of `user` and bots played to its end by random legal moves through the services, then scored (and
    rated when ranked) and signed as the `score_game` task does."""
    from bench.random_moves import random_engine_move
    from games.play import bot_turns, scoring, services
    from games.store import states
    from games.store.models import Game

    game = services.game_create(user, map_name=map_name, players=players, ranked=ranked)
    services.game_start(game.pk, user=user, fill_with_bots="random")
    for _ in range(5000):
        game = Game.objects.get(pk=game.pk)
        if game.status == Game.Status.FINISHED:
            scoring.game_score_and_rate(game.pk)
            return Game.objects.get(pk=game.pk)
        seat, move = random_engine_move(states.state_at(game.pk, game.seq), rng)
        bot_turns.play_for(game, seat=seat, expected_seq=game.seq, move=move)
    raise AssertionError("the game did not end in 5000 moves")


def copies(templates: list[Game], count: int, *, first: datetime, step: timedelta = timedelta(milliseconds=1)) -> int:
    """`count` finished games copied from `templates` in turn (the game row, and its seats, events, checkpoint and
    rating changes copied by the database, INSERT ... SELECT) under new ids, finishing `step` apart from `first`;
    how many were made."""
    from games.play.models import RatingChange
    from games.store.models import Event, Game, Seat
    from games.trust.models import Checkpoint

    made = 0
    while made < count:
        batch: dict[uuid.UUID, list[uuid.UUID]] = {template.pk: [] for template in templates}
        games = []
        for n in range(made, min(count, made + COPY_BATCH)):
            template = templates[n % len(templates)]
            games.append(Game(**{**_fields(template), "id": uuid.uuid4(), "finished_at": first + n * step}))
            batch[template.pk].append(games[-1].id)
        Game.objects.bulk_create(games)
        for template_id, new_ids in batch.items():
            for model in (Seat, Event, Checkpoint, RatingChange):
                _copy_rows(model, template_id, new_ids)
        made += len(games)
    return made


def _fields(row: Any) -> dict[str, Any]:
    """A row's concrete fields by attribute name (foreign keys as their ids), as a constructor takes them."""
    return {f.attname: getattr(row, f.attname) for f in row._meta.concrete_fields}


def _copy_rows(model: Any, template: uuid.UUID, games: list[uuid.UUID]) -> None:
    """The rows of `model` that belong to game `template`, copied once for each of `games` (an own `id` left for
    the database to draw)."""
    from django.db import connection

    from games.store.models import Game

    if not games:
        return
    quote, key = connection.ops.quote_name, Game._meta.pk.get_db_prep_value
    columns = [f.column for f in model._meta.concrete_fields if f.column != "id"]
    table, game_table = quote(model._meta.db_table), quote(Game._meta.db_table)
    picked = ", ".join("g.id" if column == "game_id" else f"r.{quote(column)}" for column in columns)
    marks = ", ".join(["%s"] * len(games))
    statement = (
        f"INSERT INTO {table} ({', '.join(map(quote, columns))}) SELECT {picked} FROM {table} r, {game_table} g "
        f"WHERE r.game_id = %s AND g.id IN ({marks})"
    )
    with connection.cursor() as cursor:
        cursor.execute(statement, [key(template, connection), *(key(game, connection) for game in games)])


def rss_kb(pid: int) -> tuple[int, int]:
    """A process's resident memory now and at its peak (VmRSS, VmHWM), in kB."""
    fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line)
    return int(fields["VmRSS"].split()[0]), int(fields["VmHWM"].split()[0])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10000, help="finished games to stream (copies of the real ones)")
    parser.add_argument("--real", type=int, default=40, help="real games played (the copies' models, and the dump)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    args = parser.parse_args()

    from bench.live.local_services import scratch_database
    from bench.live.processes import free_port, wait_answering
    from bench.live.production import production_env, web_command

    name = f"ttr_export_{os.getpid()}"
    with scratch_database(name) as database_url, tempfile.TemporaryDirectory(prefix=f"{name}-") as tmp:
        var_dir = Path(tmp)
        env = {**production_env(var_dir, database_url, "", queue=f"{name}-tasks"), "TTR_EXPORT_RATE": "1000/min"}
        env.pop("REDIS_URL")
        subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env, check=True)
        os.environ.pop("REDIS_URL", None)  # (this process plays the games: tasks queue in its own broker, unread)
        os.environ.update(env, DJANGO_SETTINGS_MODULE="ttr_server.settings", CELERY_TASK_ALWAYS_EAGER="0")
        import django

        django.setup()
        report: dict[str, Any] = {"date": datetime.now().isoformat(timespec="minutes"), "args": vars(args)}
        real = _made(args, report)
        port = free_port()
        with open(var_dir / "web.log", "wb") as log:
            web = subprocess.Popen(web_command(port), cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        try:
            url = f"http://127.0.0.1:{port}"
            wait_answering(f"{url}/healthz", web, lambda: (var_dir / "web.log").read_text(errors="replace")[-3000:])
            report.update(_streamed(url, web.pid, args.games + len(real)))
        finally:
            web.terminate()
            web.wait(timeout=30)
        report.update(_dumped(real, var_dir / "dumps"))
    if args.json:
        print(json.dumps(report))
        return
    for key, value in report.items():
        print(f"{key}: {value}")


def _made(args: argparse.Namespace, report: dict[str, Any]) -> list[Game]:
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    user = get_user_model().objects.create_user("bench-exporter", password=None)
    rng = random.Random(args.seed)
    started = time.perf_counter()
    real = [
        played_game(user, rng, map_name=rng.choice(["europe", "usa"]), players=rng.randint(2, 4), ranked=n % 2 == 0)
        for n in range(args.real)
    ]
    report["real_games_s"] = round(time.perf_counter() - started, 1)
    report["events_per_real_game"] = round(sum(g.seq for g in real) / len(real), 1)
    started = time.perf_counter()
    this_month = datetime(timezone.now().year, timezone.now().month, 1, 1, tzinfo=UTC)
    copies(real, args.games, first=this_month)  # (a month not over: the dump below holds the real games alone)
    report["copies_s"] = round(time.perf_counter() - started, 1)
    return real


def _streamed(url: str, pid: int, expected: int) -> dict[str, Any]:
    import httpx

    before, _ = rss_kb(pid)
    with httpx.Client(base_url=url, timeout=600) as http:
        assert http.get("/api/games/export", params={"map": "mars"}).status_code == 400  # warm: the first request
        warmed, _ = rss_kb(pid)
        started = time.perf_counter()
        lines = size = chunks = 0
        first_byte = None
        with http.stream("GET", "/api/games/export") as response:
            assert response.status_code == 200, response.read()[:300]
            for chunk in response.iter_raw():
                first_byte = first_byte or time.perf_counter() - started
                chunks += 1
                size += len(chunk)
                lines += chunk.count(b"\n")
        seconds = time.perf_counter() - started
    after, peak = rss_kb(pid)
    assert lines == expected, (lines, expected)
    return {
        "stream_games": lines, "stream_s": round(seconds, 2), "games_per_s": round(lines / seconds),
        "mb_per_s": round(size / seconds / 1e6, 1), "stream_mb": round(size / 1e6, 1),
        "bytes_per_game": round(size / lines), "first_byte_ms": round((first_byte or 0) * 1000),
        "web_rss_mb_before": round(warmed / 1024, 1), "web_rss_mb_peak": round(peak / 1024, 1),
        "web_rss_mb_after": round(after / 1024, 1), "web_rss_mb_at_start": round(before / 1024, 1),
    }


def _dumped(real: list[Game], directory: Path) -> dict[str, Any]:
    """The real games moved into a month that is over (the copies finish in this one) and dumped: the compressed
    bytes per 1,000 games."""
    from django.utils import timezone

    from games.api import dumps
    from games.store.models import Game

    month = dumps.Month.of(timezone.now()).previous().previous()
    for n, game in enumerate(real):
        Game.objects.filter(pk=game.pk).update(finished_at=month.start + timedelta(minutes=n))
    started = time.perf_counter()
    assert dumps.dump_month(month, directory)
    seconds = time.perf_counter() - started
    manifest = json.loads((directory / month.manifest_name).read_bytes())
    assert manifest["count"] == len(real), manifest["count"]
    size = manifest["file"]["bytes"]
    return {
        "dump_games": len(real), "dump_s": round(seconds, 2), "dump_bytes": size,
        "dump_mb_per_1000_games": round(size / len(real) * 1000 / 1e6, 2),
    }


if __name__ == "__main__":
    main()
