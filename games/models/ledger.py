"""Payments between players, outside the matches."""

from __future__ import annotations

from django.conf import settings
from django.db import models, transaction
from django.db.models import Count, Max, Q, Sum
from django.urls import reverse
from django.utils import timezone

from games import rules
from games.models.groups import groups_turn
from games.models.sql import latest_rows, statement


class PaymentsChanged(Exception):
    """A write from a page drawn before the group's payments last changed (another phone
    recorded or removed one)."""


class FormUsed(Exception):
    """A payment form sent again (its token) with other content than it recorded: what is on
    record for it is `payment`, and nothing else was stored."""

    def __init__(self, payment: Payment):
        super().__init__(f"token {payment.token} recorded payment {payment.pk}")
        self.payment = payment


class PaymentQuerySet(models.QuerySet["Payment"]):
    def version(self) -> str:
        """These payments as a page shows them, in a few letters. Ids are never used twice,
        so along a group's history the count and the latest id differ whenever the payments
        do: a payment recorded raises the latest id, one removed lowers the count."""
        found = self.aggregate(count=Count("pk"), last=Max("pk"))
        return f"{found['count']}-{found['last'] or 0}"

    def since(self, version: str | None) -> PaymentQuerySet:
        """These payments recorded after a page drawn at `version` (`version()`) was drawn:
        none for a page that sent no version."""
        try:
            last = int((version or "").rpartition("-")[2])
        except ValueError:
            return self.none()
        return self.filter(pk__gt=last) if 0 <= last < 2**63 else self.none()

    def by_currency_and_player(self, side: str) -> list[tuple[str, str, int]]:
        """(currency, name, cents) summed over these payments, by the payer's or the payee's
        name (`side`)."""
        rows = self.values_list("currency", f"{side}__name").annotate(cents=Sum("amount_cents"))
        return list(rows.order_by())


PAYMENT_TOO_BIG = f"A payment must be under {(rules.MAX_STAKE_CENTS + 1) // 100:,}."


class Payment(models.Model):
    """Money that moved from one player of a group to another: a night's transfer marked
    paid, part of what someone owes, cash at the door. A record: once stored it is changed by
    nothing, a change of the hands included (the money moved all the same); the balances
    show what is left. Only a scorer's "remove" or "not paid after all" takes it away."""

    group = models.ForeignKey("Group", models.CASCADE, related_name="payments")
    payer = models.ForeignKey("Player", models.RESTRICT, related_name="payments_made")
    payee = models.ForeignKey("Player", models.RESTRICT, related_name="payments_received")
    amount_cents = models.PositiveIntegerField()
    currency = models.CharField(max_length=rules.CURRENCY_LENGTH)
    paid_at = models.DateTimeField(default=timezone.now)
    recorded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, models.SET_NULL, null=True, blank=True, related_name="+"
    )
    # Who recorded it, as they were called then: the record outlives a deleted account.
    by = models.CharField(max_length=150, blank=True)
    # The night whose transfer it paid ("Mark paid"); kept, unattached, if the night goes.
    night = models.ForeignKey(
        "Night", models.SET_NULL, null=True, blank=True, related_name="payments"
    )
    # The form it was sent from: the same form sent twice (a double tap) stores it once.
    token = models.CharField(max_length=32, blank=True)

    objects = PaymentQuerySet.as_manager()

    class Meta:
        ordering = ["-paid_at", "-pk"]
        # A balance's workings read a player's latest payments, made and received.
        indexes = [
            models.Index(fields=["payer", "currency", "-paid_at", "-id"], name="payment_made"),
            models.Index(fields=["payee", "currency", "-paid_at", "-id"], name="payment_received"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(amount_cents__gt=0, amount_cents__lte=rules.MAX_STAKE_CENTS),
                name="payment_amount_range",
            ),
            models.CheckConstraint(
                condition=~Q(payer=models.F("payee")), name="payment_two_players"
            ),
            # A form's token is the group's: looked up in the group, and unique there only, so
            # that a token sent to another group neither clashes nor tells it exists.
            models.UniqueConstraint(
                fields=["group", "token"], condition=~Q(token=""), name="payment_group_token"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.payer} paid {self.payee} {rules.format_money(self.amount_cents)}"

    def get_absolute_url(self) -> str:
        return reverse("games:balances", args=[self.group_id])

    @staticmethod
    def latest(keys: list[tuple[int, str]], most: int) -> list[Payment]:
        """Of each (player, currency) of `keys`, the `most` latest payments they made and the
        `most` latest they received, with their payers and payees, the latest first."""
        rows = latest_rows(statement("LATEST_PAYMENTS"), [(*key, most, *key, most) for key in keys])
        found = Payment.objects.filter(pk__in={pk for (pk,) in rows})
        return list(found.select_related("payer", "payee").order_by("-paid_at", "-pk"))

    def remove(self, version: str | None) -> bool:
        """Take the payment back, from a page drawn at the payments' `version`: False if it is
        gone already; PaymentsChanged, and nothing removed, from a page drawn before another
        payment was recorded or removed (a `version` of None, from no page, is not)."""
        with transaction.atomic():
            groups_turn(self.group_id)
            if not Payment.objects.filter(pk=self.pk).exists():
                return False
            if (
                version is not None
                and version != Payment.objects.filter(group=self.group_id).version()
            ):
                raise PaymentsChanged(version)
            Payment.objects.filter(pk=self.pk).delete()
            return True
