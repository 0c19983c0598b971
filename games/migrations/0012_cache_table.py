"""The database's cache table, for the cache that every worker and server shares (the drawn
boards) when CACHE_URL names no other. Made here so that `migrate` is all a new server needs."""

from django.core.management import call_command
from django.db import migrations


def make_cache_table(apps, schema_editor):
    call_command("createcachetable", database=schema_editor.connection.alias, verbosity=0)


class Migration(migrations.Migration):
    dependencies = [("games", "0011_payments")]

    operations = [migrations.RunPython(make_cache_table, migrations.RunPython.noop)]
