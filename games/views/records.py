"""Pages over many matches, read from the stored results (`Result`): nights and their
settle-up, players and their statistics (docs/rules.md §11, §12), and a match's score race."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.db.models import Count, Min, QuerySet
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_http_methods, require_POST
from django.views.decorators.vary import vary_on_headers

from games import access, regions, rules, words
from games.access import SignedInRequest
from games.charts import line_chart
from games.models import (
    Group,
    Match,
    Night,
    PayWays,
    Player,
    Role,
    SettleUp,
    mark_transfer,
    move_match,
    payment_key,
)
from games.responses import GROUP_GONE, refuse
from games.views import payways
from games.views.common import (
    csv_download,
    group_switch,
    net_charts,
    partial,
    spreadsheet_amount,
    stats_context,
)

# --- Nights ---------------------------------------------------------------------------------


def _workings(matches: list[Match]) -> dict[tuple[str, str], list[dict[str, object]]]:
    """Where each player's net of the night comes from, match by match, with each match's
    working: the engine's payments (`Match.settled`) and the §6 terms behind them."""
    out: dict[tuple[str, str], list[dict[str, object]]] = {}
    for match in matches:
        stakes = match.stakes()
        if not match.finished or not stakes:
            continue
        state, payments = match.settled()
        for result in match.results.all():
            name = result.player.name
            if result.won:
                paid = [p for p in payments if p.payee == name]
                pays = [f"{p.payer} pays {words.money(p.cents, stakes.currency)}" for p in paid]
                said = f"won: {', '.join(pays) or 'nobody owes anything'}"
            else:
                said = words.owes_words(stakes, result.score, result.short)
                if len(state.winners) > 1:
                    said += f", shared by {rules.join_names(state.winners)}"
            out.setdefault((stakes.currency, name), []).append(
                {"match": match, "cents": result.net_cents, "words": said}
            )
    return out


def _settle_up_context(night: Night, matches: list[Match], me: int | None = None) -> dict[str, Any]:
    settle_up = night.settle_up()
    paid = night.paid_cents()
    workings = _workings(matches)
    names = {name for s in settle_up for name in s.net}
    players = dict(
        Player.objects.filter(group=night.group_id, name__in=names).values_list("name", "pk")
    )
    # The buttons that pay a transfer, for the one who pays it (`me`, the viewer's player).
    me_name = next((name for name, pk in players.items() if pk == me), None)
    kept = PayWays.of_group(night.group_id) if me_name else {}
    day = timezone.localtime(matches[0].played_at).date() if matches else timezone.localdate()
    sections = [
        {
            "currency": s.currency,
            "not_fewest": "" if s.fewest else words.NOT_FEWEST,
            "players": [
                {
                    "name": name,
                    "net": net,
                    "workings": workings.get((s.currency, name), []),
                    "url": reverse("games:player_detail", args=[players[name]]),
                }
                for name, net in s.net.items()
            ],
            "transfers": [
                {
                    "payment": t,
                    "key": s.key(t),
                    "paid": s.covered(t, paid),
                    "left_cents": t.cents - paid.get(s.key(t), 0),
                    "ways": payways.buttons(
                        kept,
                        me_name,
                        t.payer,
                        t.payee,
                        t.cents - paid.get(s.key(t), 0),
                        s.currency,
                        day,
                    ),
                }
                for t in s.transfers
            ],
        }
        for s in settle_up
    ]
    keys = {s.key(t) for s in settle_up for t in s.transfers}
    # Paid for a transfer that a change of the hands has done away with: the money moved all
    # the same, so the payment stays, and the balances count it.
    others = [
        p
        for p in night.payments.select_related("payer", "payee").order_by("paid_at", "pk")
        if payment_key(p.currency, p.payer.name, p.payee.name) not in keys
    ]
    return {
        "night": night,
        "sections": sections,
        "others": others,
        "fingerprint": Night.fingerprint(settle_up),
        "unfinished": sum(not m.finished for m in matches),
    }


def _nights_near(night: Night, matches: list[Match]) -> QuerySet[Night]:
    """The group's other nights a match of this one might move to: those a fortnight around."""
    if not matches:
        return Night.objects.none()
    first, last = matches[0].played_at, matches[-1].played_at
    return (
        Night.objects.filter(
            group=night.group_id,
            matches__played_at__range=(first - timedelta(days=14), last + timedelta(days=14)),
        )
        .exclude(pk=night.pk)
        .annotate(began=Min("matches__played_at"), count=Count("matches"))
        .order_by("-began")[:12]
    )


def _night_context(night: Night, can_score: bool, me: int | None) -> dict[str, Any]:
    matches = list(night.matches.order_by("played_at", "pk").with_results())
    context = _settle_up_context(night, matches, me)
    context.update(matches=matches, nights=_nights_near(night, matches), can_score=can_score)
    return context


@login_required
@require_http_methods(["GET"])
@vary_on_headers("HX-Request")
def night_detail(request: SignedInRequest, pk: int) -> HttpResponse:
    night = access.get_of_group(request, Night, pk)
    can_score = access.may(request, night, Role.SCORER)
    me = payways.me(request, night.group_id)
    template = partial(request, "games/night_detail.html", "settle-up")
    if template.endswith("#settle-up"):
        return render(request, template, _night_context(night, can_score, me))

    def draw() -> tuple[dict[str, str], None]:
        """The night's page, drawn once a version of the group; the choice of nights to move
        a match to drawn once for all its matches."""
        context = _night_context(night, can_score, me)
        matches: list[Match] = context["matches"]
        context["night_title"] = night.titled(matches[0].played_at if matches else None)
        options = "games/night_detail.html#move-options"
        context["move_options"] = regions.partial(request, options, context) if can_score else ""
        page = regions.partial(request, "games/night_detail.html#night", context)
        return {"night_title": context["night_title"], "night_page": page}, None

    drawn = regions.region(request, night.group, "night", (night.pk, can_score, me), draw)
    return render(request, template, {"night": night, **drawn})


@login_required
@require_POST
@vary_on_headers("HX-Request")
def night_paid(request: SignedInRequest, pk: int) -> HttpResponse:
    """Mark a payment of the night paid, or not paid after all."""
    night = access.get(request, Night, Role.SCORER, pk=pk)
    key, seen = request.POST.get("key", ""), request.POST.get("fingerprint")
    notice = None
    try:
        marked = mark_transfer(night, key, request.POST.get("paid") == "1", seen, by=request.user)
    except ValidationError as e:
        marked, notice = True, " ".join(e.messages)
    except Group.DoesNotExist:
        return refuse(request, 404, GROUP_GONE)
    if not marked:
        notice = "The payments changed since that page was drawn. Here they are as they are now."
    if not request.htmx:
        if notice:
            messages.warning(request, notice)
        return redirect(night.get_absolute_url() + "#settle-up")
    night = access.get(request, Night, pk=pk)
    matches = list(night.matches.order_by("played_at", "pk").with_results())
    me = payways.me(request, night.group_id)
    context = {**_settle_up_context(night, matches, me), "notice": notice, "can_score": True}
    return render(request, "games/night_detail.html#settle-up", context)


@login_required
@require_POST
def match_move(request: SignedInRequest, pk: int) -> HttpResponse:
    """Settle a match with another night, or on a night of its own."""
    match = access.get(request, Match, Role.SCORER, pk=pk)
    choice = request.POST.get("night", "")
    target = None
    if choice != "new":
        try:
            night_pk = forms.IntegerField(min_value=1).clean(choice)
        except ValidationError:
            return redirect(match.night)
        target = get_object_or_404(Night, pk=night_pk, group=match.group_id)
    if target is not None and target.pk == match.night_id:
        return redirect(target)
    try:
        night = move_match(match, target)
    except Group.DoesNotExist:
        return refuse(request, 404, GROUP_GONE)
    when = words.clock(timezone.localtime(match.played_at))
    messages.success(request, f"The match of {when} is settled with this night now.")
    return redirect(night)


@login_required
@require_http_methods(["GET"])
def night_list(request: SignedInRequest) -> HttpResponse:
    group = access.picked(request)
    number = request.GET.get("page")

    def draw() -> tuple[dict[str, str], None]:
        """A page of the group's nights, latest first, drawn once a version of the group."""
        nights = (
            Night.objects.filter(group=group)
            .annotate(began=Min("matches__played_at"), count=Count("matches"))
            .filter(count__gt=0)
            .order_by("-began")
        )
        page = Paginator(nights, 20).get_page(number)
        shared = Night.shared_days(group.pk, [n.began for n in page])
        rows = []
        for n in page:
            began = timezone.localtime(n.began)
            count = words.plural(n.count, "match", "matches")
            rows.append(
                {
                    "pk": n.pk,
                    "title": Night.title(n.began, began.date() in shared),
                    "meta": f"{count} from {words.clock(began)}",
                }
            )
        context = {"page": page, "rows": rows}
        return {"nights": regions.partial(request, "games/night_list.html#nights", context)}, None

    context = {
        "group": group,
        "groups": group_switch(request, group),
        **regions.region(request, group, "nights", (number,), draw),
    }
    return render(request, "games/night_list.html", context)


@login_required
@require_http_methods(["GET"])
def night_csv(request: SignedInRequest, pk: int) -> HttpResponse:
    """The night's settle-up: each player's net, then who pays whom, for each currency."""
    night = access.get(request, Night, pk=pk)
    settle_up: list[SettleUp] = night.settle_up()
    paid = night.paid_cents()
    response, out = csv_download(f"buck-euchre-night-{night.started() or night.pk}.csv")
    out.writerow(["currency", "row", "player", "to", "amount", "paid"])
    for s in settle_up:
        for name, net in s.net.items():
            out.writerow([s.currency, "net", name, "", spreadsheet_amount(net), ""])
        for t in s.transfers:
            part = paid.get(s.key(t), 0)
            word = "yes" if s.covered(t, paid) else "no"
            if 0 < part < t.cents:
                word = f"in part: {spreadsheet_amount(t.cents - part)} left"
            out.writerow([s.currency, "pays", t.payer, t.payee, spreadsheet_amount(t.cents), word])
        if not s.fewest:
            out.writerow([s.currency, "note", words.NOT_FEWEST, "", "", ""])
    return response


# --- Players --------------------------------------------------------------------------------


def _is_me(request: SignedInRequest, player: Player) -> bool:
    """Whether the user said "this is me" of the player."""
    member = access.memberships(request).get(player.group_id)
    return member is not None and member.player_id == player.pk


def _player_context(request: SignedInRequest, player: Player, **more: object) -> dict[str, object]:
    summed = player.result_sums.summed()
    return {
        "can_score": access.may(request, player, Role.SCORER),
        "is_me": _is_me(request, player),
        "stats_note": (
            "A hand counts when it was played (not redealt). The stayed-in rate is over the "
            f"hands in which {player.name} was free to drop out; points per hand below zero "
            "are good."
        ),
        "player": player,
        **stats_context(summed),
        "charts": net_charts(player.name, [player.pk], summed),
        "others": Player.objects.filter(group=player.group_id).exclude(pk=player.pk),
        "name_length": rules.NAME_LENGTH,
        **more,
    }


@login_required
@require_http_methods(["GET"])
def player_detail(request: SignedInRequest, pk: int) -> HttpResponse:
    player = access.get_of_group(request, Player, pk)
    can_score = access.may(request, player, Role.SCORER)

    def draw() -> tuple[dict[str, str], None]:
        """The player's statistics, charts and forms, drawn once a version of the group."""
        context = _player_context(request, player)
        return {
            "player_page": regions.partial(request, "games/player_detail.html#player", context)
        }, None

    context = {
        "player": player,
        "is_me": _is_me(request, player),
        **regions.region(request, player.group, "player", (player.pk, can_score), draw),
    }
    return render(request, "games/player_detail.html", context)


@login_required
@require_POST
def player_rename(request: SignedInRequest, pk: int) -> HttpResponse:
    player = access.get(request, Player, Role.SCORER, pk=pk)
    old, typed = player.name, request.POST.get("name", "")
    try:
        player.rename(typed)
    except rules.RuleError as e:
        player.name = old
        context = _player_context(request, player, rename_error=e.message, typed=typed)
        return render(request, "games/player_detail.html", context, status=200)
    except Group.DoesNotExist:
        return refuse(request, 404, GROUP_GONE)
    if player.name != old:
        messages.success(request, f"{old} is called {player.name} now, in every match.")
    return redirect(player.get_absolute_url())


@login_required
@require_POST
def player_merge(request: SignedInRequest, pk: int) -> HttpResponse:
    """Take another player in as a second spelling of this one."""
    player = access.get(request, Player, Role.SCORER, pk=pk)
    try:
        other_pk = forms.IntegerField(min_value=1).clean(request.POST.get("other"))
    except ValidationError:
        error = f"Choose which player is another spelling of {player.name}."
        context = _player_context(request, player, merge_error=error)
        return render(request, "games/player_detail.html", context)
    other = get_object_or_404(Player, pk=other_pk, group=player.group_id)
    if not request.POST.get("same"):
        error = f"Tick the box to say that {other.name} and {player.name} are the same person."
        context = _player_context(request, player, merge_error=error, chosen=other.pk)
        return render(request, "games/player_detail.html", context)
    try:
        moved = player.merge(other)
    except Group.DoesNotExist:
        return refuse(request, 404, GROUP_GONE)
    except rules.RuleError as e:
        context = _player_context(request, player, merge_error=e.message, chosen=other.pk)
        return render(request, "games/player_detail.html", context)
    moved_words = words.plural(moved, "match", "matches")
    messages.success(request, f"{other.name} is {player.name} now: {moved_words} moved over.")
    return redirect(player.get_absolute_url())


@login_required
@require_http_methods(["GET"])
def player_csv(request: SignedInRequest, pk: int) -> HttpResponse:
    """A player's matches, one row a match, from the stored results."""
    player = access.get(request, Player, pk=pk)
    matches = (
        Match.objects.filter(results__player=player).order_by("played_at", "pk").with_results()
    )
    response, out = csv_download(f"buck-euchre-{player.name}-matches.csv")
    out.writerow(
        [
            "played_at",
            "rules",
            "players",
            "seat",
            "hands",
            "finished",
            "score",
            "won",
            "winners",
            "net",
            "currency",
            "score_counted",
        ]
    )
    for match in matches:
        mine = next(r for r in match.results.all() if r.player_id == player.pk)
        staked = match.finished and match.stakes()
        ruleset = match.ruleset()
        out.writerow(
            [
                timezone.localtime(match.played_at).isoformat(),
                match.label,
                "; ".join(r.player.name for r in match.results.all()),
                mine.seat + 1,
                match.hands_played,
                "yes" if match.finished else "no",
                rules.shown_score(ruleset, mine.score),
                "yes" if mine.won else "no",
                "; ".join(match.winner_names()),
                spreadsheet_amount(mine.net_cents) if staked else "",
                match.currency if staked else "",
                "up" if ruleset.count_up else "down",  # as the board shows it
            ]
        )
    return response


# --- A match's score race -------------------------------------------------------------------


@login_required
@require_http_methods(["GET"])
@vary_on_headers("HX-Request")
def match_race(request: SignedInRequest, pk: int) -> HttpResponse:
    """Every player's score from the start to the end, as a chart and as a table."""
    match = access.get(request, Match.objects.with_seats(), pk=pk)
    start = match.start()
    state, kept = match.score_race()
    r = start.ruleset
    # As the table sees them: counted up from 0 where the rules say `count_up`.
    rows = [(number, [rules.shown_score(r, s) for s in scores]) for number, scores in kept]
    series = {
        p: [start.shown(p), *(scores[seat] for _, scores in rows)]
        for seat, p in enumerate(state.players)
    }
    ends = ", ".join(
        f"{p} {'ends' if state.finished else 'is'} at {words.number(state.shown(p))}"
        + (" and wins" if p in state.winners else "")
        for p in state.players
    )
    way = (
        f"from 0 at the start up toward {r.starting_score}"
        if r.count_up
        else (f"from {r.starting_score} at the start toward zero")
    )
    description = f"Each player's score after each of {state.hands} hands, {way}: {ends}."
    chart = line_chart(
        "Score race",
        description,
        series,
        ["Start", *(str(number) for number, _ in rows)],
    )
    context = {
        "match": match,
        "state": state,
        "start": start,
        "chart": chart,
        "rows": rows,
    }
    return render(request, partial(request, "games/match_race.html", "race"), context)
