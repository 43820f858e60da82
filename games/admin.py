"""Django's admin finds the app's admin here; the pages themselves live with staff's tools (games/staff/)."""

from games.staff import admin, chat_admin  # noqa: F401  (registering is importing)
