"""Who owes whom over the weeks: a group's balances and its payments, and a member's own
record across their groups (`/me/`). Balances are read from the stored results and payments
(`Group.balances`); nothing here replays a match."""

from __future__ import annotations

import secrets
from datetime import datetime
from typing import Any, TypedDict

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.db.models import Count, Sum
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.crypto import salted_hmac
from django.views.decorators.http import require_http_methods, require_POST

from games import access, rules
from games.access import SignedInRequest
from games.forms import CentsField, choice_field
from games.models import (
    PAYMENT_TOO_BIG,
    FormUsed,
    Group,
    Match,
    Membership,
    NightSum,
    Payment,
    PaymentsChanged,
    PayWays,
    Player,
    ResultSum,
    Role,
    SettleUp,
    group_balances,
    record_payment,
)
from games.responses import GROUP_GONE, refuse
from games.views import payways
from games.views.common import (
    cards_of,
    csv_download,
    net_charts,
    spreadsheet_amount,
    stats_context,
)
from games.words import NOT_FEWEST, money

# How many nights and payments a balance's workings list before summing up the earlier ones.
WORKINGS_SHOWN = 12
# The points of a chart of /me/: one a match up to this, then the total every so many matches.

AMOUNT_WORDS = "Enter an amount such as 4.50: no sign, at most two decimal places."
# A player the page listed, merged into another (or gone) before the payment came.
PLAYER_GONE = (
    "That player is no longer a player of this group (merged into another on another phone?), "
    "so nothing was recorded. Choose one of the group's players."
)
CHANGED = (
    "Another payment was recorded or removed since this page was drawn: here are the "
    "balances as they are now."
)


def _token() -> str:
    return secrets.token_urlsafe(12)


def _paid_words(payment: Payment) -> str:
    """ "Ann paid Bob $1.11"."""
    amount = money(payment.amount_cents, payment.currency)
    return f"{payment.payer.name} paid {payment.payee.name} {amount}"


def _shown(group_id: int, payment: int) -> str:
    """What a remove form of the group's page carries of its payment: that a page of this
    group showed it, so that once removed it is "removed already", not another group's."""
    return salted_hmac("payment-shown", f"{group_id}:{payment}").hexdigest()[:20]


def _version(request: HttpRequest) -> str | None:
    """The payments' version the page was drawn at; None where no page sent one (a script):
    then there is no page to be out of date."""
    return request.POST.get("version") if "version" in request.POST else None


class PaymentForm(forms.Form):
    """A payment as typed: who paid whom, how much, in which of the group's currencies. The
    page's version of the payments and a token of the form come with it, hidden."""

    payer = forms.CharField(
        label="Who paid",
        max_length=rules.NAME_LENGTH,
        error_messages={"required": "Say who paid."},
    )
    payee = forms.CharField(
        label="Whom they paid",
        max_length=rules.NAME_LENGTH,
        error_messages={"required": "Say whom they paid."},
    )
    amount = CentsField(
        label="How much",
        max_length=20,
        error_messages={
            "required": "Enter how much was paid.",
            "invalid": AMOUNT_WORDS,
            "too_big": PAYMENT_TOO_BIG,
        },
    )
    currency = forms.ChoiceField(label="Currency", required=False)
    version = forms.CharField(max_length=40, widget=forms.HiddenInput, required=False)
    token = forms.RegexField(r"^[A-Za-z0-9_-]{1,32}$", widget=forms.HiddenInput, required=False)

    def __init__(
        self, players: list[Player], currencies: list[str], *args: Any, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self.players = players
        self.currencies = currencies
        choice_field(self, "currency").choices = [(c, c) for c in currencies]
        one_of = ", ".join(currencies) or "none yet"
        self.fields["currency"].error_messages |= {
            "required": f"Choose the currency: {one_of}.",
            "invalid_choice": f"Choose one of the group's currencies: {one_of}.",
        }
        self.fields["token"].error_messages["invalid"] = "Reload the page and send it again."

    def _player(self, field: str) -> Player:
        """A player of the group, named by its id (as the page's lists send it) or name."""
        text = self.cleaned_data[field].strip()
        found = next((p for p in self.players if str(p.pk) == text), None)
        key = rules.name_key(text)
        found = found or next((p for p in self.players if rules.name_key(p.name) == key), None)
        if found is None and text.isascii() and text.isdecimal():  # an id the page listed
            raise forms.ValidationError(PLAYER_GONE, code="gone")
        if found is None:
            raise forms.ValidationError("Choose one of the group's players.")
        return found

    def clean_payer(self) -> Player:
        return self._player("payer")

    def clean_payee(self) -> Player:
        return self._player("payee")

    def clean_currency(self) -> str:
        """The currency chosen; left out, the group's only one, if it has only one."""
        currency: str = self.cleaned_data["currency"]
        if not currency and len(self.currencies) == 1:
            return self.currencies[0]
        if not currency:
            raise forms.ValidationError(self.fields["currency"].error_messages["required"])
        return currency


class _Count(TypedDict):
    count: int
    cents: int


class _NightLine(TypedDict):
    url: str
    started: datetime
    cents: int


class _PaymentLine(TypedDict):
    payment: Payment
    words: str
    cents: int


class _Workings(TypedDict):
    """Where a player's balance in a currency comes from (`_workings`)."""

    nights: list[_NightLine]
    earlier_nights: _Count
    payments: list[_PaymentLine]
    earlier_payments: _Count


def _workings(
    group: Group, balances: list[SettleUp], players: list[Player]
) -> dict[tuple[str, str], _Workings]:
    """Where each balance comes from: night by night (the latest first), then the payments,
    each list cut at WORKINGS_SHOWN with the rest summed up. Only the rows shown are read
    (the players' stored sums, their latest nights and payments); the rest are summed from
    the totals."""
    shown = WORKINGS_SHOWN
    pks = {p.name: p.pk for p in players}
    names = {p.pk: p.name for p in players}
    keys = [(pks[name], s.currency) for s in balances for name in s.net if name in pks]
    out: dict[tuple[str, str], _Workings] = {}

    def entry(currency: str, name: str) -> _Workings:
        empty: _Count = {"count": 0, "cents": 0}
        return out.setdefault(
            (currency, name),
            {
                "nights": [],
                "earlier_nights": {**empty},
                "payments": [],
                "earlier_payments": empty,
            },
        )

    for s in balances:
        for name in s.net:
            entry(s.currency, name)
    sums = ResultSum.objects.filter(player__group=group)
    won = {(c, name): net for c, name, net, _ in sums.nets()}
    nights = NightSum.objects.filter(player__in=names).values_list("player", "currency")
    counts = {(p, c): n for p, c, n in nights.annotate(count=Count("pk")).order_by()}
    # Only a player's currencies with a night in them are read night by night: one part of
    # the statement a key, which PostgreSQL plans one by one.
    nightly = [(player, currency) for player, currency in keys if (player, currency) in counts]
    for (player, currency), latest in NightSum.latest(nightly, shown).items():
        mine = entry(currency, names[player])
        for night, net, started in latest:
            url = reverse("games:night_detail", args=[night])
            mine["nights"].append({"url": url, "started": started, "cents": net})
        earlier = counts.get((player, currency), 0) - len(latest)
        if earlier > 0:
            cents = won.get((currency, names[player]), 0) - sum(n["cents"] for n in mine["nights"])
            mine["earlier_nights"] = {"count": earlier, "cents": cents}
    totals: dict[tuple[str, str], list[int]] = {}
    for side, sign in (("payer", 1), ("payee", -1)):
        made = group.payments.values_list("currency", f"{side}__name")
        for currency, name, count, cents in made.annotate(
            count=Count("pk"), cents=Sum("amount_cents")
        ).order_by():
            total = totals.setdefault((currency, name), [0, 0])
            total[0] += count
            total[1] += sign * cents
    # Likewise only those who made or received a payment in it are read payment by payment (a
    # group of 16 currencies × 16 players, none of them paid: 512 parts, 0.4 s on PostgreSQL).
    paying = [
        (player, currency) for player, currency in keys if (currency, names[player]) in totals
    ]
    for p in Payment.latest(paying, shown):
        for name, words, cents in (
            (p.payer.name, f"paid {p.payee.name}", p.amount_cents),
            (p.payee.name, f"was paid by {p.payer.name}", -p.amount_cents),
        ):
            mine = entry(p.currency, name)
            if len(mine["payments"]) < shown:
                mine["payments"].append({"payment": p, "words": words, "cents": cents})
    for (currency, name), (count, cents) in totals.items():
        mine = entry(currency, name)
        earlier = count - len(mine["payments"])
        if earlier > 0:
            cents -= sum(w["cents"] for w in mine["payments"])
            mine["earlier_payments"] = {"count": earlier, "cents": cents}
    return out


def _balances_page(
    request: SignedInRequest,
    group: Group,
    form: PaymentForm | None = None,
    notice: str | None = None,
    status: int = 200,
) -> HttpResponse:
    can_score = access.may(request, group, Role.SCORER)
    version = group.payments.version()  # read first: the page is never newer than this
    balances = group_balances(group)
    players = list(group.players.order_by("name"))
    workings = _workings(group, balances, players)
    # The buttons that pay a transfer, for the one who pays it (the viewer's player).
    me = payways.me(request, group.pk)
    me_name = next((p.name for p in players if p.pk == me), None)
    kept = PayWays.of_group(group.pk) if me_name else {}
    today = timezone.localdate()
    urls = {p.name: reverse("games:player_detail", args=[p.pk]) for p in players}
    pks = {p.name: p.pk for p in players}
    sections = [
        {
            "currency": s.currency,
            "not_fewest": "" if s.fewest else NOT_FEWEST,
            "transfers": [
                {
                    "payment": t,
                    "payer": pks.get(t.payer),
                    "payee": pks.get(t.payee),
                    "amount": rules.format_money(t.cents),
                    "token": _token(),
                    "ways": payways.buttons(
                        kept, me_name, t.payer, t.payee, t.cents, s.currency, today
                    ),
                }
                for t in s.transfers
            ],
            "players": [
                {
                    "name": name,
                    "balance": cents,
                    "url": urls.get(name),
                    **workings[s.currency, name],
                }
                for name, cents in s.net.items()
            ],
        }
        for s in balances
    ]
    currencies = group.currencies()
    if form is None:
        form = PaymentForm(players, currencies, initial={"currency": (currencies or [""])[0]})
    payments = group.payments.select_related("payer", "payee", "night").order_by("-paid_at", "-pk")
    page = Paginator(payments, 20).get_page(request.GET.get("page"))
    page.object_list = list(page.object_list)
    for p in page.object_list:
        p.shown = _shown(group.pk, p.pk)  # type: ignore[attr-defined]  # for its remove form
    context = {
        "group": group,
        "can_score": can_score,
        "sections": sections,
        "form": form,
        "players": players,
        "currencies": currencies,
        "version": version,
        "token": _token(),
        "payments": page,
        "notice": notice,
    }
    return render(request, "games/balances.html", context, status=status)


@login_required
@require_http_methods(["GET", "POST"])
def balances(request: SignedInRequest, pk: int) -> HttpResponse:
    """Each currency's balances and the fewest payments that settle them; a scorer records a
    payment here (POST)."""
    group = access.get(request, Group, pk=pk)
    if request.method == "GET":
        return _balances_page(request, group)
    access.require(request, group.pk, Role.SCORER)
    players = list(group.players.order_by("name"))
    form = PaymentForm(players, group.currencies(), request.POST)
    if not form.is_valid():
        # Deleted meanwhile, its players and currencies went with it: the form finds neither.
        if not Group.objects.filter(pk=group.pk).exists():
            return refuse(request, 404, GROUP_GONE)
        gone = form.has_error("payer", "gone") or form.has_error("payee", "gone")
        return _balances_page(request, group, form, status=409 if gone else 200)
    data = form.cleaned_data
    payer, payee, cents, currency = data["payer"], data["payee"], data["amount"], data["currency"]
    version = _version(request)
    try:
        payment, _ = record_payment(
            group, payer, payee, cents, currency, version, data["token"], request.user
        )
    except FormUsed as used:  # sent again with other content: say what it did record
        notice = (
            f"That form was already used to record {_paid_words(used.payment)}. Nothing else "
            "was recorded: enter the other payment again here if it was made."
        )
        return _balances_page(request, group, notice=notice, status=409)
    except ValidationError as e:
        form.add_error(None, e)
        return _balances_page(
            request, group, form, status=409 if getattr(e, "code", None) == "gone" else 200
        )
    except Group.DoesNotExist:
        return refuse(request, 404, GROUP_GONE)
    said = f"Recorded: {_paid_words(payment)}."
    since = group.payments.since(version).exclude(pk=payment.pk).order_by("paid_at", "pk")
    if others := list(since.select_related("payer", "payee")):
        also = "; ".join(_paid_words(p) for p in others)
        said += f" Also recorded since this page was drawn: {also}."
    messages.success(request, said)
    return redirect(reverse("games:balances", args=[group.pk]))


@login_required
@require_POST
def payment_remove(request: SignedInRequest, pk: int, payment: int) -> HttpResponse:
    """A scorer takes a payment back: it was never made, or was recorded twice."""
    group = access.get(request, Group, Role.SCORER, pk=pk)
    payments = Payment.objects.filter(pk=payment, group=group).select_related("payer", "payee")
    found = payments.first()
    # Gone from the group: removed already, if a page of the group showed it (its form's
    # `shown`); else, as any other group's object, nothing here (404), whether or not it is
    # another group's.
    if found is None and request.POST.get("shown") != _shown(group.pk, payment):
        raise Http404("No such payment.")
    try:
        removed = found is not None and found.remove(_version(request))
    except PaymentsChanged:
        notice = f"{CHANGED} Nothing was removed: remove it again if you still mean to."
        return _balances_page(request, group, notice=notice, status=409)
    except Group.DoesNotExist:
        return refuse(request, 404, GROUP_GONE)
    if found is None or not removed:
        notice = "That payment was removed already: nothing changed."
        return _balances_page(request, group, notice=notice, status=409)
    messages.info(request, f"Removed: {_paid_words(found)}.")
    return redirect(reverse("games:balances", args=[group.pk]))


@login_required
@require_http_methods(["GET"])
def balances_csv(request: SignedInRequest, pk: int) -> HttpResponse:
    """The balances as a night's settle-up CSV has its nets: a `net` row per player owing or
    owed, then a `pays` row per payment that settles them."""
    group = access.get(request, Group, pk=pk)
    response, out = csv_download(f"buck-euchre-balances-{timezone.localdate():%Y-%m-%d}.csv")
    out.writerow(["currency", "row", "player", "to", "amount", "paid"])
    for s in group_balances(group):
        for name, cents in s.net.items():
            if cents:
                out.writerow([s.currency, "net", name, "", spreadsheet_amount(cents), ""])
        for t in s.transfers:
            out.writerow([s.currency, "pays", t.payer, t.payee, spreadsheet_amount(t.cents), ""])
        if not s.fewest:  # as the night's CSV says it (§11)
            out.writerow([s.currency, "note", NOT_FEWEST, "", "", ""])
    return response


# --- My record ------------------------------------------------------------------------------


def _owes_words(cents: int, currency: str) -> str:
    if cents < 0:
        return f"you owe {money(-cents, currency)}"
    if cents > 0:
        return f"you are owed {money(cents, currency)}"
    return "you are square"


@login_required
@require_http_methods(["GET"])
def me(request: SignedInRequest) -> HttpResponse:
    """The signed-in user's record over every group in which they have said "this is me":
    §12's statistics, money, the chart of it, their matches and what they owe in each."""
    mine = list(
        Membership.objects.filter(user=request.user, player__isnull=False)
        .select_related("group", "player")
        .order_by("group__name", "group__pk")
    )
    players = [m.player for m in mine]
    summed = ResultSum.objects.filter(player__in=players).summed()
    groups = []
    for m in mine:
        assert m.player is not None  # asked for above
        balances = m.player.balance().items()
        owes = [(currency, cents, _owes_words(cents, currency)) for currency, cents in balances]
        groups.append({"group": m.group, "player": m.player, "balances": owes})
    matches = (
        Match.objects.filter(results__player__in=players)
        .order_by("-played_at", "-pk")
        .values_list("pk", "group__name")
    )
    page = Paginator(matches, 20).get_page(request.GET.get("page"))
    group_names = dict(page.object_list)  # a match deleted meanwhile has no card
    cards = [{**c, "group_name": group_names[c["pk"]]} for c in cards_of(list(group_names))]
    context = {
        "groups": groups,
        **stats_context(summed),
        "charts": net_charts(request.user.get_username(), [p.pk for p in players if p], summed),
        "page": page,
        "cards": cards,
        "others": Membership.objects.filter(user=request.user, player__isnull=True)
        .select_related("group")
        .order_by("group__name"),
    }
    return render(request, "games/me.html", context)
