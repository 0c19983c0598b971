import secrets

from django.db import migrations, models

import games.models


def give_each_match_a_token(apps, schema_editor):
    Match = apps.get_model("games", "Match")
    for match in Match.objects.filter(share_token__isnull=True):
        match.share_token = secrets.token_urlsafe(16)
        match.save(update_fields=["share_token"])


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0002_match_played_at"),
    ]

    operations = [
        migrations.AddField(
            model_name="match",
            name="share_token",
            field=models.CharField(max_length=32, null=True),
        ),
        migrations.RunPython(give_each_match_a_token, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="match",
            name="share_token",
            field=models.CharField(
                default=games.models.new_share_token, max_length=32, unique=True
            ),
        ),
    ]
