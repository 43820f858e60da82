"""The event store ready to shard (migration 0016, docs/DESIGN.md "The event store"): events and snapshots keyed by
(game, seq), on PostgreSQL hash-partitioned by game. The tables are partitioned, every key holds the game id, the
append-only trigger refuses an UPDATE or DELETE on any partition, the hot reads touch one partition, and the
migration moves an existing database (both ways) with every game still verifying. The migration test runs on SQLite
too (the tables rebuilt with the composite key); the rest needs PostgreSQL (./scripts/test-env)."""

from __future__ import annotations

import io
import json
import random
from collections.abc import Iterator
from typing import Any

import pytest
from django.core.management import call_command
from django.db import DatabaseError, connection, transaction
from django.db.migrations.executor import MigrationExecutor

from games.play import bot_turns
from games.store import event_log, states
from games.store.models import Event, Game, Snapshot
from games.store.snapshots import SNAPSHOT_FORMAT
from games.trust.verify import verify_game
from tests.server.helpers import Table, finish_by_services, random_engine_move, seated_game

PARTITIONS = 16
TABLES = ("games_event", "games_snapshot")
BEFORE = "0015_limit_hits"
MOVE = "0016_event_snapshot_keyed_by_game"


@pytest.fixture
def postgres_only(on_postgres: bool) -> None:
    if not on_postgres:
        pytest.skip("needs PostgreSQL (run under ./scripts/test-env): SQLite has no partitioning")


def rows(sql: str, params: list[Any] | tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return list(cursor.fetchall())


def played_game(prefix: str, seed: int, finish: bool) -> str:
    """A started two-seat game of random moves: finished and scored, or some 120 events in (past its snapshots)."""
    table = seated_game(prefix, "europe", 2)
    if finish:
        finish_by_services(table.game_id, random.Random(seed))
    else:
        _some_moves(table, seed)
    return table.game_id


def _some_moves(table: Table, seed: int) -> None:
    rng = random.Random(seed)
    while (game := Game.objects.get(pk=table.game_id)).seq < 120 and game.status == Game.Status.ACTIVE:
        seat, move = random_engine_move(states.state_at(game.pk, game.seq), rng)
        bot_turns.play_for(game, seat=seat, expected_seq=game.seq, move=move)


def relations_in_plan(plan: Any) -> set[str]:
    """Every table a JSON plan scans."""
    found: set[str] = set()
    todo = [plan]
    while todo:
        node = todo.pop()
        if isinstance(node, dict):
            if "Relation Name" in node:
                found.add(node["Relation Name"])
            todo.extend(node.values())
        elif isinstance(node, list):
            todo.extend(node)
    return found


def explain(sql: str, params: list[Any]) -> Any:
    (plan,) = rows(f"EXPLAIN (FORMAT JSON) {sql}", params)[0]
    return json.loads(plan) if isinstance(plan, str) else plan


@pytest.mark.django_db
def test_the_event_and_snapshot_tables_are_hash_partitioned_by_game_with_the_game_in_every_key(
    postgres_only: None,
) -> None:
    for table in TABLES:
        ((strategy, key),) = rows(
            "SELECT p.partstrat, a.attname FROM pg_partitioned_table p JOIN pg_attribute a"
            " ON a.attrelid = p.partrelid AND a.attnum = p.partattrs[0] WHERE p.partrelid = %s::regclass",
            [table],
        )
        assert (strategy, key) == ("h", "game_id"), table
        children = rows(
            "SELECT c.relname, pg_get_expr(c.relpartbound, c.oid) FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid"
            " WHERE i.inhparent = %s::regclass ORDER BY c.relname",
            [table],
        )
        assert [name for name, _ in children] == [f"{table}_p{n:02d}" for n in range(PARTITIONS)]
        assert all(f"modulus {PARTITIONS}" in bound for _, bound in children)
        keys = rows(
            "SELECT c.conrelid::regclass::text, array_agg(a.attname ORDER BY k.n) FROM pg_constraint c"
            " CROSS JOIN LATERAL unnest(c.conkey) WITH ORDINALITY AS k(attnum, n)"
            " JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum"
            " WHERE c.contype = 'p' AND c.conrelid IN (SELECT relid FROM pg_partition_tree(%s::regclass))"
            " GROUP BY c.conrelid",
            [table],
        )
        assert len(keys) == PARTITIONS + 1 and all(columns == ["game_id", "seq"] for _, columns in keys), keys
        foreign = rows(
            "SELECT confrelid::regclass::text FROM pg_constraint WHERE contype = 'f' AND conrelid = %s::regclass", [table]
        )
        assert foreign == [("games_game",)]
        assert not rows(  # no surrogate id left, no index but the key's (it leads with the game: the FK uses it)
            "SELECT 1 FROM pg_attribute WHERE attrelid = %s::regclass AND attname = 'id' AND NOT attisdropped", [table]
        )
        assert rows("SELECT indexrelid::regclass::text FROM pg_index WHERE indrelid = %s::regclass", [table]) == [
            (f"{table}_pkey",)
        ]


@pytest.mark.django_db
def test_the_append_only_trigger_refuses_update_and_delete_on_the_table_and_on_each_partition(
    postgres_only: None,
) -> None:
    game_id = played_game("part-trig", 1, finish=False)
    ((partition, count),) = rows(
        "SELECT tableoid::regclass::text, count(*) FROM games_event WHERE game_id = %s GROUP BY 1", [game_id]
    )
    assert partition.startswith("games_event_p") and count == Game.objects.get(pk=game_id).seq  # one game, one partition
    triggers = rows(
        "SELECT tgrelid::regclass::text FROM pg_trigger WHERE tgname = 'games_event_append_only' AND tgenabled = 'O'"
    )
    assert len(triggers) == PARTITIONS + 1  # the partitioned table's, cloned on each partition
    for target in ("games_event", partition):
        for statement in (f"UPDATE {target} SET seat = 1 WHERE game_id = %s", f"DELETE FROM {target} WHERE game_id = %s"):
            with pytest.raises(DatabaseError) as refused, transaction.atomic():
                rows(statement, [game_id])
            assert "append-only" in str(refused.value)
    assert Event.objects.filter(game_id=game_id).count() == count
    assert verify_game(Game.objects.get(pk=game_id))["ok"]


@pytest.mark.django_db
def test_the_hot_reads_touch_exactly_one_partition(postgres_only: None) -> None:
    game_id = played_game("part-plan", 2, finish=False)
    seq = Game.objects.get(pk=game_id).seq
    assert Snapshot.objects.filter(game_id=game_id).exists()
    key = event_log.game_key(game_id)
    (event_partition,) = rows("SELECT DISTINCT tableoid::regclass::text FROM games_event WHERE game_id = %s", [key])[0]
    (snapshot_partition,) = rows("SELECT DISTINCT tableoid::regclass::text FROM games_snapshot WHERE game_id = %s", [key])[0]
    hot = [
        (event_log._EVENTS_BETWEEN, [key, 10, seq], event_partition),  # every state rebuild
        (states._LATEST_SNAPSHOT, [key, seq, SNAPSHOT_FORMAT], snapshot_partition),
    ]
    for sql, params, partition in hot:
        assert "game_id = %s" in sql
        assert relations_in_plan(explain(sql, params)) == {partition}, sql
    history = event_log.rows_between(game_id, 0, seq)  # the ORM's reads: history, audit, replay, turn clocks
    plan = json.loads(history.explain(format="JSON"))  # type: ignore[attr-defined]
    assert relations_in_plan(plan) == {event_partition}
    # A server-side prepared statement's generic plan (a pooler's, or psycopg's prepared ones) prunes when it runs.
    with connection.cursor() as cursor:
        cursor.execute("SET plan_cache_mode = force_generic_plan")
        cursor.execute("PREPARE hot_read(uuid, int, int) AS " + event_log._EVENTS_BETWEEN.replace("%s", "$1", 1)
                       .replace("%s", "$2", 1).replace("%s", "$3", 1))
        try:
            cursor.execute("EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE hot_read(%s, 10, %s)", [key, seq])
            (plan,) = cursor.fetchone()
        finally:
            cursor.execute("DEALLOCATE hot_read")
            cursor.execute("RESET plan_cache_mode")
    plan = json.loads(plan) if isinstance(plan, str) else plan
    append = plan[0]["Plan"]
    while append["Node Type"] not in ("Append", "Merge Append"):  # which one the planner takes depends on statistics
        (append,) = append["Plans"]
    assert append["Subplans Removed"] == PARTITIONS - 1, append


@pytest.fixture
def migrations_restored(transactional_db: None) -> Iterator[None]:
    """Whatever the test does to the schema, the database ends at the latest migration."""
    try:
        yield
    finally:
        migrate_games_to(None)


def migrate_games_to(target: str | None) -> None:
    """Forwards to the latest migration (None), or back to `target`. Back to BEFORE undoes only MOVE, the migration
    under test: the later ones (the tournaments' columns of a game) stay, as the code of today needs them."""
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    if target == BEFORE:
        executor.migrate([("games", BEFORE)], plan=[(executor.loader.get_migration("games", MOVE), True)])
    else:
        leaf = executor.loader.graph.leaf_nodes("games")[0]
        if ("games", MOVE) not in executor.loader.applied_migrations:  # undone alone: done again alone
            executor.migrate([leaf], plan=[(executor.loader.get_migration("games", MOVE), False)])
        executor.loader.build_graph()
        executor.migrate([leaf])
    executor.loader.build_graph()
    states.forget_all()


def partitioned(table: str) -> bool:
    return bool(rows("SELECT 1 FROM pg_partitioned_table WHERE partrelid = %s::regclass", [table]))


def every_game_verifies() -> dict[str, tuple[int, str]]:
    """Each game with a log: its event count and head hash, after `manage.py verify_game --all` passed."""
    call_command("verify_game", "--all", stdout=io.StringIO())  # raises on any game that fails
    found = {}
    for game in Game.objects.exclude(seq=0):
        report = verify_game(game)
        assert report["ok"], report
        found[str(game.pk)] = (report["events"], report["head_hash"])
    return found


def test_the_migration_moves_an_existing_database_back_and_forth_and_every_game_still_verifies(
    migrations_restored: None, on_postgres: bool,
) -> None:
    made_here = [played_game("part-fin", 3, finish=True), played_game("part-mid", 4, finish=False)]
    seated_game("part-open", "europe", 2, start=False)  # no log at all
    before = every_game_verifies()
    snapshots = Snapshot.objects.count()
    assert set(before) == set(made_here) and snapshots

    migrate_games_to(BEFORE)  # the events' layout of 0015: a plain table with an id
    if on_postgres:
        assert not any(partitioned(table) for table in TABLES)
        assert rows("SELECT count(DISTINCT id) FROM games_event") == [(sum(n for n, _ in before.values()),)]
        assert rows("SELECT conname FROM pg_constraint WHERE conrelid = 'games_event'::regclass AND contype = 'u'") == [
            ("event_unique_seq",)
        ]
        assert rows("SELECT count(*) FROM pg_trigger WHERE tgname = 'games_event_append_only'") == [(1,)]
    assert every_game_verifies() == before
    made_here.append(played_game("part-old", 5, finish=True))  # a game played on the old layout
    before = every_game_verifies()
    snapshots = Snapshot.objects.count()

    migrate_games_to(None)  # forwards again: 0016 moves the rows
    if on_postgres:
        assert all(partitioned(table) for table in TABLES)
        spread = rows("SELECT count(DISTINCT tableoid) FROM games_event GROUP BY game_id")
        assert sorted(spread) == [(1,)] * len(before)  # each game's rows in one partition
    assert every_game_verifies() == before
    assert Snapshot.objects.count() == snapshots and Event.objects.count() == sum(n for n, _ in before.values())
    played_on = played_game("part-new", 6, finish=False)  # and the moved database plays on
    assert every_game_verifies()[played_on][0] == Game.objects.get(pk=played_on).seq
