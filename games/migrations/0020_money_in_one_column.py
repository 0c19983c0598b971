"""Money in one 64-bit column (#34 §2): each sum of money was kept in two halves, high × 2³² +
low, because SQLite's SUM stops at 64 bits; the limits on what a loser owes and on a group's
matches (settings.MAX_LOSS_CENTS, the arithmetic) now keep every sum far inside them, so each
pair is folded into one column. Back again, each amount is split as the old running totals
split theirs (its high half rounded toward zero), which the old code reads alike."""

from django.db import migrations, models

HALF = 2**32
# Halves that fold past 2⁶³ − 2³² (past anything the limits let a group hold) are refused
# rather than overflow in the statement that folds them.
MOST_HIGH = 2**30 - 1
MOST_LOW = 2**62

# (model, its high half, its low half, the one column)
PAIRS = [
    ("resultsum", "net_high", "net_low", "net_cents"),
    ("nightsum", "net_high", "net_low", "net_cents"),
    ("result", "running_high", "running_low", "running_cents"),
]


def fold(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        for model, high, low, whole in PAIRS:
            table = apps.get_model("games", model)._meta.db_table
            cursor.execute(
                f"SELECT COUNT(*) FROM {table} "
                f"WHERE {high} NOT BETWEEN %s AND %s OR {low} NOT BETWEEN %s AND %s",
                [-MOST_HIGH, MOST_HIGH, -MOST_LOW, MOST_LOW],
            )
            (past,) = cursor.fetchone()
            if past:
                raise RuntimeError(
                    f"{past} rows of {table} hold sums of money past 2^62 cents, more than "
                    "any group can hold within the limits (settings.MAX_LOSS_CENTS): delete "
                    "the matches past them, run `manage.py recount_sums`, and migrate again."
                )
            cursor.execute(
                f"UPDATE {table} SET {whole} = {high} * {HALF} + {low} WHERE {high} IS NOT NULL"
            )


def unfold(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        for model, high, low, whole in PAIRS:
            table = apps.get_model("games", model)._meta.db_table
            cursor.execute(
                f"UPDATE {table} SET {high} = {whole} / {HALF}, "
                f"{low} = {whole} - {whole} / {HALF} * {HALF} WHERE {whole} IS NOT NULL"
            )


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0019_moon_and_six_seats"),
    ]

    operations = [
        migrations.AddField(
            model_name="resultsum",
            name="net_cents",
            field=models.BigIntegerField(default=0),
        ),
        migrations.AddField(
            model_name="nightsum",
            name="net_cents",
            field=models.BigIntegerField(default=0),
        ),
        migrations.AddField(
            model_name="result",
            name="running_cents",
            field=models.BigIntegerField(blank=True, null=True),
        ),
        migrations.RunPython(fold, unfold),
        migrations.RemoveField(model_name="resultsum", name="net_high"),
        migrations.RemoveField(model_name="resultsum", name="net_low"),
        migrations.RemoveField(model_name="nightsum", name="net_high"),
        migrations.RemoveField(model_name="nightsum", name="net_low"),
        migrations.RemoveField(model_name="result", name="running_high"),
        migrations.RemoveField(model_name="result", name="running_low"),
    ]
