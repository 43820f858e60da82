"""The games `bench.traffic.play.play_games` creates: each one's seats (people and bots) and how it went."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class SeatInfo:
    seat: int
    username: str | None = None
    bot: str | None = None  # the bot's level
    mode: str | None = None  # a person's path: "http" or "socket"


@dataclass
class GameRecord:
    """One game `play_games` created: `finished` once it ended and /score answered; `final_seq` then."""

    index: int
    map: str
    players: int
    url: str  # the base URL it was created on
    seats: list[SeatInfo]
    tokens: dict[str, str]  # username -> token, for every person seated (and the spectator)
    spectator: str | None = None
    strong: bool = False
    id: str = ""
    finished: bool = False
    final_seq: int = 0
    problem: str | None = None  # why it did not finish, when it did not

    def seat_of(self, username: str | None) -> int | None:
        return next((s.seat for s in self.seats if username is not None and s.username == username), None)
