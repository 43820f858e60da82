"""What a client received, held against the game's log (`bench.traffic.truth.Truth`): each event is the log's
event at its seq, and nothing received before the end shows what the receiver may not see (`bench.traffic.hidden`).
For `bench.traffic.checks.check_games`."""

from __future__ import annotations

import json
from typing import Any

from bench.traffic.findings import Findings
from bench.traffic.hidden import CARD_KINDS, HIDDEN_KEYS, hidden_fields, walk
from bench.traffic.recorder import Received
from bench.traffic.records import GameRecord
from bench.traffic.truth import Board, Truth


def _seq_of(body: Any) -> int | None:
    """The latest seq an answer reflects: its own `seq` or any of its events' (None: it names none)."""
    if not isinstance(body, dict):
        return None
    seqs = [body["seq"]] if isinstance(body.get("seq"), int) else []
    events = body.get("events")
    if isinstance(events, list):
        seqs += [e["seq"] for e in events if isinstance(e, dict) and isinstance(e.get("seq"), int)]
    return max(seqs) if seqs else None


def check_item(record: GameRecord, truth: Truth, the_board: Board, item: Received, findings: Findings) -> None:
    game = record.id
    try:
        body = item.body()
    except ValueError:
        if item.status is None or item.status < 500:
            findings.add(game, "not JSON", f"{item.source} ({item.status}) to {item.username}: {item.text()[:200]}")
        return
    viewer = item.seat
    who = f"{item.source} to {item.username} (seat {viewer})"
    seq = _seq_of(body)
    before_end = seq < truth.ended if seq is not None else item.at < truth.ended_at
    events = body.get("events") if isinstance(body, dict) else None
    if isinstance(events, list):
        for event in events:
            _check_event(game, truth, the_board, viewer, event, before_end, who, findings)
    findings.checked["answers before the end" if before_end else "answers after the end"] += 1
    if not before_end:
        return
    upto = seq if seq is not None else truth.ended - 1
    known = truth.known(viewer, upto)
    for path, value in walk(body):
        if path.endswith("#key"):
            if value in HIDDEN_KEYS:
                findings.add(game, "LEAK hidden key", f"{who} at seq {seq}: {path} before the end")
        elif isinstance(value, str):
            if value in the_board.tickets and value not in known:
                findings.add(game, "LEAK ticket id", f"{who} at seq {seq}: ticket {value} at {path}, never dealt to it")
            elif the_board.names is not None and not path.endswith(".reason") and len(value) > 4:
                for name in the_board.names.findall(value):
                    if the_board.by_name[name] not in known:
                        findings.add(game, "LEAK ticket name", f"{who} at seq {seq}: {path} = {value[:200]!r}")
        elif isinstance(value, list) and len(value) >= 6 and all(isinstance(v, str) and v in CARD_KINDS for v in value):
            findings.add(game, "LEAK pile order", f"{who} at seq {seq}: {path} holds {len(value)} cards in order")
    view = None
    if isinstance(body, dict) and isinstance(body.get("view"), dict) and isinstance(body.get("seq"), int):
        view = body["view"]
    elif isinstance(body, dict) and body.get("type") == "hello" and isinstance(body.get("state"), dict):
        view = body["state"]
    if view is not None and seq is not None:
        _check_view(game, truth, viewer, view, seq, who, findings)


def _check_event(game: str, truth: Truth, the_board: Board, viewer: int | None, event: dict[str, Any], before_end: bool,
                 who: str, findings: Findings) -> None:
    seq = event.get("seq")
    line = truth.lines.get(seq) if isinstance(seq, int) else None
    where = f"{who}: {event.get('type')} #{seq}"
    if line is None:
        findings.add(game, "event not in log", where)
        return
    for key in ("type", "seat", "at"):
        if event.get(key) != line.get(key):
            findings.add(game, "event differs from log", f"{where}: {key} {event.get(key)!r}, the log {line.get(key)!r}")
    # a bot's reason names its tickets: before the end only its own seat's viewer reads it (X-SEC-1)
    own_seat = viewer is not None and viewer == line.get("seat")
    expected_reason = line.get("reason") if own_seat or not before_end else None
    if event.get("reason") != expected_reason:
        kind = "LEAK bot reason" if expected_reason is None else "event differs from log"
        findings.add(game, kind, f"{where}: reason {event.get('reason')!r} to seat {viewer}, log {line.get('reason')!r}")
    data, truth_data = event.get("data") or {}, line["data"]
    hidden = hidden_fields(line, viewer) if before_end else ()
    findings.checked["events compared"] += 1
    for name in hidden:
        if data.get(name) is None and truth_data.get(name) is not None:
            findings.checked[f"redacted {line['type']}.{name}"] += 1
    for key, value in data.items():
        if key == "commitment":
            if value != (line.get("commitment") or None):
                findings.add(game, "event differs from log", f"{where}: commitment is not the log's")
            continue
        if value is None:
            if truth_data.get(key) is not None and key not in hidden:
                findings.add(game, "over-redacted", f"{where}: {key} hidden from seat {viewer}")
        elif key in hidden:
            findings.add(game, "LEAK event field", f"{where}: shows {key} to seat {viewer} before the end")
        elif _plain(value) != _plain(truth_data.get(key)):
            shown, logged = str(value)[:100], str(truth_data.get(key))[:100]
            findings.add(game, "event differs from log", f"{where}: {key} {shown}, the log {logged}")
    if hidden and not line.get("commitment"):
        findings.add(game, "no commitment", f"{where}: hides {hidden} but the log commits to nothing")
    if hidden and data.get("commitment") != line.get("commitment"):
        findings.add(game, "no commitment", f"{where}: hides {hidden} without the commitment")
    reason = event.get("reason")
    if before_end and isinstance(reason, str) and the_board.names is not None and event.get("seat") != viewer:
        named = the_board.names.findall(reason)
        if named:
            findings.add(game, "LEAK bot reason names a ticket",
                         f"{where} (seat {event.get('seat')}) tells seat {viewer}: {reason!r} -> "
                         f"{[the_board.by_name[n] for n in named]}")


def _plain(value: Any) -> Any:
    return json.loads(json.dumps(value, sort_keys=True))


def _check_view(game: str, truth: Truth, viewer: int | None, view: dict[str, Any], seq: int, who: str,
                findings: Findings) -> None:
    where = f"{who}: view at seq {seq}"
    findings.checked["views"] += 1
    if view.get("your_seat") != viewer:
        findings.add(game, "LEAK someone else's view", f"{where}: your_seat {view.get('your_seat')}")
        return
    if viewer is None:
        if view.get("hand") or view.get("tickets") or view.get("offered_tickets"):
            findings.add(game, "LEAK spectator view", f"{where}: hand {view.get('hand')} tickets {view.get('tickets')} "
                         f"offered {view.get('offered_tickets')}")
    else:
        if set(view.get("tickets") or []) != truth.held(viewer, seq):
            findings.add(game, "view differs from log", f"{where}: tickets {view.get('tickets')}, the log "
                         f"{sorted(truth.held(viewer, seq))}")
        if "offered_tickets" in view and set(view.get("offered_tickets") or []) != truth.offered(viewer, seq):
            findings.add(game, "view differs from log", f"{where}: offered {view.get('offered_tickets')}, the log "
                         f"{sorted(truth.offered(viewer, seq))}")
    for public in view.get("players") or []:
        if not isinstance(public, dict):
            continue
        if not all(isinstance(v, (int, bool, type(None))) for v in public.values()):
            findings.add(game, "LEAK public player", f"{where}: {json.dumps(public)[:300]}")
        seat = public.get("seat")
        if isinstance(seat, int) and public.get("tickets") != truth.held_count(seat, seq):
            findings.add(game, "view differs from log", f"{where}: seat {seat} holds {public.get('tickets')} tickets, "
                         f"the log {truth.held_count(seat, seq)}")
