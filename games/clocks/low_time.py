"""`clock_running_out`: a person is told when WARN_SHARE of a daily decision's time is spent (once a decision).

Run by the sweep for the daily games whose clocks may need a look; it answers when to look again."""

from __future__ import annotations

from datetime import datetime

from games.clocks import turn_clocks
from games.people import inbox
from games.store import states
from games.store.models import Game, map_name


def warn(game: Game, *, now: datetime) -> datetime | None:
    """Tell each person whose daily decision in `game` has passed its warning (and not its deadline); the next
    moment something will be due (a warning or a deadline), or None when nothing is."""
    state = states.state_at(game.pk, game.seq)
    users = {seat.number: seat.user_id for seat in game.seat_list if seat.user_id and not seat.played_by_bot}
    warnings = turn_clocks.deadlines(game, state, share=turn_clocks.WARN_SHARE)
    ends = turn_clocks.deadlines(game, state)
    opened = turn_clocks.decision_seq(game, state)
    upcoming = []
    for seat, end in ends.items():
        if seat not in users:
            continue
        if warnings[seat] <= now < end:
            left = end - now
            hours = max(1, round(left.total_seconds() / 3600))
            inbox.send(
                users[seat], "clock_running_out", f"{game.pk}:{opened}:{seat}",
                f"Your clock in your {map_name(game.map)} game runs out in about {hours} hour{'s' if hours != 1 else ''}.",
                game.pk, deadline=end.isoformat(),
            )
        upcoming += [moment for moment in (warnings[seat], end) if moment > now]
    return min(upcoming, default=None)
