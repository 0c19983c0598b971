import django.utils.timezone
from django.db import migrations, models


def from_created(apps, schema_editor):
    """A match stored before played_at began when it was created."""
    Match = apps.get_model("games", "Match")
    Match.objects.update(played_at=models.F("created"))


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0002_match_version"),
    ]

    operations = [
        migrations.AddField(
            model_name="match",
            name="played_at",
            field=models.DateTimeField(default=django.utils.timezone.now),
        ),
        migrations.RunPython(from_created, migrations.RunPython.noop),
    ]
