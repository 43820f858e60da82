"""What the people at a table and its viewers see of their table (`bench.traffic.table.Table` is one): a protocol,
so that they name no module above them."""

from __future__ import annotations

from typing import Protocol

from bench.traffic.client import Http
from bench.traffic.recorder import Recorder
from bench.traffic.records import GameRecord


class Seating(Protocol):
    record: GameRecord
    http: Http
    recorder: Recorder
    think: tuple[float, float]
    poll: tuple[float, float]
    done: bool
    ended: bool

    def saw(self, seq: int) -> None: ...

    def saw_end(self) -> None: ...
