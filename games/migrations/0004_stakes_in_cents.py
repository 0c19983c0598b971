"""Stakes in whole cents, as the engine counts them: no more converting to and from Decimal."""

from decimal import Decimal

from django.db import migrations, models

STAKES = ("per_game", "per_point", "per_set")


def to_cents(apps, schema_editor):
    Match = apps.get_model("games", "Match")
    for match in Match.objects.only("pk", *STAKES):
        for key in STAKES:
            setattr(match, f"{key}_cents", int(getattr(match, key) * 100))
        match.save(update_fields=[f"{key}_cents" for key in STAKES])


def to_amounts(apps, schema_editor):
    Match = apps.get_model("games", "Match")
    for match in Match.objects.only("pk", *(f"{key}_cents" for key in STAKES)):
        for key in STAKES:
            setattr(match, key, Decimal(getattr(match, f"{key}_cents")) / 100)
        match.save(update_fields=list(STAKES))


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0003_match_share_token"),
    ]

    operations = [
        migrations.RemoveConstraint(model_name="match", name="match_stakes_not_negative"),
        *(
            migrations.AddField(
                model_name="match",
                name=f"{key}_cents",
                field=models.PositiveIntegerField(default=0),
            )
            for key in STAKES
        ),
        migrations.RunPython(to_cents, to_amounts),
        *(migrations.RemoveField(model_name="match", name=key) for key in STAKES),
        migrations.AddConstraint(
            model_name="match",
            constraint=models.CheckConstraint(
                condition=models.Q(per_game_cents__gte=0)
                & models.Q(per_point_cents__gte=0)
                & models.Q(per_set_cents__gte=0),
                name="match_stakes_not_negative",
            ),
        ),
    ]
