from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="docs"),
    path("api/", include("games.api.urls")),
]

handler400 = "games.api.errors.bad_request"
handler403 = "games.api.errors.forbidden"
handler404 = "games.api.errors.not_found"
handler500 = "games.api.errors.server_error"
