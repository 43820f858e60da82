from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from games.api.views_export import DumpFileView
from games.people import password_guard
from ttr_server import pages

urlpatterns = [
    # The admin's two password forms, wrapped to share the API's limit on wrong passwords (games/people/password_guard.py);
    # routed before admin.site.urls, which holds the same addresses.
    path("admin/login/", password_guard.admin_login(admin.site.login)),
    path(
        "admin/password_change/",
        password_guard.admin_password_change(admin.site.admin_view(admin.site.password_change)),
    ),
    path("admin/", admin.site.urls),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="docs"),
    path("api/", include("games.api.urls")),
    path("dumps/<str:name>", DumpFileView.as_view()),  # the monthly dumps' files (docs/AUDIT.md)
    # The web client: one HTML shell for every page address; its modules draw the page the address names.
    path("", pages.shell, name="lobby"),
    path("signin", pages.shell, name="signin"),
    path("leaderboard", pages.shell, name="leaderboard"),
    path("users/<str:username>", pages.shell, name="user"),
    path("games/<uuid:game_id>", pages.shell, name="game"),
    path("games/<uuid:game_id>/replay", pages.shell, name="replay"),
    path("tournaments", pages.shell, name="tournaments"),
    path("tournaments/<uuid:tournament_id>", pages.shell, name="tournament"),
    path("me", pages.shell, name="me"),
    path("confirm-email", pages.shell, name="confirm-email"),
    path("unsubscribe", pages.shell, name="unsubscribe"),
    path("maps/<str:name>.json", pages.board, name="board"),
]

handler400 = "games.api.error_responses.bad_request"
handler403 = "games.api.error_responses.forbidden"
handler404 = "games.api.error_responses.not_found"
handler500 = "ttr_server.unavailable.server_error"  # 503 when the database or Redis is down
