"""Money that moves between the players of a group, written: a payment checked, stored and
recorded, and a night's transfer marked paid or not paid after all. Plain functions
(`record_payment(group, …)`) the views call, above the ledger, the nights and the players
they name, so that none of those names another for its types."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.core.exceptions import ValidationError
from django.db import transaction

from games import rules
from games.models.groups import Group, author, groups_turn
from games.models.ledger import PAYMENT_TOO_BIG, FormUsed, Payment
from games.models.nights import Night
from games.models.players import Player

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser, User


def check_payment(group_id: int, payer: Player, payee: Player, cents: int, currency: str) -> None:
    """ValidationError, in words and on its field, unless this can be a payment of the group."""
    if cents <= 0:
        raise ValidationError({"amount": "Enter how much was paid: more than 0."})
    if cents > rules.MAX_STAKE_CENTS:  # as much as a stake can be, and no more
        raise ValidationError({"amount": PAYMENT_TOO_BIG})
    if payer.group_id != group_id or payee.group_id != group_id:
        raise ValidationError({"payer": "Choose two of the group's players."})
    if payer.pk == payee.pk:
        raise ValidationError(
            {"payee": f"{payer.name} can't pay {payer.name}: choose two players."}
        )
    if currency not in Group(pk=group_id).currencies():
        words = f"The group has played for no money in {currency}: choose one of its currencies."
        raise ValidationError({"currency": words})


def store_payment(
    group_id: int,
    payer: Player,
    payee: Player,
    cents: int,
    currency: str,
    by: User | AnonymousUser | None = None,
    night: Night | None = None,
    token: str = "",
) -> Payment:
    """Check and store a payment; the caller holds the group's turn (`groups_turn`)."""
    check_payment(group_id, payer, payee, cents, currency)
    user, name = author(by)
    return Payment.objects.create(
        group_id=group_id,
        payer=payer,
        payee=payee,
        amount_cents=cents,
        currency=currency,
        recorded_by=user,
        by=name,
        night=night,
        token=token,
    )


def record_payment(
    group: Group,
    payer: Player,
    payee: Player,
    cents: int,
    currency: str,
    version: str | None,
    token: str = "",
    by: User | AnonymousUser | None = None,
) -> tuple[Payment, bool]:
    """Record a payment: (payment, stored). The same form arriving twice (`token`) is
    stored once; sent again with other content, FormUsed says what it recorded.
    ValidationError if it can't be one, in words: also for a player merged into another
    (or gone) since the form was drawn. Group.DoesNotExist if the group was deleted
    meanwhile. A payment is money that moved: one recorded from a page drawn before
    another payment was recorded or removed (at the payments' `version`) is stored all
    the same, and the page says what else changed (`PaymentQuerySet.since`)."""
    with transaction.atomic():
        groups_turn(group.pk)
        if token:
            same = Payment.objects.filter(group=group, token=token).first()
            if same is not None:
                sent = (payer.pk, payee.pk, cents, currency)
                if sent != (same.payer_id, same.payee_id, same.amount_cents, same.currency):
                    raise FormUsed(same)
                return same, False
        # Re-read in the group's turn: a merge takes it too, so none can go meanwhile.
        ids = [payer.pk, payee.pk]  # (another group's: `check_payment` says so)
        here = set(Player.objects.filter(pk__in=ids).values_list("pk", flat=True))
        for player in (payer, payee):
            if player.pk not in here:
                raise ValidationError(
                    f"{player.name} is no longer a player of this group: merged into "
                    "another player on another phone. Nothing was recorded: choose the "
                    "players again.",
                    code="gone",
                )
        return store_payment(group.pk, payer, payee, cents, currency, by, token=token), True


def mark_transfer(
    night: Night,
    key: str,
    paid: bool,
    fingerprint: str | None,
    by: User | AnonymousUser | None = None,
) -> bool:
    """Mark a transfer of the night paid (a payment of what is left of it is recorded) or
    not paid after all (the night's payments for it are removed), as seen on a page
    showing the transfers `fingerprint` (None: from no page); False, and nothing changed,
    if the transfers have changed since. Marking twice changes nothing more.
    ValidationError if it can't be one payment."""
    with transaction.atomic():
        groups_turn(night.group_id)  # payments of a group are written in turns
        settle_up = night.settle_up()
        found = {s.key(t): (s, t) for s in settle_up for t in s.transfers}.get(key)
        stale = fingerprint is not None and fingerprint != Night.fingerprint(settle_up)
        if stale or found is None:
            return False
        s, transfer = found
        recorded = night.payments.filter(
            currency=s.currency, payer__name=transfer.payer, payee__name=transfer.payee
        )
        if not paid:
            recorded.delete()
            if s.covered(transfer, night.paid_cents()):
                raise ValidationError(
                    f"{transfer.payer}'s payment to {transfer.payee} was recorded on the "
                    "balances page: remove it there if it was not made."
                )
            return True
        left = transfer.cents - night.paid_cents().get(key, 0)
        if left > 0:
            players = Group(pk=night.group_id).players
            store_payment(
                night.group_id,
                players.get(name=transfer.payer),
                players.get(name=transfer.payee),
                left,
                s.currency,
                by=by,
                night=night,
            )
        return True
