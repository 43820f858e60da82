"""`check_games`: every problem found in the games `bench.traffic.play.play_games` played and in what its clients
received (empty: all good), gathered in `Findings`."""

from __future__ import annotations

import itertools
import json
from collections import Counter, defaultdict
from collections.abc import Iterable
from typing import Any

from bench.traffic.client import Http
from bench.traffic.findings import Findings
from bench.traffic.received import check_item
from bench.traffic.recorder import Ack, Received, Recorder
from bench.traffic.records import GameRecord
from bench.traffic.truth import Truth, board

# a move's own event (the first event with a seat among those the move appended): what the log must show for it
MOVE_EVENTS: dict[str, tuple[str, ...]] = {
    "keep_tickets": ("tickets_kept",),
    "draw_card": ("card_drawn",),
    "claim_route": ("route_claimed", "tunnel_revealed"),
    "pay_tunnel": ("route_claimed",),
    "decline_tunnel": ("tunnel_declined",),
    "draw_tickets": ("tickets_dealt",),
    "build_station": ("station_built",),
}


def check_games(url: str, records: Iterable[GameRecord], recorder: Recorder, *,
                tolerate_statuses: Iterable[int] = (), stats: dict[str, int] | None = None) -> list[str]:
    """Every problem found in `records`' games and in what `recorder` holds (empty: all good).

    - every 5xx recorded (but those of `tolerate_statuses`: e.g. (503,) in a run that stops the database), every
      anomaly (a legal move refused, a socket push out of order, a client step that failed, a game that did not
      finish);
    - each finished game: /verify says ok with no problems and the audit's length; /audit (JSON Lines) has seqs
      1..N, each line's prev_hash the previous line's hash, exactly one game_ended and after it exactly one
      game_scored and nothing else; the record's final seq is N;
    - every move a client was told succeeded: the log has its seqs, the first event with a seat after its
      expected seq is the mover's and is the move's own event (a claim's route, a draw's source, the tickets
      kept...), and no two acknowledged moves share a seq;
    - every event any client received (HTTP or socket) is the log's event at that seq (type, seat, time, reason,
      commitment, and every data field it shows);
    - leaks, in everything a person at seat S (or a spectator) received about the game before it ended (an answer
      is "before" when its seq, or any event's in it, is below the game_ended event's seq; one without a seq when
      received before game_ended's time): no key of HIDDEN_KEYS anywhere; no ticket id but those dealt to S up to
      that seq; no list of 6+ card colours (a pile order); no ticket named (as "Berlin\u2013Roma") but S's own; in each
      event, the fields S may not see are absent or null (and a commitment is there instead): the deck's and the
      ticket piles' shuffles, other seats' dealt cards and tickets, kept and returned tickets and blind draws; a
      bot's `reason` reaches no other seat or spectator before the end (it names the bot's tickets: "LEAK bot
      reason", and "... names a ticket" when it does), and everyone after the end exactly as logged; and a view
      (/state, hello) is S's own: `your_seat`, `tickets` and `offered_tickets` as the log says at that seq, each
      seat's public ticket count, public values plain.

    `stats`, when given, is filled with how much was checked (games, answers before and after the end, events
    compared with the log, hidden fields found redacted by event type, views, acknowledged moves), so that a
    caller can tell a clean result from a vacuous one.
    """
    tolerated = set(tolerate_statuses)
    problems: list[str] = []
    received, acks, server_errors, anomalies = recorder.snapshot()
    for error in server_errors:
        if error.status not in tolerated:
            problems.append(f"{error.status} from {error.method} {error.url}: {error.body[:500]}")
    for anomaly in anomalies:
        problems.append(f"anomaly {anomaly.kind} (game {anomaly.game}): {anomaly.detail}")
    if not recorder.keep_bodies:
        problems.append("the recorder kept no bodies: no leak scan, no event comparison")
    items_by_game: dict[str, list[Received]] = defaultdict(list)
    for item in received:
        items_by_game[item.game].append(item)
    acks_by_game: dict[str, list[Ack]] = defaultdict(list)
    for ack in acks:
        acks_by_game[ack.game].append(ack)
    findings = Findings()
    http = Http([url], recorder, give_up=60)
    try:
        for record in records:
            if not record.id:
                problems.append(f"game #{record.index} was never created: {record.problem}")
                continue
            if not record.finished:
                problems.append(f"game {record.id}: not finished ({record.problem}): its log is not checked")
                continue
            lines = _check_log(http, record, findings)
            if lines is None:
                continue
            findings.checked["games"] += 1
            truth = Truth(lines)
            _check_acks(record, truth, acks_by_game.get(record.id, []), findings)
            the_board = board(url, record.map)
            for item in items_by_game.get(record.id, []):
                check_item(record, truth, the_board, item, findings)
    finally:
        http.close()
    if stats is not None:
        stats.update(sorted(findings.checked.items()))
    return problems + findings.lines()


def _check_log(http: Http, record: GameRecord, findings: Findings) -> list[dict[str, Any]] | None:
    game = record.id
    answer = http.request("GET", f"/api/games/{game}/audit")
    if answer.status != 200:
        findings.add(game, "audit", f"GET /audit answered {answer.status}: {answer.text[:300]}")
        return None
    try:
        lines = [json.loads(line) for line in answer.text.splitlines() if line.strip()]
    except ValueError as error:
        findings.add(game, "audit", f"not JSON Lines: {error}")
        return None
    seqs = [line.get("seq") for line in lines]
    if seqs != list(range(1, len(lines) + 1)):
        duplicates = sorted(s for s, n in Counter(seqs).items() if n > 1)
        findings.add(game, "audit seqs", f"not 1..{len(lines)}: duplicates {duplicates[:10]}, first seqs {seqs[:5]}...")
    for before, line in itertools.pairwise(lines):
        if line.get("prev_hash") != before.get("hash"):
            findings.add(game, "audit chain", f"seq {line.get('seq')}: prev_hash is not seq {before.get('seq')}'s hash")
    types = [line.get("type") for line in lines]
    if types.count("game_ended") != 1 or types.count("game_scored") != 1:
        findings.add(game, "audit end", f"{types.count('game_ended')} game_ended, {types.count('game_scored')} game_scored")
    elif types[types.index("game_ended") + 1:] != ["seeds_revealed", "game_scored"]:  # the server seed, then the score
        findings.add(game, "audit end", f"after game_ended: {types[types.index('game_ended') + 1:][:10]}")
    if record.final_seq != len(lines):
        findings.add(game, "final seq", f"the summary said {record.final_seq} once scored; the audit has {len(lines)}")
    verify = http.request("GET", f"/api/games/{game}/verify")
    if verify.status != 200:
        findings.add(game, "verify", f"answered {verify.status}: {verify.text[:300]}")
    else:
        report = verify.json()
        if report.get("ok") is not True or report.get("problems"):
            findings.add(game, "verify", json.dumps(report)[:600])
        if report.get("events") != len(lines):
            findings.add(game, "verify", f"{report.get('events')} events verified, the audit has {len(lines)}")
        if lines and report.get("head_hash") != lines[-1].get("hash"):
            findings.add(game, "verify", "head_hash is not the last audit line's hash")
        if report.get("fair") is not True:  # every game here is provably fair (X-RNG-2)
            findings.add(game, "verify", f"fair is {report.get('fair')!r}, not true: {report.get('problems')}")
    return lines


def _check_acks(record: GameRecord, truth: Truth, acks: list[Ack], findings: Findings) -> None:
    game = record.id
    taken: dict[int, Ack] = {}
    findings.checked["acknowledged moves"] += len(acks)
    for ack in acks:
        where = f"{ack.path} ack of seat {ack.seat}'s {json.dumps(ack.move)} at {ack.expected_seq} -> {ack.seq}"
        for seq in range(ack.expected_seq + 1, ack.seq + 1):
            if seq in taken:
                other = taken[seq]
                findings.add(game, "ack twice", f"{where}: seq {seq} also acknowledged to {other.username} ({other.path})")
            taken[seq] = ack
        if ack.seq <= ack.expected_seq or ack.seq > truth.last:
            findings.add(game, "ack missing", f"{where}: the log ends at {truth.last}")
            continue
        span = [truth.lines[s] for s in range(ack.expected_seq + 1, ack.seq + 1)]
        own = next((line for line in span if line.get("seat") is not None), None)
        if own is None or own["seat"] != ack.seat or own["type"] not in MOVE_EVENTS.get(ack.move["type"], ()):
            shown = None if own is None else (own["seq"], own["type"], own["seat"])
            findings.add(game, "ack not in log", f"{where}: the log's first seated event there is {shown}")
            continue
        problem = _move_matches(ack.move, own["data"])
        if problem:
            findings.add(game, "ack not in log", f"{where}: seq {own['seq']} {problem}")


def _move_matches(move: dict[str, Any], data: dict[str, Any]) -> str | None:
    kind = move["type"]
    if kind == "draw_card" and (data.get("source") != move.get("source") or (
            move.get("source") == "market" and data.get("index") != move.get("index"))):
        return f"is a draw from {data.get('source')} {data.get('index')}"
    if kind == "claim_route" and data.get("route") != move.get("route"):
        return f"claims {data.get('route')}"
    if kind == "keep_tickets" and sorted(data.get("kept") or []) != sorted(move.get("tickets") or []):
        return f"keeps {data.get('kept')}"
    if kind == "build_station" and data.get("city") != move.get("city"):
        return f"builds in {data.get('city')}"
    return None
