"""Payments are records: who paid whom how much, in which currency, when, who recorded it and
the night it was for. A night's "paid" marks become payments of the transfers they were marked
on, where those still stood (a mark whose transfers had changed was shown as not paid, and
stays so); the marks go. Back the other way, a night's payments that cover a transfer of it
become its marks again, and payments of no night are lost.

The settle-up is computed here as the app computed it when the marks were made (frozen: the
nets of docs/rules.md §11 from the stored results, and the exact fewest-payments search), not with
the app's live code, which may change after this migration."""

import hashlib

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models
from django.db.models import Q, Sum

STAKED = (
    Q(match__per_game_cents__gt=0) | Q(match__per_point_cents__gt=0) | Q(match__per_set_cents__gt=0)
)


def _fewest_transfers(net):
    """[(payer, payee, cents)]: rules.fewest_transfers as it was (§11)."""
    order = {p: i for i, p in enumerate(net)}
    names = [p for p, cents in net.items() if cents]
    full = (1 << len(names)) - 1
    total = [0] * (full + 1)
    groups = [0] * (full + 1)
    for mask in range(1, full + 1):
        low = mask & -mask
        total[mask] = total[mask ^ low] + net[names[low.bit_length() - 1]]
        best = max(groups[mask ^ (1 << i)] for i in range(len(names)) if mask >> i & 1)
        groups[mask] = best + (total[mask] == 0)
    payments, group, mask = [], {}, full
    while mask:
        gain = total[mask] == 0
        i = next(
            i
            for i in range(len(names))
            if mask >> i & 1 and groups[mask ^ (1 << i)] + gain == groups[mask]
        )
        group[names[i]] = net[names[i]]
        mask ^= 1 << i
        if total[mask] == 0:
            payments += _settle_group(group, order)
            group = {}
    return sorted(payments, key=lambda t: (order[t[0]], order[t[1]]))


def _settle_group(net, order):
    owing = sorted((p for p in net if net[p] < 0), key=order.get)
    owed = sorted((p for p in net if net[p] > 0), key=order.get)
    left = dict(net)
    payments = []
    while owing:
        payer, payee = owing[0], owed[0]
        cents = min(-left[payer], left[payee])
        payments.append((payer, payee, cents))
        left[payer] += cents
        left[payee] -= cents
        if not left[payer]:
            owing.pop(0)
        if not left[payee]:
            owed.pop(0)
    return payments


def _settle_up(Result, night):
    """[(currency, [(key, payer, payee, cents)])] and the fingerprint the marks were made on."""
    rows = (
        Result.objects.filter(match__night=night, match__finished__isnull=False)
        .filter(STAKED)
        .order_by("match__currency", "match__played_at", "player__name")
        .values_list("match__currency", "player__name", "net_cents", "match__played_at")
    )
    # Summed here, exactly: a database's own sum of the largest stakes can overflow.
    sums, first = {}, {}
    for currency, name, net, played_at in rows:
        sums[currency, name] = sums.get((currency, name), 0) + net
        first.setdefault((currency, name), played_at)
    nets = {}
    for currency, name in sorted(sums, key=lambda k: (k[0], first[k], k[1])):
        nets.setdefault(currency, {})[name] = sums[currency, name]
    settle_up = [
        (c, [(f"{c}:{a}:{b}", a, b, cents) for a, b, cents in _fewest_transfers(net)])
        for c, net in nets.items()
    ]
    text = "\n".join(f"{key}:{cents}" for _, ts in settle_up for key, _, _, cents in ts)
    return settle_up, hashlib.sha256(text.encode()).hexdigest()


def marks_to_payments(apps, schema_editor):
    Night = apps.get_model("games", "Night")
    Payment = apps.get_model("games", "Payment")
    Player = apps.get_model("games", "Player")
    Result = apps.get_model("games", "Result")
    for night in Night.objects.order_by("pk"):
        if not night.paid:
            continue
        settle_up, fingerprint = _settle_up(Result, night)
        if night.paid_for != fingerprint:
            continue  # the transfers changed after the marks: they no longer held
        players = Player.objects.filter(group_id=night.group_id)
        for currency, transfers in settle_up:
            for key, payer, payee, cents in transfers:
                if key in night.paid:
                    Payment.objects.create(
                        group_id=night.group_id,
                        payer=players.get(name=payer),
                        payee=players.get(name=payee),
                        amount_cents=cents,
                        currency=currency,
                        night=night,
                    )


def payments_to_marks(apps, schema_editor):
    Night = apps.get_model("games", "Night")
    Payment = apps.get_model("games", "Payment")
    Result = apps.get_model("games", "Result")
    for night in Night.objects.filter(payments__isnull=False).distinct().order_by("pk"):
        rows = (
            Payment.objects.filter(night=night)
            .values_list("currency", "payer__name", "payee__name")
            .annotate(cents=Sum("amount_cents"))
            .order_by()
        )
        paid = {f"{c}:{a}:{b}": cents for c, a, b, cents in rows}
        settle_up, fingerprint = _settle_up(Result, night)
        night.paid = sorted(
            key for _, ts in settle_up for key, _, _, cents in ts if paid.get(key, 0) >= cents
        )
        night.paid_for = fingerprint
        night.save(update_fields=["paid", "paid_for"])


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0010_attempt"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="Payment",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("amount_cents", models.PositiveIntegerField()),
                ("currency", models.CharField(max_length=16)),
                ("paid_at", models.DateTimeField(default=django.utils.timezone.now)),
                ("by", models.CharField(blank=True, max_length=150)),
                ("token", models.CharField(blank=True, max_length=32)),
                (
                    "group",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="payments",
                        to="games.group",
                    ),
                ),
                (
                    "night",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="payments",
                        to="games.night",
                    ),
                ),
                (
                    "payee",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.RESTRICT,
                        related_name="payments_received",
                        to="games.player",
                    ),
                ),
                (
                    "payer",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.RESTRICT,
                        related_name="payments_made",
                        to="games.player",
                    ),
                ),
                (
                    "recorded_by",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "ordering": ["-paid_at", "-pk"],
                "constraints": [
                    models.CheckConstraint(
                        condition=models.Q(
                            ("amount_cents__gt", 0), ("amount_cents__lte", 99999999)
                        ),
                        name="payment_amount_range",
                    ),
                    models.CheckConstraint(
                        condition=models.Q(("payer", models.F("payee")), _negated=True),
                        name="payment_two_players",
                    ),
                    models.UniqueConstraint(
                        condition=models.Q(("token", ""), _negated=True),
                        fields=("token",),
                        name="payment_token_unique",
                    ),
                ],
            },
        ),
        migrations.RunPython(marks_to_payments, payments_to_marks),
        migrations.RemoveField(model_name="night", name="paid"),
        migrations.RemoveField(model_name="night", name="paid_for"),
    ]
