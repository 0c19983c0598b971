"""Nights: every match is settled with those its owner began within six hours of it."""

from datetime import timedelta

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

GAP = timedelta(hours=6)  # games.models.NIGHT_GAP


def group_into_nights(apps, schema_editor):
    Match = apps.get_model("games", "Match")
    Night = apps.get_model("games", "Night")
    night, owner, last = None, None, None
    for match in Match.objects.order_by("owner", "played_at", "pk").only("owner", "played_at"):
        if match.owner_id != owner or match.played_at - last > GAP:
            night = Night.objects.create(owner_id=match.owner_id)
        owner, last = match.owner_id, match.played_at
        match.night = night
        match.save(update_fields=["night"])


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0005_results"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="Night",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("created", models.DateTimeField(auto_now_add=True)),
                ("paid", models.JSONField(blank=True, default=list)),
                ("paid_for", models.CharField(blank=True, max_length=64)),
                (
                    "owner",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="nights",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
        ),
        migrations.AddField(
            model_name="match",
            name="night",
            field=models.ForeignKey(
                null=True,
                on_delete=django.db.models.deletion.RESTRICT,
                related_name="matches",
                to="games.night",
            ),
        ),
        migrations.RunPython(group_into_nights, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="match",
            name="night",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.RESTRICT,
                related_name="matches",
                to="games.night",
            ),
        ),
    ]
