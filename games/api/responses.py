"""Response bodies of the API, for the OpenAPI schema: what selectors and services answer, field by field.

Views build their answers as plain data (games.play.selectors); these serializers describe that data exactly, and
the schemathesis run in the tests checks every response against them.
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from games.api.fields import ObjectSerializer
from games.api.hints_schema import event_data_schemas, schema_of
from games.api.moves_schema import MOVE_SCHEMA, PAYMENT_SCHEMA
from games.engine.cards import CARD_KINDS
from games.engine.scoring import SeatScore
from games.people.models import NOTIFICATION_KINDS
from games.store.models import BOT_LEVELS

HAND = {**PAYMENT_SCHEMA, "description": "cards by colour"}


class RegisteredSerializer(ObjectSerializer):
    username = serializers.CharField()
    token = serializers.CharField()


class TokenSerializer(ObjectSerializer):
    token = serializers.CharField()


class LoggedInSerializer(ObjectSerializer):
    username = serializers.CharField()


class OkSerializer(ObjectSerializer):
    ok = serializers.BooleanField()


class SeatSerializer(ObjectSerializer):
    seat = serializers.IntegerField()
    username = serializers.CharField(allow_null=True)
    bot = serializers.ChoiceField(choices=BOT_LEVELS, allow_null=True)
    resigned = serializers.BooleanField(help_text="the player left: the game's fallback bot plays this seat")
    hints = serializers.IntegerField(min_value=0, help_text="hints the seat's player asked the strong bot for")


class RematchOfferSerializer(ObjectSerializer):
    by = serializers.CharField()
    accepted_by = serializers.ListField(child=serializers.CharField())
    game = serializers.UUIDField(allow_null=True, help_text="the new game, once every person has accepted")


class RematchSerializer(ObjectSerializer):
    offer = RematchOfferSerializer()


class GameSummarySerializer(ObjectSerializer):
    id = serializers.UUIDField()
    map = serializers.ChoiceField(choices=["europe", "usa"])
    players = serializers.IntegerField(min_value=2, max_value=5)
    ranked = serializers.BooleanField()
    turn_seconds = serializers.IntegerField(allow_null=True)
    speed = serializers.ChoiceField(choices=["live", "daily"])
    days_per_move = serializers.IntegerField(allow_null=True, help_text="a daily game's days a decision")
    bank_days = serializers.IntegerField(allow_null=True, help_text="a daily game's bank of extra days per player")
    private = serializers.BooleanField(help_text="not listed in the lobby; seats by invitation")
    spectators_at_table = serializers.BooleanField(help_text="spectators may write in the table's chat")
    rematch_of = serializers.UUIDField(allow_null=True)
    fallback_bot = serializers.ChoiceField(
        choices=BOT_LEVELS, help_text="plays a seat whose time ran out or whose player resigned"
    )
    status = serializers.ChoiceField(choices=["open", "active", "finished"])
    seats = SeatSerializer(many=True)
    created_by = serializers.CharField()
    created_at = serializers.DateTimeField()
    seq = serializers.IntegerField(min_value=0)
    server_seed_hash = serializers.CharField(
        allow_null=True, min_length=64, max_length=64,
        help_text="SHA-256 (hex) of the game's secret server seed, fixed when it was created; the audit log reveals "
        "the seed once the game is over (docs/FAIRNESS.md). null: a game from before provably fair chance",
    )
    invite = serializers.CharField(
        required=False, allow_null=True, help_text="for the creator of an open private game: the link's token"
    )
    rematch = RematchOfferSerializer(required=False, allow_null=True, help_text="a finished game's rematch offer")
    analysis = serializers.ChoiceField(
        choices=["none", "queued", "running", "done", "failed"], required=False,
        help_text="a finished game's analysis: none until a player asks for it (POST /analysis), then its status",
    )


class PageSerializer(ObjectSerializer):
    # A page of a paginated list: how many in all and the links around it; subclasses add their `results`.
    count = serializers.IntegerField()
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)


class GameListSerializer(PageSerializer):
    results = GameSummarySerializer(many=True)


class PublicPlayerSerializer(ObjectSerializer):
    seat = serializers.IntegerField()
    cards = serializers.IntegerField()
    tickets = serializers.IntegerField()
    trains = serializers.IntegerField()
    stations = serializers.IntegerField()
    stations_left = serializers.IntegerField(required=False)
    score = serializers.IntegerField()
    choosing_tickets = serializers.BooleanField(required=False)


@extend_schema_field(HAND)
class HandField(serializers.JSONField):
    pass


@extend_schema_field({**schema_of(SeatScore), "description": "every part of one seat's final score"})
class SeatScoreField(serializers.JSONField):
    pass


class TunnelSerializer(ObjectSerializer):
    seat = serializers.IntegerField()
    route = serializers.CharField()
    cards = HandField()
    revealed = serializers.ListField(child=serializers.CharField())
    extra = serializers.IntegerField()


class ViewSerializer(ObjectSerializer):
    """The game as the requesting user may see it (docs/RULES.md X-SEC-1); once it is finished, everything."""

    map = serializers.ChoiceField(choices=["europe", "usa"])
    phase = serializers.CharField(help_text="open, setup_tickets, turn, second_card, tunnel_payment, keep_tickets, finished")
    current_seat = serializers.IntegerField(allow_null=True)
    your_seat = serializers.IntegerField(allow_null=True)
    first_seat = serializers.IntegerField(required=False)
    deciding_seats = serializers.ListField(child=serializers.IntegerField())
    players = PublicPlayerSerializer(many=True)
    market = serializers.ListField(
        child=serializers.ChoiceField(choices=CARD_KINDS, allow_null=True), help_text="face-up cards; null: an empty slot"
    )
    deck_size = serializers.IntegerField()
    discard_size = serializers.IntegerField(required=False)
    tickets_left = serializers.IntegerField(required=False)
    routes = serializers.DictField(child=serializers.IntegerField(), help_text="route id -> seat")
    stations = serializers.DictField(child=serializers.IntegerField(), help_text="city id -> seat")
    tunnel = TunnelSerializer(allow_null=True, required=False)
    last_round = serializers.BooleanField(required=False)
    turns_left = serializers.IntegerField(allow_null=True, required=False)
    deadline = serializers.DateTimeField(
        required=False, help_text="when the current decision times out (games with a clock, while active)"
    )
    hand = HandField()
    tickets = serializers.ListField(child=serializers.CharField())
    offered_tickets = serializers.ListField(child=serializers.CharField(), required=False)
    hands = serializers.ListField(child=HandField(), required=False)
    player_tickets = serializers.ListField(child=serializers.ListField(child=serializers.CharField()), required=False)
    offered = serializers.DictField(child=serializers.ListField(child=serializers.CharField()), required=False)
    draw_pile = serializers.ListField(child=serializers.CharField(), required=False)
    end_reason = serializers.CharField(allow_null=True, required=False)
    scores = serializers.ListField(child=SeatScoreField(), required=False)
    winner_seats = serializers.ListField(child=serializers.IntegerField(), required=False)


class StateSerializer(ObjectSerializer):
    seq = serializers.IntegerField(min_value=0)
    status = serializers.ChoiceField(choices=["open", "active", "finished"])
    view = ViewSerializer()
    presence = serializers.ListField(
        child=serializers.IntegerField(min_value=0), required=False,
        help_text="the seats with a WebSocket open now (in a replay too: the table now, not the game then)",
    )


@extend_schema_field(MOVE_SCHEMA)
class MoveOutField(serializers.JSONField):
    pass


class LegalMovesSerializer(ObjectSerializer):
    seq = serializers.IntegerField(min_value=0)
    moves = serializers.ListField(child=MoveOutField())


@extend_schema_field({"description": "the event's fields as you may see them, by type", "anyOf": event_data_schemas()})
class EventDataField(serializers.JSONField):
    pass


class EventSerializer(ObjectSerializer):
    seq = serializers.IntegerField(min_value=1)
    type = serializers.CharField()
    at = serializers.DateTimeField()
    seat = serializers.IntegerField(allow_null=True)
    # `data` (and ErrorSerializer's `fields`) also name properties of Serializer: DRF's metaclass takes declared
    # fields off the class, so the properties stay, but the stubs read the declaration as an override
    data = EventDataField()  # type: ignore[assignment]  # a declared field, not Serializer.data
    reason = serializers.CharField(
        required=False, help_text="on the first event of a bot's move only: why the bot made it, in words"
    )


class EventsSerializer(ObjectSerializer):
    seq = serializers.IntegerField(min_value=0)
    events = EventSerializer(many=True)


_SEAT_SCORE = schema_of(SeatScore)


@extend_schema_field(
    {
        **_SEAT_SCORE,
        "properties": {
            **_SEAT_SCORE["properties"],
            "username": {"type": "string", "nullable": True},
            "bot": {"type": "string", "enum": BOT_LEVELS, "nullable": True},
        },
        "required": [*_SEAT_SCORE["required"], "username", "bot"],
        "description": "every part of one seat's final score, and who sat there",
    }
)
class ScoreEntryField(serializers.JSONField):
    pass


class ScoreSerializer(ObjectSerializer):
    scores = serializers.ListField(child=ScoreEntryField())
    winner_seats = serializers.ListField(child=serializers.IntegerField())
    end_reason = serializers.CharField(allow_null=True)


class VerifySerializer(ObjectSerializer):
    ok = serializers.BooleanField()
    events = serializers.IntegerField(min_value=0)
    head_hash = serializers.CharField()
    problems = serializers.ListField(child=serializers.CharField())
    fair = serializers.BooleanField(
        allow_null=True,
        help_text="every random outcome recomputed from the seeds the log reveals (docs/FAIRNESS.md): null for a game "
        "from before provably fair chance, or one not over yet",
    )


class ErrorSerializer(ObjectSerializer):
    code = serializers.CharField(help_text="machine-readable: see the README's table of error codes")
    detail = serializers.CharField(help_text="a human sentence")
    rule = serializers.CharField(required=False, help_text="the docs/RULES.md rule ID that refuses a move")
    seq = serializers.IntegerField(required=False, help_text="the game's current seq (stale_seq)")
    field = serializers.CharField(required=False, allow_null=True, help_text="the request field at fault")
    fields = serializers.DictField(  # type: ignore[assignment]  # a declared field (see EventSerializer.data)
        child=serializers.CharField(), required=False, help_text="field -> problem"
    )


class MapRatingSerializer(ObjectSerializer):
    rating = serializers.FloatField(help_text="the rating shown: mu - 3 sigma")
    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    provisional = serializers.BooleanField(help_text="fewer than 5 rated games on this map")
    games = serializers.IntegerField(min_value=0)
    wins = serializers.IntegerField(min_value=0)


class LeaderboardEntrySerializer(MapRatingSerializer):
    username = serializers.CharField()
    bot = serializers.ChoiceField(choices=BOT_LEVELS, allow_null=True, help_text="the level a bot account rates")


class LeaderboardSerializer(PageSerializer):
    results = LeaderboardEntrySerializer(many=True)


class RatingsByMapSerializer(ObjectSerializer):
    europe = MapRatingSerializer()
    usa = MapRatingSerializer()


class RatingHistorySerializer(ObjectSerializer):
    game = serializers.UUIDField(allow_null=True, help_text="null: a private game (a public page names none)")
    map = serializers.ChoiceField(choices=["europe", "usa"])
    place = serializers.IntegerField(min_value=1, help_text="the best place of the player's seats")
    before = serializers.FloatField(help_text="the rating shown before the game")
    after = serializers.FloatField(help_text="the rating shown after the game")
    at = serializers.DateTimeField()
    mu_before = serializers.FloatField()
    sigma_before = serializers.FloatField()
    mu_after = serializers.FloatField()
    sigma_after = serializers.FloatField()


class TrendPointSerializer(ObjectSerializer):
    game = serializers.UUIDField(allow_null=True, help_text="null: a private game (a public page names none)")
    at = serializers.DateTimeField()
    decisions = serializers.IntegerField(min_value=0)
    mean_loss = serializers.FloatField(min_value=0)


class MapAnalysisSerializer(ObjectSerializer):
    games = serializers.IntegerField(min_value=1)
    decisions = serializers.IntegerField(min_value=0)
    mean_loss = serializers.FloatField(min_value=0)
    trend = TrendPointSerializer(many=True, help_text="the last 20 analysed games, oldest first")


class PlayerSerializer(ObjectSerializer):
    username = serializers.CharField()
    bot = serializers.ChoiceField(choices=BOT_LEVELS, allow_null=True, help_text="the level a bot account rates")
    ratings = RatingsByMapSerializer(help_text="by map (unrated maps: the starting rating, 0 games)")
    history = RatingHistorySerializer(many=True, help_text="rating changes, newest first (the last 50)")
    recent_games = GameSummarySerializer(many=True, help_text="the player's last games, newest first")
    analysis = serializers.DictField(
        child=MapAnalysisSerializer(), help_text="by map: points lost per decision over the analysed games"
    )


class MyGameSerializer(GameSummarySerializer):
    your_move = serializers.BooleanField(help_text="the game waits for your decision")
    deadline = serializers.DateTimeField(allow_null=True)
    new_moves = serializers.IntegerField(help_text="events since you last looked at the game")


class MyGamesSerializer(ObjectSerializer):
    results = MyGameSerializer(many=True)
    your_turn = serializers.IntegerField(help_text="how many games wait for your move")


class QueueStatusSerializer(ObjectSerializer):
    status = serializers.ChoiceField(choices=["waiting", "matched"])
    since = serializers.DateTimeField()
    map = serializers.ChoiceField(choices=["europe", "usa"])
    players = serializers.ListField(child=serializers.IntegerField(min_value=2, max_value=5))
    ranked = serializers.BooleanField()
    speed = serializers.ChoiceField(choices=["live", "daily"])
    bots_after = serializers.IntegerField(allow_null=True)
    game = serializers.UUIDField(allow_null=True, help_text="the game a table formed for you")
    waiting = serializers.IntegerField(required=False, help_text="compatible players waiting besides you")
    rating_gap = serializers.FloatField(required=False, help_text="the rating gap you accept now (it widens)")


class InvitationSerializer(ObjectSerializer):
    username = serializers.CharField()
    token = serializers.CharField()


class VacationStatusSerializer(ObjectSerializer):
    until = serializers.DateTimeField(allow_null=True, help_text="your daily clocks stand still until then")
    days_left = serializers.IntegerField(help_text="vacation days left in the last 365 days")


class NotificationSerializer(ObjectSerializer):
    id = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=NOTIFICATION_KINDS)
    game = serializers.UUIDField(allow_null=True)
    at = serializers.DateTimeField()
    read = serializers.BooleanField()
    text = serializers.CharField()
    data = serializers.DictField(required=False)  # type: ignore[assignment]  # a declared field (see EventSerializer.data)


class NotificationListSerializer(ObjectSerializer):
    results = NotificationSerializer(many=True)


class SigningKeySerializer(ObjectSerializer):
    id = serializers.CharField()
    algorithm = serializers.ChoiceField(choices=["ed25519"])
    public_key = serializers.CharField(help_text="base64 of the 32-byte Ed25519 public key")
    valid_from = serializers.DateTimeField()
    valid_to = serializers.DateTimeField(allow_null=True, help_text="null: still signing")


class KeysSerializer(ObjectSerializer):
    keys = SigningKeySerializer(many=True)


class CheckpointSerializer(ObjectSerializer):
    game = serializers.UUIDField()
    seq = serializers.IntegerField(min_value=1)
    head_hash = serializers.CharField(min_length=64, max_length=64)
    key_id = serializers.CharField()
    signature = serializers.CharField(
        help_text="base64 Ed25519 signature of the UTF-8 text 'ttr-checkpoint-v1', the game id, the seq and the head "
        "hash, one to a line (docs/CHECKPOINTS.md)"
    )


class ChatLineSerializer(ObjectSerializer):
    id = serializers.IntegerField(min_value=1)
    channel = serializers.ChoiceField(["table", "spectators"])
    username = serializers.CharField()
    text = serializers.CharField()
    at = serializers.DateTimeField()


class ChatLinesSerializer(ObjectSerializer):
    results = ChatLineSerializer(many=True)


class MutedSerializer(ObjectSerializer):
    username = serializers.CharField()
    muted = serializers.BooleanField()


class ReportedSerializer(ObjectSerializer):
    reported = serializers.BooleanField()


class AnalysisProgressSerializer(ObjectSerializer):
    status = serializers.ChoiceField(["queued", "running"])
    progress = serializers.FloatField(min_value=0, max_value=1)


class JudgedDecisionSerializer(ObjectSerializer):
    seq = serializers.IntegerField(min_value=0, help_text="the position decided on (the replay at this seq)")
    seat = serializers.IntegerField(min_value=0)
    played = MoveOutField()
    best = MoveOutField(help_text="the best candidate the search found (the move played when it is the best)")
    lead = serializers.FloatField(help_text="the seat's estimated final lead over the best other seat after the move played")
    loss = serializers.FloatField(min_value=0, help_text="points the best candidate is estimated to gain over it")
    stderr = serializers.FloatField(min_value=0, help_text="the standard error of that loss (paired samples)")
    mark = serializers.ChoiceField(["inaccuracy", "mistake", "blunder"], allow_null=True)
    reason = serializers.CharField(allow_blank=True, help_text="why the best move, in the bot's words")
    samples = serializers.IntegerField(min_value=0, help_text="sampled games the move played was judged on")


class LeadsPointSerializer(ObjectSerializer):
    seq = serializers.IntegerField(min_value=0)
    leads = serializers.DictField(child=serializers.FloatField(), help_text="by seat: the estimated final lead")


class AnalysedPlayerSerializer(ObjectSerializer):
    seat = serializers.IntegerField(min_value=0)
    username = serializers.CharField(allow_null=True)
    bot = serializers.ChoiceField(choices=BOT_LEVELS, allow_null=True)
    decisions = serializers.IntegerField(min_value=0)
    mean_loss = serializers.FloatField(min_value=0)
    inaccuracies = serializers.IntegerField(min_value=0)
    mistakes = serializers.IntegerField(min_value=0)
    blunders = serializers.IntegerField(min_value=0)


class AnalysisSerializer(ObjectSerializer):
    status = serializers.ChoiceField(["done"])
    bot = serializers.CharField(help_text="the analysing bot and its version")
    budget = serializers.DictField(child=serializers.IntegerField(), help_text="sampled games a decision")
    seq = serializers.IntegerField(min_value=0, help_text="the last seq of the log analysed")
    head_hash = serializers.CharField(help_text="the hash of that event")
    altered = serializers.BooleanField(help_text="the log no longer holds what was analysed")
    cpu_seconds = serializers.FloatField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    decisions = JudgedDecisionSerializer(many=True)
    leads = LeadsPointSerializer(many=True, help_text="the evaluation graph; the last point is the true final lead")
    players = AnalysedPlayerSerializer(many=True)


class HintSerializer(ObjectSerializer):
    move = MoveOutField()
    reason = serializers.CharField()
    seq = serializers.IntegerField(min_value=0, help_text="the game's seq once the hint is recorded")
    hints = serializers.IntegerField(min_value=1, help_text="hints this seat has used in the game")

