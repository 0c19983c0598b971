"""A group's standings over a season (#44 §3): the season picker, the table and its CSV, and
the seasons an owner names. The numbers are games/models/seasons.py's."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_http_methods, require_POST

from games import access, regions, rules, words
from games.access import SignedInRequest
from games.models import Group, Role, Season, Span, Standing, groups_turn, standings
from games.models.seasons import SEASON_NAME_LENGTH, years
from games.responses import GROUP_GONE, refuse
from games.views.common import csv_download, spreadsheet_amount

ALL_TIME = "all"


@dataclass(frozen=True)
class Picked:
    """The season a page shows: its key in the picker ("2026", "all", "s12"), its name, and
    the matches it counts (None: all time)."""

    key: str
    label: str
    span: Span | None


def current(group: Group) -> Picked:
    """The season of today: an owner's season under way (the latest begun), else this year."""
    today = timezone.localdate()
    named = (
        Season.objects.filter(group=group)
        .filter(start__lte=today, end__gte=today)
        .order_by("-start", "-pk")
    )
    season = named.first()
    if season is not None:
        return Picked(f"s{season.pk}", season.name, Span.days(season.start, season.end))
    return Picked(str(today.year), str(today.year), Span.year(today.year))


def _picked(group: Group, key: str | None) -> tuple[Picked, str]:
    """The season `key` names, and words if it names none (then the current one)."""
    if not key:
        return current(group), ""
    if key == ALL_TIME:
        return Picked(ALL_TIME, "All time", None), ""
    if key.isascii() and key.isdecimal() and 1900 <= int(key) <= 2999:
        return Picked(key, key, Span.year(int(key))), ""
    if key.startswith("s") and key[1:].isascii() and key[1:].isdecimal() and len(key) < 20:
        season = Season.objects.filter(group=group).filter(pk=int(key[1:])).first()
        if season is not None:
            return Picked(key, season.name, Span.days(season.start, season.end)), ""
    return current(group), "There is no such season (deleted?): here is the current one."


def _choices(group: Group, picked: Picked) -> list[tuple[str, str]]:
    """The picker: each year with a match (and this one), all time, the owners' seasons."""
    this_year = timezone.localdate().year
    shown = sorted({this_year, *years(group.pk)}, reverse=True)
    choices = [(str(y), str(y)) for y in shown]
    choices.append((ALL_TIME, "All time"))
    for s in Season.objects.filter(group=group).all():
        choices.append((f"s{s.pk}", f"{s.name} ({s.start:%-d %b %Y} – {s.end:%-d %b %Y})"))
    if picked.key not in dict(choices):
        choices.insert(0, (picked.key, picked.label))
    return choices


def _per_hand(s: Standing) -> str:
    return "–" if s.per_hand is None else f"{s.per_hand:.2f}".replace("-", words.MINUS)


def _rate(s: Standing) -> str:
    return "–" if s.win_rate is None else f"{round(100 * s.win_rate)}%"


class SeasonForm(forms.Form):
    name = forms.CharField(
        label="Name of the season",
        max_length=SEASON_NAME_LENGTH,
        error_messages={
            "required": "A season needs a name.",
            "max_length": f"Keep the name to {SEASON_NAME_LENGTH} letters.",
        },
    )
    start = forms.DateField(
        label="First day",
        widget=forms.DateInput(attrs={"type": "date"}),
        error_messages={
            "required": "Give its first day.",
            "invalid": "Give a day such as 2026-09-01.",
        },
    )
    end = forms.DateField(
        label="Last day",
        widget=forms.DateInput(attrs={"type": "date"}),
        error_messages={
            "required": "Give its last day.",
            "invalid": "Give a day such as 2027-05-31.",
        },
    )

    def clean_name(self) -> str:
        name = " ".join(self.cleaned_data["name"].split())
        if not name:
            raise forms.ValidationError("A season needs a name.")
        if not rules.plain_text(name):
            raise forms.ValidationError(rules.PLAIN_NAME)
        return name

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        start, end = data.get("start"), data.get("end")
        if start and end and end < start:
            self.add_error("end", "The last day comes before the first: swap them?")
        for day in (start, end):
            if day and not 1900 <= day.year <= 2999:
                self.add_error(
                    "start" if day is start else "end", "Give a day between 1900 and 2999."
                )
        return data


def _page(
    request: SignedInRequest, group: Group, form: SeasonForm | None = None, status: int = 200
) -> HttpResponse:
    picked, notice = _picked(group, request.GET.get("season"))

    def draw() -> tuple[dict[str, str], None]:
        """The picker and the table, drawn once a version of the group (a season named or
        taken away moves it on too)."""
        rows, currencies = standings(group.pk, picked.span)
        table = [
            {
                "standing": s,
                "url": reverse("games:player_detail", args=[s.player]),
                "money": [(c, s.money.get(c, 0)) for c in currencies],
                "rate": _rate(s),
                "per_hand": _per_hand(s),
            }
            for s in rows
        ]
        context = {
            "group": group,
            "picked": picked,
            "choices": _choices(group, picked),
            "rows": table,
            "currencies": currencies,
            "moons": any(s.moons_made for s in rows),
        }
        return {
            "standings": regions.partial(request, "games/standings.html#standings", context)
        }, None

    this_year = timezone.localdate().year  # the picker offers it
    context = {
        "group": group,
        "picked": picked,
        "notice": notice,
        "is_owner": access.may(request, group, Role.OWNER),
        "seasons": Season.objects.filter(group=group),
        "form": form or SeasonForm(),
        **regions.region(request, group, "standings", (picked, this_year), draw),
    }
    return render(request, "games/standings.html", context, status=status)


@login_required
@require_http_methods(["GET"])
def standings_page(request: SignedInRequest, pk: int) -> HttpResponse:
    """The standings of a season: per player over its finished matches, by money, then wins."""
    return _page(request, access.get(request, Group, pk=pk))


@login_required
@require_http_methods(["GET"])
def standings_csv(request: SignedInRequest, pk: int) -> HttpResponse:
    """The standings as the page shows them, a row a player."""
    group = access.get(request, Group, pk=pk)
    picked, _ = _picked(group, request.GET.get("season"))
    rows, currencies = standings(group.pk, picked.span)
    slug = picked.key if picked.key[0] != "s" else f"season-{picked.key[1:]}"
    response, out = csv_download(f"buck-euchre-standings-{slug}.csv")
    out.writerow(
        ["place", "player", "played", "won", "win rate", *(f"net {c}" for c in currencies)]
        + ["points per hand", "sets", "moons made"]
    )
    for i, s in enumerate(rows, 1):
        rate = "" if s.win_rate is None else f"{s.win_rate:.3f}"
        per_hand = "" if s.per_hand is None else f"{s.per_hand:.2f}"
        money = [spreadsheet_amount(s.money.get(c, 0)) for c in currencies]
        out.writerow([i, s.name, s.played, s.won, rate, *money, per_hand, s.was_set, s.moons_made])
    return response


@login_required
@require_POST
def season_create(request: SignedInRequest, pk: int) -> HttpResponse:
    """An owner names a season with its first and last days."""
    group = access.get(request, Group, Role.OWNER, pk=pk)
    form = SeasonForm(request.POST)
    if not form.is_valid():
        return _page(request, group, form)
    try:
        with transaction.atomic():
            groups_turn(group.pk)  # the standings' picker is drawn once a version
            season = Season.objects.create(group=group, **form.cleaned_data)
    except Group.DoesNotExist:
        return refuse(request, 404, GROUP_GONE)
    messages.success(request, f"The season {season.name} is in the picker.")
    return redirect(season)


@login_required
@require_POST
def season_delete(request: SignedInRequest, pk: int, season: int) -> HttpResponse:
    """An owner takes a named season away (its matches stay, in their years and all time)."""
    group = access.get(request, Group, Role.OWNER, pk=pk)
    found = get_object_or_404(Season, pk=season, group=group)
    try:
        with transaction.atomic():
            groups_turn(group.pk)
            found.delete()
    except Group.DoesNotExist:
        return refuse(request, 404, GROUP_GONE)
    messages.info(request, f"The season {found.name} is gone from the picker.")
    return redirect(reverse("games:standings", args=[group.pk]))
