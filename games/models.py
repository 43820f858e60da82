"""Every model of the games app, for Django: each is defined in the package of its layer (docs/DESIGN.md, the map).

Import a model from its own package (`games.store.models`, `games.play.models`, ...); this module only makes sure
Django loads them all. The tables and migrations are the app's, unchanged by where the classes live.
"""

from games.clocks.models import Vacation
from games.lobby.models import QueueEntry
from games.people.models import Account, LimitHit, Notification
from games.play.models import Invitation, Rating, RatingChange, RematchOffer
from games.review.models import Analysis, SeatAnalysis
from games.store.models import BOT_LEVELS, BotAccount, Event, Game, Heartbeat, Seat, Snapshot
from games.table.models import ChatBan, ChatMessage, ChatMute, ChatReport
from games.tournaments.models import Entry, Table, Tournament, TournamentEvent
from games.trust.models import Checkpoint

__all__ = [
    "BOT_LEVELS", "Account", "Analysis", "BotAccount", "ChatBan", "ChatMessage", "ChatMute", "ChatReport",
    "Checkpoint", "Entry", "Event", "Game", "Heartbeat", "Invitation", "LimitHit", "Notification", "QueueEntry", "Rating",
    "RatingChange", "RematchOffer", "Seat", "SeatAnalysis", "Snapshot", "Table", "Tournament", "TournamentEvent", "Vacation",
]
