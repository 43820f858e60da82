"""Who sees what, as golden text: under each event, how the viewers it is redacted for read it (`redact`), and
what changed in each viewer's view once the event is applied (`view`, in the API's JSON: `view_json`).

      card_drawn seat=0 source=deck card=red
        seat1,seat2,spectator see: card_drawn seat=0 source=deck
        view all: deck_size=91 players.0.cards=5
        view seat0: hand=red:3+locomotive:1

A viewer is `seat<n>` or `spectator`; an event that every viewer reads whole has no `see` line. The views are
those of the game folded from its events, as the server folds them. A view is written as paths to its values
(`players.0.cards`, `routes.denver--omaha`): after the first event every path, after each later one the paths
whose value changed; those the same for every viewer on the `view all` line, the rest on one line for each set
of viewers they are the same for. Cards by kind (a hand, a payment) are one value; any other mapping, and a list of
records or of lists, is split into paths. A path gives way only to its parent's new value or to its children's
(`changes` checks it), so the lines, applied in order (`read_views`), are every viewer's whole view after every event.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from games.engine import State, evolve_in_place, redact, view
from games.engine.cards import CARD_KINDS
from games.engine.codec import view_json
from games.engine.events import Event, GameStarted
from games.engine.evolve import initial_state
from tests.golden.text import INDENT, TOKEN, event_fields, record_lines, value_text

Paths = dict[str, Any]
SIGHT_LINE = re.compile(r"    (view [a-z0-9,]+|[a-z0-9,]+ see):( |$)")  # the first line of a `see` or `view` record


def viewers(players: int) -> list[tuple[str, int | None]]:
    return [*((f"seat{seat}", seat) for seat in range(players)), ("spectator", None)]


@dataclass
class Sight:
    """Folds a game's events and writes each one's lines: the event, then who sees what of it."""

    players: int
    state: State | None = None
    seen: dict[str, Paths] = field(default_factory=dict)  # each viewer's view after the last event

    def lines(self, events: tuple[Event, ...]) -> list[str]:
        return [line for event in events for line in self._event_lines(event)]

    def _event_lines(self, event: Event) -> list[str]:
        if self.state is None:
            assert isinstance(event, GameStarted), f"a game starts with game_started, not {event.type}"
            self.state = initial_state(event)
        else:
            evolve_in_place(self.state, event)
        now = {name: view_paths(self.state, viewer) for name, viewer in viewers(self.players)}
        changed = {name: changes(self.seen.get(name, {}), now[name]) for name in now}
        self.seen = now
        return [*record_lines(event.type, event_fields(event), 1), *_read_lines(event, self.players),
                *_view_lines(changed)]


def view_paths(state: State, viewer: int | None) -> Paths:
    return paths(view_json(view(state, viewer)))


def paths(value: Any, prefix: str = "") -> Paths:
    """`value` as paths to its values: cards by kind and lists of plain values stay whole."""
    if isinstance(value, dict) and value and not _is_cards(value):
        items: list[tuple[Any, Any]] = list(value.items())
    elif isinstance(value, list | tuple) and any(isinstance(item, dict | list | tuple) for item in value):
        items = list(enumerate(value))
    else:
        return {prefix: value}
    found: Paths = {}
    for key, item in items:
        found.update(paths(item, f"{prefix}.{key}" if prefix else str(key)))
    return found


def changes(before: Paths, after: Paths) -> Paths:
    """The paths of `after` whose value reads differently from `before`'s. A path of `before` may go only because
    its parent or its children took a value: anything else could not be told from the lines."""
    changed = {p: v for p, v in after.items() if p not in before or value_text(before[p]) != value_text(v)}
    for gone in before.keys() - after.keys():
        assert any(_nested(gone, path) for path in changed), f"the view lost {gone} with nothing in its place"
    return changed


def _read_lines(event: Event, players: int) -> list[str]:
    """`<viewers> see: <the event as they read it>`, for each reading other than the whole event."""
    readings: list[tuple[Event, list[str]]] = []
    for name, viewer in viewers(players):
        read = redact(event, viewer)
        if read != event:
            names = next((names for other, names in readings if other == read), None)
            if names is None:
                readings.append((read, names := []))
            names.append(name)
    return [line for read, names in readings
            for line in record_lines(f"{','.join(names)} see: {read.type}", event_fields(read), 2)]


def _view_lines(changed: dict[str, Paths]) -> list[str]:
    """`view all:` with the changes every viewer shares, then `view <viewers>:` for each set of viewers with the
    same remaining changes."""
    texts = {name: {p: value_text(v) for p, v in mine.items()} for name, mine in changed.items()}
    first_name = next(iter(changed))
    shared = [p for p, text in texts[first_name].items() if all(other.get(p) == text for other in texts.values())]
    groups: dict[tuple[tuple[str, str], ...], list[str]] = {}
    for name, mine in texts.items():
        rest = tuple((p, text) for p, text in mine.items() if p not in shared)
        if rest:
            groups.setdefault(rest, []).append(name)
    lines = record_lines("view all:", {p: changed[first_name][p] for p in shared}, 2) if shared else []
    for rest, names in groups.items():
        lines.extend(record_lines(f"view {','.join(names)}:", {p: changed[names[0]][p] for p, _ in rest}, 2))
    return lines


def read_views(text: str, players: int) -> Iterator[dict[str, dict[str, str]]]:
    """Every viewer's whole view after each event of a golden file, path -> value as written, from its `view`
    lines alone."""
    names = [name for name, _ in viewers(players)]
    current: dict[str, dict[str, str]] = {name: {} for name in names}
    started = False
    for record in _view_records(text):
        if record is None:  # the next event
            if started:
                yield {name: dict(mine) for name, mine in current.items()}
            started = True
            continue
        who, written = record
        for name in names if who == "all" else who.split(","):
            for path, value in written.items():
                mine = current[name]
                for old in [old for old in mine if _nested(old, path)]:
                    del mine[old]
                mine[path] = value
    if started:
        yield {name: dict(mine) for name, mine in current.items()}


def _view_records(text: str) -> Iterator[tuple[str, dict[str, str]] | None]:
    """None at each event, then each of its `view` records as (who, path -> value as written)."""
    joined: list[str] = []
    for line in [*text[text.index("\nsetup\n"):text.index("\nfinal\n")].splitlines(), ""]:
        if joined and line.startswith(INDENT * 3):  # a `view` record goes on
            joined.append(("" if joined[-1].endswith((",", "[")) else " ") + line.strip())
            continue
        if joined:
            who, _, rest = "".join(joined).strip().removeprefix("view ").partition(": ")
            yield who, dict(TOKEN.findall(rest))
            joined = []
        if line.startswith(INDENT) and not line.startswith(INDENT + " "):
            yield None
        elif line.startswith(INDENT * 2 + "view "):
            joined = [line]


def events_only(text: str) -> str:
    """A golden file without its `see` and `view` records: what happened, as everyone reads it at the end."""
    kept, skipping = [], False
    for line in text.splitlines(keepends=True):
        skipping = (skipping and line.startswith(INDENT * 3)) or SIGHT_LINE.match(line) is not None
        if not skipping:
            kept.append(line)
    return "".join(kept)


def _is_cards(value: dict[Any, Any]) -> bool:
    return all(key in CARD_KINDS and isinstance(n, int) for key, n in value.items())


def _nested(a: str, b: str) -> bool:
    """The same path, or one the other's parent."""
    return a == b or a.startswith(b + ".") or b.startswith(a + ".")
