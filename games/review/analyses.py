"""Post-game analysis, the server's part: asking for it, running it on its worker, storing it once, serving it.

The judging itself is the bots' (bots/analysis.py, pure, called here as the engine is), run by the task
`analyse_game` on the analysis queue (settings.TTR_ANALYSIS_QUEUE) with the budget of the settings
(TTR_ANALYSIS_SAMPLES, TTR_ANALYSIS_SINGLE): asked for by a player, or queued unasked for a ranked game as it is
scored when that queue is idle (else by the worker's sweep, once it is). An analysis reads a finished game's log and writes
only its own rows (`Analysis`, `SeatAnalysis`): the game's log never changes. It keeps the seq and hash of the log's
last event it read, so an answer says when the log no longer holds what was analysed.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from celery import shared_task
from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Count, Q, QuerySet, Sum
from django.utils import timezone

from bots import analysis as judge
from bots.analysis import Budget, GameAnalysis, Judgement
from games.engine.events import DeckShuffled, GameAborted, GameScored
from games.engine.played import NotReplayable
from games.review.models import Analysis, SeatAnalysis
from games.review.shapes import (
    AnalysedPlayer,
    AnalysisDone,
    AnalysisNone,
    AnalysisProgress,
    JudgedDecision,
    LeadsPoint,
    MapAnalysis,
    TrendPoint,
    stored,
)
from games.store import event_log, notify
from games.store.models import Event, Game, GameId
from games.store.service_error import ServiceError
from games.store.viewers import seat_of
from games.trust.verify import chain_problems

TREND_GAMES = 20  # the player's page: the trend of their mean loss over this many analysed games


# Asking


def analysis_request(game_id: GameId, *, user: AbstractBaseUser) -> Analysis:
    """A player of a finished game asks for its analysis: queued once (a failed one is queued again). Who may ask
    is told before whether the game can be analysed yet: 403 before 409."""
    game = _game(game_id)
    if seat_of(game, user) is None:
        raise ServiceError("not_a_player", "only the game's players may ask for its analysis", status=403)
    _check_analysable(game)
    with transaction.atomic():
        analysis, created = Analysis.objects.select_for_update().get_or_create(
            game=game, defaults={"requested_by_id": user.pk}
        )
        if not created and analysis.status == Analysis.Status.FAILED:
            analysis.status, analysis.progress, analysis.error = Analysis.Status.QUEUED, 0.0, ""
            analysis.requested_by_id, analysis.requested_at = user.pk, timezone.now()
            analysis.save()
            created = True
        if created:
            transaction.on_commit(lambda: _send(game.pk))
    return analysis


def _game(game_id: GameId) -> Game:
    game = Game.objects.filter(pk=game_id).first()
    if game is None:
        raise ServiceError("not_found", "no such game", status=404)
    return game


def _check_analysable(game: Game) -> None:
    if game.status != Game.Status.FINISHED or game.scored_at is None:
        raise ServiceError("not_finished", "a game is analysed once it is over and scored", status=409)
    if _aborted(game):
        raise ServiceError("not_finished", "an aborted game has no result to analyse", status=409)


def _aborted(game: Game) -> bool:
    return Event.objects.filter(game=game, type=GameAborted.type).exists()


def _send(game_id: GameId) -> None:
    notify.send(analyse_game, str(game_id), queue=settings.TTR_ANALYSIS_QUEUE)


def analysis_game_over(game: Game, scored: GameScored | None) -> bool:
    """A game just scored (in scoring's transaction; `scored` None: aborted): a ranked one is queued for its
    analysis at once, sent after the commit, when no analysis waits (TTR_ANALYSIS_RANKED), so that it starts as soon
    as it ends on an idle queue; on a busy one the sweep takes it later, newest first. Whether it was queued."""
    if scored is None or not game.ranked or not settings.TTR_ANALYSIS_RANKED or _waiting():
        return False
    _, created = Analysis.objects.get_or_create(game=game)
    if created:
        transaction.on_commit(lambda: _send(game.pk))
    return created


def game_over_heard(sender: object, *, game: Game, scored: GameScored | None, **_: object) -> None:
    """The receiver of games.play.scoring's `game_over` (connected by games/apps.py, dispatch_uid "analysis")."""
    analysis_game_over(game, scored)


def _waiting() -> bool:
    return Analysis.objects.filter(status__in=[Analysis.Status.QUEUED, Analysis.Status.RUNNING]).exists()


def analysis_sweep(*, now: datetime | None = None) -> int:
    """The analysis worker's beat: requests whose message was lost, and runs silent for too long, are sent again;
    when none waits, the newest ranked game not analysed yet is queued (TTR_ANALYSIS_RANKED: a game that ended
    while the queue was busy; one that ends on an idle queue is queued as it ends, `analysis_game_over`). How
    many sent."""
    now = now or timezone.now()
    stale = now - timedelta(seconds=settings.TTR_ANALYSIS_STALE_SECONDS)
    lost = list(Analysis.objects.filter(
        Q(status=Analysis.Status.QUEUED, requested_at__lt=stale) | Q(status=Analysis.Status.RUNNING, started_at__lt=stale)
    ).values_list("game_id", flat=True)[:10])
    # Sent again once per stale period, not on every beat (a long queue of requests is not lost, only slow).
    Analysis.objects.filter(game_id__in=lost, status=Analysis.Status.QUEUED).update(requested_at=now)
    for game_id in lost:
        _send(game_id)
    sent = len(lost)
    if not _waiting() and settings.TTR_ANALYSIS_RANKED:
        game = (
            Game.objects.filter(status=Game.Status.FINISHED, ranked=True, scored_at__isnull=False, analysis__isnull=True)
            .order_by("-finished_at").first()
        )
        if game is not None and not _aborted(game):
            Analysis.objects.get_or_create(game=game)
            _send(game.pk)
            sent += 1
    return sent


# Running (on the analysis queue's worker)


@shared_task(ignore_result=True, acks_late=True)
def analyse_game(game_id: str) -> str:
    return analysis_run(game_id)


def analysis_run(game_id: GameId) -> str:
    """Judge the game's log (bots/analysis.py) and store the result once; what became of the request ("done",
    "failed", or why nothing ran: "missing", "done already", "running elsewhere")."""
    started = timezone.now()
    with transaction.atomic():
        analysis = Analysis.objects.select_for_update().filter(game_id=game_id).first()
        if analysis is None:
            return "missing"
        if analysis.status == Analysis.Status.DONE:
            return "done already"
        fresh = started - timedelta(seconds=settings.TTR_ANALYSIS_STALE_SECONDS)
        if analysis.status == Analysis.Status.RUNNING and analysis.started_at and analysis.started_at > fresh:
            return "running elsewhere"
        analysis.status, analysis.started_at, analysis.progress = Analysis.Status.RUNNING, started, 0.0
        analysis.save(update_fields=["status", "started_at", "progress"])
    game = Game.objects.get(pk=game_id)
    rows = list(event_log.rows_between(game.pk, 0, game.seq))
    mine = Analysis.objects.filter(game_id=game_id, started_at=started)  # this run's row (a taken-over run writes nothing)
    cpu = time.process_time()
    budget = Budget(settings.TTR_ANALYSIS_SAMPLES, settings.TTR_ANALYSIS_SINGLE)
    events = [event_log.engine_event(row) for row in rows]
    progress = _Progress(mine)
    judgements = []
    try:
        for judgement, total in judge.judging(events, budget, seed=str(game_id)):
            judgements.append(judgement)
            progress.write(len(judgements), total)
    except NotReplayable as error:
        mine.update(status=Analysis.Status.FAILED, error=str(error)[:300], finished_at=timezone.now())
        return "failed"
    result = GameAnalysis.of(events, judgements)
    types = [event.type for event in events]
    decisions = [_decision(j, move_event(types, j.seq)) for j in result.judgements]
    with transaction.atomic():
        written = mine.update(
            status=Analysis.Status.DONE, progress=1.0, finished_at=timezone.now(), bot=judge.VERSION,
            budget=budget.as_dict(), seq=game.seq, head_hash=rows[-1].hash if rows else "", decisions=decisions,
            leads=_leads(result, game.seq), cpu_seconds=round(time.process_time() - cpu, 2), error="",
        )
        if written:
            _store_seats(game, result.judgements)
    return "done" if written else "taken over"


class _Progress:
    """A run's progress, written at most once a second (each write is a round trip)."""

    def __init__(self, mine: QuerySet[Analysis]) -> None:
        self.mine, self.last = mine, 0.0

    def write(self, done: int, total: int) -> None:
        now = time.monotonic()
        if now - self.last >= 1.0 or done == total:
            self.last = now
            self.mine.update(progress=round(done / total, 3) if total else 1.0)


def move_event(types: Sequence[str], at: int) -> int:
    """The seq of the event naming the move decided at position `at` (`types[k]`: the type of the log's event seq
    k + 1): the move's events start just after the position, any reshuffle it caused first (games/engine/played.py).
    A decision's `seq` is that position, the last event before the move, which may be another seat's: a mark shown
    at it told one seat's move beside another seat's event (issue #33)."""
    k = at
    while k < len(types) and types[k] == DeckShuffled.type:
        k += 1
    return k + 1


def _decision(j: Judgement, event: int) -> dict[str, Any]:
    low, high = j.interval
    return stored(JudgedDecision(
        seq=j.seq, event=event, seat=j.seat, played=j.played, best=j.best, lead=round(j.lead, 2), loss=round(j.loss, 2),
        stderr=round(j.stderr, 2), loss_low=round(low, 2), loss_high=round(high, 2), mark=j.mark, reason=j.reason,
        samples=j.samples,
    ))


def _leads(result: GameAnalysis, last_seq: int) -> list[dict[str, Any]]:
    """The evaluation graph: at each decision every seat's latest estimate of its final lead; at the end the true
    final leads."""
    latest: dict[str, float] = {}
    points: list[LeadsPoint] = []
    for j in result.judgements:
        latest[str(j.seat)] = round(j.lead, 2)
        point = LeadsPoint(seq=j.seq, leads=dict(latest))
        if points and points[-1].seq == j.seq:  # the setup's ticket choices share a position
            points[-1] = point
        else:
            points.append(point)
    points.append(LeadsPoint(seq=last_seq, leads={str(seat): lead for seat, lead in result.final_leads.items()}))
    return [stored(point) for point in points]


def _store_seats(game: Game, judgements: Sequence[Judgement]) -> None:
    users = {s.number: s.user_id for s in game.seats.all()}
    rows = []
    for seat in sorted(users):
        mine = [j for j in judgements if j.seat == seat]
        marks = [j.mark for j in mine]
        rows.append(SeatAnalysis(
            game=game, seat=seat, user_id=users[seat], map=game.map, at=game.finished_at or timezone.now(),
            decisions=len(mine), loss=round(sum(j.loss for j in mine), 2), inaccuracies=marks.count("inaccuracy"),
            mistakes=marks.count("mistake"), blunders=marks.count("blunder"),
        ))
    SeatAnalysis.objects.filter(game=game).delete()
    SeatAnalysis.objects.bulk_create(rows)


# Serving


def analysis_answer(game: Game) -> AnalysisDone | AnalysisProgress | AnalysisNone:
    """GET /api/games/{id}/analysis: "none" until asked (a normal state, answered 200 as the summary's `analysis`
    tells it), its progress while it runs (202), the analysis when done."""
    analysis = Analysis.objects.filter(game=game).first()
    if analysis is None:
        return AnalysisNone(status="none")
    if analysis.status == Analysis.Status.FAILED:
        raise ServiceError("analysis_failed", f"the analysis failed: {analysis.error}", status=409)
    if analysis.status != Analysis.Status.DONE:
        return AnalysisProgress(status=analysis.status, progress=analysis.progress)
    rows = list(event_log.rows_between(game.pk, 0, analysis.seq))
    types = [row.type for row in rows]
    return AnalysisDone(
        status="done", bot=analysis.bot, budget=analysis.budget, seq=analysis.seq, head_hash=analysis.head_hash,
        altered=_altered(rows, analysis), cpu_seconds=analysis.cpu_seconds, finished_at=analysis.finished_at,
        # An analysis stored before its decisions kept their move's event: found again in the log.
        decisions=tuple(JudgedDecision.of_stored(d, event=move_event(types, d["seq"])) for d in analysis.decisions),
        leads=tuple(LeadsPoint.of_stored(point) for point in analysis.leads), players=_players(game),
    )


def _altered(rows: list[Event], analysis: Analysis) -> bool:
    """Whether the log (`rows`, to the analysed seq) no longer holds what was analysed: a broken chain, or another
    head at the analysed seq."""
    return bool(chain_problems(rows)) or not rows or rows[-1].hash != analysis.head_hash


def _players(game: Game) -> tuple[AnalysedPlayer, ...]:
    seats = {s.number: s for s in game.seats.select_related("user")}
    answer = []
    for part in SeatAnalysis.objects.filter(game=game).order_by("seat"):
        seat = seats.get(part.seat)
        answer.append(AnalysedPlayer(
            seat=part.seat, username=seat.user.username if seat and seat.user else None,
            bot=(seat.bot or None) if seat else None, decisions=part.decisions,
            mean_loss=round(part.loss / part.decisions, 2) if part.decisions else 0.0,
            inaccuracies=part.inaccuracies, mistakes=part.mistakes, blunders=part.blunders,
        ))
    return tuple(answer)


def player_analysis(user: AbstractBaseUser) -> dict[str, MapAnalysis]:
    """A player's page: per map, the mean points lost per decision over their analysed games, and its trend."""
    mine = SeatAnalysis.objects.filter(user_id=user.pk)
    totals = mine.values("map").annotate(games=Count("id"), decisions=Sum("decisions"), loss=Sum("loss"))
    return {
        row["map"]: MapAnalysis(
            games=row["games"], decisions=row["decisions"], mean_loss=_mean(row["loss"], row["decisions"]),
            trend=tuple(
                TrendPoint(game=part.game_id, at=part.at, decisions=part.decisions,
                           mean_loss=_mean(part.loss, part.decisions))
                for part in reversed(mine.filter(map=row["map"]).order_by("-at")[:TREND_GAMES])
            ),
        )
        for row in totals.order_by("map")
    }


def _mean(loss: float, decisions: int) -> float:
    return round(loss / decisions, 2) if decisions else 0.0
