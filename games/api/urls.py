from django.urls import path

from games.api import auth, views, views_ratings

urlpatterns = [
    path("auth/register", auth.RegisterView.as_view()),
    path("auth/token", auth.TokenView.as_view()),
    path("auth/login", auth.LoginView.as_view()),
    path("auth/logout", auth.LogoutView.as_view()),
    path("games", views.GamesView.as_view()),
    path("games/<uuid:game_id>", views.GameView.as_view()),
    path("games/<uuid:game_id>/join", views.JoinView.as_view()),
    path("games/<uuid:game_id>/bots", views.BotsView.as_view()),
    path("games/<uuid:game_id>/start", views.StartView.as_view()),
    path("games/<uuid:game_id>/resign", views.ResignView.as_view()),
    path("games/<uuid:game_id>/state", views.StateView.as_view()),
    path("games/<uuid:game_id>/legal-moves", views.LegalMovesView.as_view()),
    path("games/<uuid:game_id>/moves", views.MovesView.as_view()),
    path("games/<uuid:game_id>/events", views.EventsView.as_view()),
    path("games/<uuid:game_id>/replay", views.ReplayView.as_view()),
    path("games/<uuid:game_id>/audit", views.AuditView.as_view()),
    path("games/<uuid:game_id>/verify", views.VerifyView.as_view()),
    path("games/<uuid:game_id>/score", views.ScoreView.as_view()),
    path("leaderboard", views_ratings.LeaderboardView.as_view()),
    path("users/<str:username>", views_ratings.PlayerView.as_view()),
]
