"""The restore drill: a base backup plus archived WAL brings every game back, each one verifying.

    python -m bench.restore_drill [--before 3] [--after 3] [--target-time] [--json]

On a PostgreSQL cluster of its own (initdb in a temporary directory, a free loopback port, `archive_mode = on` with
an `archive_command` copying each WAL segment to an archive directory) it migrates the schema, plays `--before`
games to their end (two seats, random legal moves through the services a move's request runs, each game scored and
signed as the worker does), takes a base backup (`pg_basebackup`), plays `--after` games more, switches the WAL so
the last segment is archived, and stops the server at once (`immediate`: the machine is gone). Then it restores: the
base backup copied to a new data directory, `restore_command` fetching the archived WAL, `recovery.signal`, started on
another port; recovery replays the archive to its end (or, with `--target-time`, to a moment after the last game's
last commit) and the server is promoted. It checks that every game is there with the seq and head hash it had, the games
played after the base backup among them, and that every game verifies (`manage.py verify_game --all`: hash chain,
commitments, replay, scores, signed checkpoint). Figures: the base backup's and the archive's size, the seconds the
restore took, games verified. Everything it started is stopped and removed at the end, whatever happened.

Run as root (a container), PostgreSQL's programs run as the `postgres` user (initdb refuses root).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.fault_stack.postgres_cluster import BIN, missing_programs, query, run_program
from bench.live.processes import free_port

ROOT = Path(__file__).resolve().parents[1]
DATABASE = "ttr"
START_SECONDS = 120
PROGRAMS = ("initdb", "pg_ctl", "pg_basebackup", "postgres")


def missing() -> list[str]:
    return [name for name in missing_programs() if name in PROGRAMS]


@dataclass
class Drill:
    root: Path
    user: str | None
    servers: list[Path] = field(default_factory=list)  # data directories of servers started (to stop at the end)

    @property
    def archive(self) -> Path:
        return self.root / "wal-archive"

    def run(self, *command: str | Path, timeout: float = START_SECONDS) -> str:
        return run_program(command, user=self.user, cwd=self.root, timeout=timeout)

    def mkdir(self, path: Path) -> Path:
        path.mkdir(mode=0o700)
        if self.user:
            shutil.chown(path, self.user)
        return path

    def configure(self, data: Path, settings: dict[str, str]) -> None:
        with (data / "postgresql.conf").open("a") as conf:
            conf.write("\n# bench/restore_drill.py\n")
            conf.writelines(f"{key} = {value}\n" for key, value in settings.items())

    def start(self, data: Path) -> None:
        self.servers.append(data)
        self.run(BIN / "pg_ctl", "-D", data, "-l", data.parent / f"{data.name}.log", "-w", "-t", str(START_SECONDS),
                 "start")

    def stop(self, data: Path, mode: str = "fast") -> None:
        self.run(BIN / "pg_ctl", "-D", data, "-m", mode, "-w", "-t", "30", "stop", timeout=60)

    def stop_all(self) -> None:
        for data in self.servers:
            if (data / "postmaster.pid").exists():
                with suppress(RuntimeError, subprocess.TimeoutExpired):
                    self.stop(data, "immediate")

    def primary(self, port: int) -> Path:
        """A new cluster archiving every WAL segment it completes into the archive directory."""
        data = self.root / "primary"
        self.run(BIN / "initdb", "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C.UTF-8",
                 "--no-sync")
        self.mkdir(self.archive)
        self.configure(data, {
            "port": str(port),
            "listen_addresses": "'127.0.0.1'",
            "unix_socket_directories": f"'{self.root}'",
            "wal_level": "replica",
            "archive_mode": "on",
            # Never overwrite a segment already archived; a failed copy is retried by PostgreSQL.
            "archive_command": f"'test ! -f {self.archive}/%f && cp %p {self.archive}/%f'",
            "archive_timeout": "60",  # a quiet site still archives its last minute's WAL every minute
            "shared_buffers": "64MB",
        })
        with (data / "pg_hba.conf").open("a") as hba:
            hba.write("host replication postgres 127.0.0.1/32 trust\n")
        self.start(data)
        return data

    def base_backup(self, port: int) -> Path:
        """pg_basebackup of the running server: a plain copy of its data directory plus the WAL to make it
        consistent (`-X stream`), after a fast checkpoint."""
        backup = self.root / "base-backup"
        self.run(BIN / "pg_basebackup", "-h", "127.0.0.1", "-p", str(port), "-U", "postgres", "-D", backup,
                 "-X", "stream", "-c", "fast", "--no-sync")
        return backup

    def restore(self, backup: Path, port: int, target_time: str | None) -> Path:
        """The base backup copied to a new data directory that recovers from the archive, started."""
        data = self.root / "restored"
        self.run("cp", "-a", backup, data)
        (data / "postmaster.pid").unlink(missing_ok=True)
        settings = {
            "port": str(port),
            "restore_command": f"'cp {self.archive}/%f %p'",
            "recovery_target_action": "'promote'",
        }
        if target_time:
            settings["recovery_target_time"] = f"'{target_time}'"
        self.configure(data, settings)
        self.run("touch", data / "recovery.signal")
        self.start(data)
        return data


def _say(line: str) -> None:
    print(f"restore drill: {line}", file=sys.stderr, flush=True)


def _du(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def _promoted(url: str, data: Path) -> bool:
    """Whether the restored server has left recovery (raises with its log's end when it stopped instead)."""
    try:
        return not query(url, "SELECT pg_is_in_recovery() AS r")[0]["r"]
    except Exception as error:
        if (data / "postmaster.pid").exists():
            return False  # still starting
        log = (data.parent / f"{data.name}.log").read_text(errors="replace")[-2000:]
        raise RuntimeError(f"the restored server stopped: {log}") from error


def _wait(condition: Any, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.1)
    raise RuntimeError(f"{what}: not after {seconds:.0f} s")


def _app_env(url: str, root: Path) -> dict[str, str]:
    """A process of the site's on `url`: production's settings, its secrets (signing keys) in the drill's directory,
    Celery's tasks run in the process (scoring), no Redis."""
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "CELERY_BROKER_URL", "DB_PGBOUNCER")}
    env.update(
        DATABASE_URL=url, TTR_SECRETS_DIR=str(root / "secrets"), TTR_VAR_DIR=str(root / "var"), DEBUG="0",
        CELERY_TASK_ALWAYS_EAGER="1", LOG_FORMAT="console", PYTHONUNBUFFERED="1",
    )
    return env


def _site(url: str, root: Path, *command: str, timeout: float = 600) -> str:
    """`command` (python arguments) as a process of the site's, its secrets made first (ttr_server.local_secrets)."""
    argv = [sys.executable, "-m", "ttr_server.local_secrets", "--", sys.executable, *command]
    done = subprocess.run(argv, cwd=ROOT, env=_app_env(url, root), capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed ({done.returncode}): {done.stdout[-2000:]} {done.stderr[-2000:]}")
    return done.stdout


def _heads(url: str) -> dict[str, tuple[int, str, str]]:
    rows = query(url, "SELECT id::text AS id, seq, head_hash, status FROM games_game")
    return {row["id"]: (row["seq"], row["head_hash"], row["status"]) for row in rows}


@contextmanager
def drill_directory() -> Iterator[Drill]:
    root = Path(tempfile.mkdtemp(prefix="ttr-restore-"))
    user = "postgres" if os.geteuid() == 0 else None
    if user:
        shutil.chown(root, user)
    drill = Drill(root, user)
    try:
        yield drill
    finally:
        drill.stop_all()
        shutil.rmtree(root, ignore_errors=True)


def run(before: int, after: int, *, moves: int = 0, target_time: bool = False, seed: int = 1) -> dict[str, Any]:
    """The drill; its figures (`ok`: every game restored as it was and verifying). `moves`: each game stops after
    that many moves (0: played to its end and scored), for the short version in the tests."""
    if problems := missing():
        raise RuntimeError(f"PostgreSQL's programs are missing from {BIN}: {', '.join(problems)}")
    with drill_directory() as drill:
        port = free_port()
        primary = drill.primary(port)
        admin = f"postgres://postgres@127.0.0.1:{port}/postgres"
        query(admin, f"CREATE DATABASE {DATABASE}")
        url = f"postgres://postgres@127.0.0.1:{port}/{DATABASE}"
        _say(f"cluster at {drill.root}, port {port}, archiving to {drill.archive}")
        started = time.monotonic()
        _site(url, drill.root, "manage.py", "migrate", "--noinput")
        _say(f"migrated in {time.monotonic() - started:.1f} s")
        migrate_seconds = time.monotonic() - started
        started = time.monotonic()
        first = json.loads(_site(url, drill.root, "-m", "bench.restore_drill", "play", str(before), "before", str(seed),
                                 str(moves)))
        play_seconds = time.monotonic() - started
        started = time.monotonic()
        _say(f"{before} game(s) played in {play_seconds:.1f} s; base backup")
        backup = drill.base_backup(port)
        backup_bytes, backup_seconds = _du(backup), time.monotonic() - started
        second = json.loads(_site(url, drill.root, "-m", "bench.restore_drill", "play", str(after), "after",
                                  str(seed + 1), str(moves)))
        heads = _heads(url)
        target = query(admin, "SELECT clock_timestamp()::text AS t")[0]["t"]  # after every game's last commit
        # A commit after the target: recovery to the target stops before it (it must see a later commit to know
        # the target is passed), recovery to the end of the archive replays it.
        query(url, "CREATE TABLE drill_after_target ()")
        segment = query(admin, "SELECT pg_walfile_name(pg_switch_wal()) AS f")[0]["f"]
        _wait(lambda: (drill.archive / segment).exists(), 60, f"WAL segment {segment} archived")
        _say(f"{after} game(s) more; WAL segment {segment} archived; the primary stopped (immediate); restoring")
        drill.stop(primary, "immediate")  # the primary is gone: only the backup and the archive are left
        archive_bytes, segments = _du(drill.archive), len(list(drill.archive.iterdir()))

        restore_started = time.monotonic()
        restored_port = free_port()
        restored = drill.restore(backup, restored_port, target if target_time else None)
        restored_url = f"postgres://postgres@127.0.0.1:{restored_port}/{DATABASE}"
        restored_admin = f"postgres://postgres@127.0.0.1:{restored_port}/postgres"
        _wait(lambda: _promoted(restored_admin, restored), START_SECONDS, "the restored server promoted")
        restore_seconds = time.monotonic() - restore_started
        restored_heads = _heads(restored_url)
        marker = bool(query(restored_url, "SELECT to_regclass('drill_after_target') IS NOT NULL AS t")[0]["t"])
        _say(f"restored and promoted in {restore_seconds:.1f} s; verifying every game")
        verified = _site(restored_url, drill.root, "manage.py", "verify_game", "--all")
        ok_lines = [line for line in verified.splitlines() if " ok events=" in line]
        drill.stop(restored)
    after_ids = set(second["games"])
    figures = {
        "games_before_backup": len(first["games"]),
        "games_after_backup": len(second["games"]),
        "moves_played": first["moves"] + second["moves"],
        "migrate_seconds": round(migrate_seconds, 1),
        "play_seconds_before_backup": round(play_seconds, 1),
        "base_backup_bytes": backup_bytes,
        "base_backup_seconds": round(backup_seconds, 1),
        "wal_archive_bytes": archive_bytes,
        "wal_archive_segments": segments,
        "restore_seconds": round(restore_seconds, 2),
        "recovery_target": f"time {target}" if target_time else "end of the archive",
        "games_restored": len(restored_heads),
        "games_identical": sum(restored_heads.get(g) == h for g, h in heads.items()),
        "games_after_backup_restored": len(after_ids & set(restored_heads)),
        "games_verified": len(ok_lines),
        "commit_after_target_restored": marker,
    }
    figures["ok"] = (
        figures["games_restored"] == len(heads) == figures["games_identical"] == figures["games_verified"]
        and figures["games_after_backup_restored"] == len(after_ids) > 0
        and marker != target_time
    )
    return figures


def play(games: int, label: str, seed: int, moves_each: int = 0) -> dict[str, Any]:
    """`games` two-seat USA games played to their end and scored (or `moves_each` moves into them), in this process
    (Django set up from the environment); their ids and the moves played."""
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ttr_server.settings")
    django.setup()
    from django.contrib.auth import get_user_model

    from bench.random_moves import random_engine_move
    from games.play import bot_turns, scoring, services
    from games.store import states
    from games.store.models import Game

    rng = random.Random(seed)
    users = get_user_model().objects
    people = [users.create(username=f"{label}-{seed}-{n}") for n in range(2)]
    ids, moves = [], 0
    for _ in range(games):
        game = services.game_create(people[0], map_name="usa", players=2, ranked=True)
        services.game_join(game.pk, user=people[1], seat=1)
        services.game_start(game.pk, user=people[0])
        played = 0
        while (game := Game.objects.get(pk=game.pk)).status != Game.Status.FINISHED:
            if moves_each and played == moves_each:
                break
            played += 1
            seat, move = random_engine_move(states.state_at(game.pk, game.seq), rng)
            bot_turns.play_for(game, seat=seat, expected_seq=game.seq, move=move)
            moves += 1
        if game.status == Game.Status.FINISHED:
            scoring.game_score_and_rate(game.pk)  # (the eager task scored it already: it scores once)
        ids.append(str(game.pk))
    return {"games": ids, "moves": moves}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["play"]:  # the drill's own child process, on the drill's cluster
        print(json.dumps(play(int(argv[1]), argv[2], int(argv[3]), int(argv[4]))))
        return 0
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", type=int, default=3, help="games played before the base backup")
    parser.add_argument("--after", type=int, default=3, help="games played after it (only in the archived WAL)")
    parser.add_argument("--moves", type=int, default=0, help="moves into each game (0: to its end, scored)")
    parser.add_argument("--target-time", action="store_true", help="recover to the last game's scoring time")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    figures = run(args.before, args.after, moves=args.moves, target_time=args.target_time)
    if args.json:
        print(json.dumps(figures))
    else:
        for key, value in figures.items():
            print(f"{key:30} {value}")
    return 0 if figures["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
