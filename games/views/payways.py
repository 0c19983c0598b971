"""Pay in one tap (#44 §1): the form on the group's page where a member says how they like to
be paid, and the buttons a transfer shows the one who pays it (the night, home's latest night,
the balances). The links themselves are games/payways.py's."""

from __future__ import annotations

from datetime import date
from typing import Any

from django import forms
from django.http import HttpRequest

from games import access, payways
from games.models import Membership, PayWays, Player, Role

FIELDS = ("venmo", "paypal", "cashapp", "other")


class PayWaysForm(forms.Form):
    venmo = forms.CharField(label="Venmo user name", max_length=200, required=False)
    paypal = forms.CharField(label="PayPal.me name", max_length=200, required=False)
    cashapp = forms.CharField(label="Cash App $cashtag", max_length=200, required=False)
    other = forms.CharField(
        label="Anything else", max_length=200, required=False, help_text="Zelle: 555-0100"
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for name in FIELDS:
            self.fields[name].error_messages["max_length"] = "That is far too long for a name."

    def _name(self, service: str) -> str:
        try:
            return payways.clean_name(service, self.cleaned_data[service])
        except payways.PayWayError as e:
            raise forms.ValidationError(str(e)) from None

    def clean_venmo(self) -> str:
        return self._name("venmo")

    def clean_paypal(self) -> str:
        return self._name("paypal")

    def clean_cashapp(self) -> str:
        return self._name("cashapp")

    def clean_other(self) -> str:
        try:
            return payways.clean_other(self.cleaned_data["other"])
        except payways.PayWayError as e:
            raise forms.ValidationError(str(e)) from None


def me(request: HttpRequest, group_id: int) -> int | None:
    """The viewer's own player in the group ("this is me"), by id."""
    mine = access.memberships(request).get(group_id)
    return mine.player_id if mine is not None else None


def may_change(request: HttpRequest, group_id: int, player_id: int) -> bool:
    """The member who plays as the player, or an owner."""
    return me(request, group_id) == player_id or access.require(request, group_id).allows(
        Role.OWNER
    )


def group_context(
    request: HttpRequest,
    group_id: int,
    members: list[Membership],
    players: list[Player],
    sent: tuple[int, PayWaysForm] | None = None,
) -> dict[str, object]:
    """The group page's "How to pay" section: every player's ways (the members see them), and
    a form for each player the viewer may change (their own first), `sent` (a player and the
    form as sent back with its words) in place of its blank."""
    kept = {w.player_id: w for w in PayWays.objects.filter(player__group=group_id)}
    mine = me(request, group_id)
    is_owner = access.require(request, group_id).allows(Role.OWNER)
    claimed = {m.player_id: m.user.get_username() for m in members if m.player_id}
    rows = []
    for p in sorted(players, key=lambda p: (p.pk != mine, p.name)):
        ways = kept.get(p.pk)
        if not (p.pk == mine or (is_owner and (ways or p.pk in claimed))) and not ways:
            continue
        form = None
        if p.pk == mine or is_owner:
            initial = {f: getattr(ways, f) for f in FIELDS} if ways else {}
            form = sent[1] if sent and sent[0] == p.pk else PayWaysForm(initial=initial)
        rows.append(
            {
                "player": p,
                "ways": ways,
                "form": form,
                "mine": p.pk == mine,
                "member": claimed.get(p.pk),
            }
        )
    return {"pay_rows": rows, "pay_open": sent[0] if sent else None}


def buttons(
    kept: dict[str, PayWays],
    me_name: str | None,
    payer: str,
    payee: str,
    cents: int,
    currency: str,
    day: date,
) -> list[payways.Way]:
    """A transfer's buttons: the payee's ways, for the one who pays it only."""
    ways = kept.get(payee)
    if me_name is None or payer != me_name or ways is None:
        return []
    return payways.ways(ways.names(), ways.other, cents, currency, payways.note(day))
