"""A night's transfers kept with the nets they were searched for (#43 §1): a page no longer
searches a night on every read, nor every earlier night while a payment recorded for no night
is unmatched. Nothing to fill: a night's transfers are searched where first read, and kept."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0020_money_in_one_column"),
    ]

    operations = [
        migrations.CreateModel(
            name="NightTransfers",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("digest", models.CharField(max_length=64)),
                ("found", models.JSONField(default=dict)),
                (
                    "night",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="games.night",
                    ),
                ),
            ],
        ),
    ]
