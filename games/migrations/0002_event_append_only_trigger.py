"""On PostgreSQL the database itself refuses UPDATE and DELETE on event rows (the log is append-only)."""

from django.db import migrations

CREATE = """
CREATE OR REPLACE FUNCTION games_event_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'games_event is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER games_event_append_only
    BEFORE UPDATE OR DELETE ON games_event
    FOR EACH ROW EXECUTE FUNCTION games_event_append_only();
"""
DROP = """
DROP TRIGGER IF EXISTS games_event_append_only ON games_event;
DROP FUNCTION IF EXISTS games_event_append_only();
"""


def create(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(CREATE, params=None)


def drop(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(DROP, params=None)


class Migration(migrations.Migration):
    dependencies = [("games", "0001_initial")]
    operations = [migrations.RunPython(create, drop)]
