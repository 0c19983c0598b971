from __future__ import annotations

import functools
import io
import zipfile
from collections.abc import Callable
from datetime import timedelta
from typing import Any
from urllib.parse import quote

import segno
from axes.utils import reset as axes_reset
from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model, login, logout
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import AuthenticationForm
from django.core.cache import cache
from django.core.exceptions import TooManyFilesSent, ValidationError
from django.core.paginator import Paginator
from django.db import OperationalError, transaction
from django.http import Http404, HttpRequest, HttpResponse, QueryDict
from django.shortcuts import get_object_or_404, redirect, render, resolve_url
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.safestring import mark_safe
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_http_methods, require_POST
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import (
    HttpResponseClientRedirect,
    push_url,
    reselect,
    reswap,
    retarget,
)

from games import access, matchfile, regions, rules, throttles, words
from games.access import HtmxRequest, SignedInRequest
from games.checks import password_reset_on, reset_domain
from games.forms import EmailForm, HandForm, MatchForm, SignupForm, WriteForm
from games.models import MAX_HANDS, Change, Group, Match, Night, Player, Role, Stale


def _partial(request: HtmxRequest, template: str, partial: str) -> str:
    """The page for a normal request, just its region for an htmx one."""
    if request.htmx and not request.htmx.history_restore_request:
        return f"{template}#{partial}"
    return template


def _go(request: HtmxRequest, to) -> HttpResponse:
    """Redirect: htmx must load the whole page, not swap it into a region."""
    if request.htmx:
        return HttpResponseClientRedirect(resolve_url(to))
    return redirect(to)


def _get_match(request: HttpRequest, pk: int, needed: Role = Role.VIEWER) -> Match:
    return access.checked(request, Match.objects.one(pk), needed)


HISTORY_SHOWN = 5  # the latest hands under the board; the rest on demand


def _cell(name: str, change: int, score: int) -> dict:
    """A player's line in a hand of the history: the change in words, how it went, the score."""
    trend = "up" if change > 0 else "down" if change < 0 else ""
    return {"name": name, "change": words.signed(change), "trend": trend, "score": score}


def _summary(match: Match, replayed=None, all_hands: bool = False, me=None) -> dict:
    """Everything a page shows about a match, folded once by the engine: the whole match for
    every hand's line, else just the latest hands' (`Match.replay_latest`). For a member
    (`me`), each hand says who saved it, where it was somebody else, and who changed it."""
    if all_hands or replayed is None:
        replayed = match.replay() if all_hands else match.replay_latest(HISTORY_SHOWN)
    state, results = replayed
    stakes = match.stakes()
    payments, net = rules.settle(state, stakes)
    must_play = state.must_play()
    shown = results if all_hands else results[-HISTORY_SHOWN:]

    authors = Change.authors(match, [r.number for r in shown]) if shown and me else {}
    history = [
        {
            "number": result.number,
            "dealer": result.dealer,
            "text": words.hand_in_words(result),
            "cells": [_cell(p, result.changes[p], result.scores[p]) for p in state.players],
            "by": _author(authors.get(result.number), me),
        }
        for result in shown
    ]

    standings = [
        {
            "name": p,
            "score": state.scores[p],
            "dealer": p == state.dealer and not state.finished,
            "must_play": p in must_play and not state.finished,
            "winner": p in state.winners,
            "net": net.get(p),
        }
        for p in state.players
    ]
    return {
        "match": match,
        "state": state,
        "standings": standings,
        "history": history[::-1],
        "payments": payments,
        "stakes": stakes,
        "stakes_text": words.stakes_text(stakes),
        "if_ended": words.if_ended(rules.payout_if_ended(state, stakes), stakes.currency),
        "preset": rules.PRESETS[match.preset],
        "house_rules": words.house_rules_words(match.preset, state.ruleset),
        "rules_words": words.rules_in_words(state.ruleset, stakes),
        # How often a board left open asks whether its match changed: less often once it is
        # won (an Undo can reopen it).
        "poll_every": f"{settings.POLL_SECONDS_WON if state.finished else settings.POLL_SECONDS}s",
        "all_hands": all_hands,
    }


def _author(change: Change | None, me) -> str:
    """Who wrote a hand as it stands: "changed by Bob at 9:14 p.m.", or "saved by Bob" where
    it was not the reader."""
    if change is None:
        return ""
    if change.kind == Change.Kind.EDITED:
        return f"changed by {change.by or 'somebody'} at {_clock(change.at)}"
    return f"saved by {change.by}" if change.by and change.by != me.get_username() else ""


# A board drawn for a version of a match is drawn once: the next page, poll or phone at that
# version takes it from the shared cache. Its key holds all the drawing depends on (the version
# moves with every change of the hands; the names do not, so they are in it too; the moment
# the match was made, as ids of a dropped database are used again), and the forms' CSRF token
# is put in as each request's own (games/regions.py).


def _board_key(request: SignedInRequest, match: Match, role: Role) -> str | None:
    """The key of a board as a plain GET draws it; None where it is drawn for one request
    (a form with what the player entered, a notice)."""
    if request.method != "GET":
        return None
    parts = (match.pk, match.created.isoformat(), match.version, match.names, role)
    return regions.cache_key("board", *parts, request.user.get_username(), _all_hands(request))


def _read_together(request: SignedInRequest, match: Match, read: Callable[[Match], Any]):
    """(the match, `read(match)`) with no save landing in between: where another phone's
    save landed between reading the match and `read`'s reading of its hands
    (`Match.moved_on`), both are read again, up to three times. Never a board whose hands are
    newer than its version (a Save from it would be refused as stale)."""
    result = read(match)
    for _ in range(3):
        if not match.moved_on():
            break
        match = access.checked(request, Match.objects.one(match.pk))
        result = read(match)
    return match, result


def _board(
    request: SignedInRequest,
    match: Match,
    form: HandForm | None = None,
    notice: str | None = None,
    status: int = 200,
    replayed=None,
    whole: bool = False,
) -> HttpResponse:
    """The board: the whole match page, or for htmx its board alone (`whole` asks for the
    page even then, for an answer that takes the place of another page)."""
    role = access.require(request, match.group_id)
    kept = form is None and notice is None  # drawn as a plain GET draws it: cached
    key = _board_key(request, match, role) if kept else None
    drawn = cache.get(key) if key else None
    summary: dict[str, Any] = {}
    if drawn is None:
        hands = _all_hands(request)
        if replayed is None:
            match, summary = _read_together(
                request, match, lambda m: _summary(m, None, hands, me=request.user)
            )
        else:
            summary = _summary(match, replayed, hands, me=request.user)
    share_url = request.build_absolute_uri(match.get_share_url())
    context: dict[str, Any] = {
        "match": match,
        "share_url": share_url,
        "share_qr": lambda: _qr(share_url),  # drawn only where the page shows it
        "viewer": not role.allows(Role.SCORER),
        "is_owner": role.allows(Role.OWNER),
    }
    if drawn is None:
        context.update(summary)
        state: rules.MatchState = context["state"]
        if not role.allows(Role.SCORER):
            form = None
        elif form is None and not state.finished:
            form = HandForm(state, initial={"number": state.hands + 1, "version": match.version})
        context.update(
            form=form,
            number=state.hands + 1,
            notice=notice,
            history_url=match.get_absolute_url() + "?hands=all",
        )
        key = _board_key(request, match, role) if kept else None  # the version as read
        if key:
            drawn = regions.partial(request, "games/match_detail.html#board", context)
            cache.set(key, drawn, regions.SECONDS)
    if drawn is not None:
        context["board"] = regions.with_token(request, drawn)
    region = _region(request)
    if request.htmx and not whole and region == "board" and "board" in context:
        response = HttpResponse(context["board"], status=status)
    else:
        page = "games/match_detail.html"
        template = page if whole else _partial(request, page, region)
        response = render(request, template, context, status=status)
    if request.htmx and (request.method == "POST" or "v" in request.GET):
        response["HX-Trigger"] = "board-changed"  # the score race under the board follows
    if "v" in request.GET:  # a poll: what changed, for a phone in the middle of a hand
        before = _count(request.GET.get("n"))
        response["X-Board-Change"] = _what_changed(request, match, before, match.hands_played)
    return response


def _all_hands(request: HttpRequest) -> bool:
    """A page asks for every hand of the history: "Show all", or the poll of a board showing
    every hand (its history says so, and the board keeps them)."""
    return request.GET.get("hands") == "all"


def _region(request: HttpRequest) -> str:
    """What an htmx request redraws: "Show all" the history, or the board (a poll, `?v=`)."""
    return "hands" if _all_hands(request) and "v" not in request.GET else "board"


def _count(text) -> int | None:
    try:
        return forms.IntegerField(min_value=0, max_value=MAX_HANDS).clean(text)
    except ValidationError:
        return None


@functools.lru_cache(maxsize=64)
def _qr(url: str) -> str:
    return mark_safe(segno.make(url, error="m").svg_inline(scale=5, dark="#000", light="#fff"))


def _unchanged(request: HtmxRequest, matches) -> bool:
    """A live board's poll (`?v=` the version it shows) for a match whose hands are as
    they were: answered 204 from one small query, with no replay."""
    if not request.htmx or "v" not in request.GET:
        return False
    version = get_object_or_404(matches.values_list("version", flat=True))
    return request.GET["v"] == str(version)


def _numbers(first: int, last: int) -> str:
    if first == last:
        return f"Hand {first} was"
    return (
        f"Hands {first} and {last} were" if last == first + 1 else f"Hands {first} to {last} were"
    )


def _by(request: HttpRequest, match: Match, kind: str, first: int, last: int) -> str:
    """ "by Bob", from the change log: who else saved (or undid) those hands. One's own other
    phone goes without a name, as it did before groups."""
    you = request.user.get_username()
    names = [name for name in Change.who(match, kind, first, last) if name != you]
    return f" by {rules.join_names(names)}" if names else ""


def _what_changed(request: HttpRequest, match: Match, before: int | None, now: int) -> str:
    """What another phone did, and who, from the hands a page showed and the hands there
    are now: "Hand 5 was saved by Bob on another phone." """
    if before is not None and now > before:
        by = _by(request, match, Change.Kind.SAVED, before + 1, now)
        return f"{_numbers(before + 1, now)} saved{by} on another phone."
    if before is not None and now < before:
        by = _by(request, match, Change.Kind.UNDONE, now + 1, before)
        return f"{_numbers(now + 1, before)} undone{by} on another phone."
    return "The hands were changed on another phone."


def _stale_board(
    request: SignedInRequest,
    pk: int,
    before: int | None,
    entry=None,
    tail: str = "",
    whole: bool = False,
) -> HttpResponse:
    """409: the board as it is now, what changed, and what the player entered, kept.

    Where the entry still fits the match it is offered as the next hand; otherwise the
    form says what is wrong with it, and the player can fix it or discard it.
    """
    match, replayed = _read_together(
        request, _get_match(request, pk), lambda m: m.replay_latest(HISTORY_SHOWN)
    )
    state = replayed[0]
    notice = _what_changed(request, match, before, state.hands) + tail
    form = None
    if entry is not None and not state.finished:
        data = entry.copy()
        data.update({"number": state.hands + 1, "version": match.version})
        form = HandForm(state, data, checking=True)
        form.is_valid()
    elif entry is not None:
        notice += " The match is over, so what you entered was not saved."
    response = _board(
        request, match, form, notice=notice, status=409, replayed=replayed, whole=whole
    )
    if request.htmx:  # a check answers into the hand form; this answer is the whole board,
        # or (`whole`) the match page's main, title and all, in another page's place.
        target = "#main" if whole else "#board"
        # htmx takes modifiers after the swap method; django-htmx's type names the method alone.
        response = reswap(retarget(response, target), "outerHTML show:window:top")  # type: ignore[arg-type]
        if whole:
            reselect(response, target)
    return response


def signup(request: HttpRequest) -> HttpResponse:
    if not settings.SIGNUP_OPEN:
        return render(request, "registration/signup.html", {"closed": True}, status=403)
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        address = throttles.client_address(request)
        if not throttles.allow("signup", address, settings.SIGNUPS_PER_ADDRESS):
            form.add_error(None, TOO_MANY_SIGNUPS)
            context = {"form": form, "next": _next(request)}
            return refuse(request, 429, TOO_MANY_SIGNUPS, "registration/signup.html", **context)
        user = form.save()
        Group.home(user)
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        return redirect(_next(request) or "games:home")
    return render(request, "registration/signup.html", {"form": form, "next": _next(request)})


def _next(request: HttpRequest) -> str:
    """Where to go after signing up: back to an invitation, say; only ever this site."""
    wanted = request.POST.get("next") or request.GET.get("next") or ""
    safe = url_has_allowed_host_and_scheme(wanted, allowed_hosts={request.get_host()})
    return wanted if safe and wanted.startswith("/") else ""


def _listed(group: Group):
    """A group's matches for a list, latest first (`_cards` draws them)."""
    return Match.objects.filter(group=group).order_by("-played_at", "-pk")


def _clock(moment) -> str:
    """ "7:30 p.m.", in the players' time zone."""
    return words.clock(timezone.localtime(moment))


def _when(moment) -> str:
    """ "Nov 28, 7:30 p.m.", as the lists say when a match began."""
    return words.day_and_clock(timezone.localtime(moment))


ANY_ID = 918_273_645  # an id in a route reversed once for many objects, then replaced


def _addresses(route: str) -> Callable[[int], str]:
    """The address of an object of `route` by its id, the route reversed once for all of
    them (reversing it once an object was a tenth of a long list's cost)."""
    address = reverse(route, args=[ANY_ID])
    return lambda pk: address.replace(str(ANY_ID), str(pk))


def _cards(ids: list[int]) -> list[dict]:
    """What a list shows of each of these matches, from their stored results: put together
    here once, so that a long page of cards costs little to draw."""
    board, export = _addresses("games:match_detail"), _addresses("games:match_export")
    cards = []
    for m in Match.card_rows(ids):
        if m.finished:
            meta = words.card_meta(m.hands_played, winners=[n for _, n, _, won in m.results if won])
        else:
            dealer = next(n for seat, n, _, _ in m.results if seat == m.next_dealer)
            meta = words.card_meta(m.hands_played, dealer=dealer)
        when = _when(m.played_at)
        cards.append(
            {
                "pk": m.pk,
                "url": board(m.pk),
                "export_url": export(m.pk),
                "title": f"{Match.label_of(m.preset)} · {when}",
                "when": when,
                "scores": [(name, score, won) for _, name, score, won in m.results],
                "meta": meta,
            }
        )
    return cards


# How long after its last match began a night's settle-up is tonight's on the home page.
TONIGHT = timedelta(hours=12)


def _tonight(group: Group) -> dict | None:
    """The settle-up of the latest night, once one of its matches has finished."""
    night = Night.latest(group)
    if night is None:
        return None
    settle_up, paid = night.settle_up(), night.paid_cents()
    transfers = [
        (s.currency, t, s.covered(t, paid), paid.get(s.key(t), 0))
        for s in settle_up
        for t in s.transfers
    ]
    first, last = night.span()
    assert first is not None and last is not None  # Night.latest has a finished match
    return {
        "night": night,
        "transfers": transfers,
        "staked": bool(settle_up),
        "not_fewest": "" if all(s.fewest for s in settle_up) else words.NOT_FEWEST,
        "is_tonight": timezone.now() - last < TONIGHT,
        "last": last,
        "started": timezone.localtime(first).date(),
    }


@require_http_methods(["GET"])
def service_worker(request: HttpRequest) -> HttpResponse:
    """The service worker, served from the site's root so that it looks after every page."""
    response = render(request, "games/sw.js", content_type="text/javascript; charset=utf-8")
    response["Cache-Control"] = "no-cache"
    return response


@login_required
def home(request: SignedInRequest) -> HttpResponse:
    group = access.picked(request)

    def draw():
        """The matches and the latest night's settle-up, drawn once a version of the group."""
        tonight = _tonight(group)
        context = {
            "group": group,
            "playing": _cards(Match.objects.latest_ids(group, finished=False, most=20)),
            "finished": _cards(Match.objects.latest_ids(group, finished=True, most=5)),
            "tonight": tonight,
        }
        records = regions.partial(request, "games/home.html#records", context)
        ends = tonight["last"] + TONIGHT if tonight and tonight["is_tonight"] else None
        return {"records": records}, ends

    return render(
        request,
        "games/home.html",
        {
            "group": group,
            "groups": _switch(request, group),
            "can_score": access.require(request, group.pk).allows(Role.SCORER),
            **regions.region(request, group, "home", (), draw),
        },
    )


def _switch(request: SignedInRequest, group: Group) -> list[Group]:
    """The user's other groups, for the switch at the top of a page over one group."""
    return [m.group for m in access.memberships(request).values() if m.group_id != group.pk]


def _scoring_groups(request: SignedInRequest):
    return Group.objects.filter(
        memberships__user=request.user, memberships__role__in=[Role.SCORER, Role.OWNER]
    )


def _group_to_write(request: SignedInRequest) -> Group:
    """The group a new match or an import goes into: the one the form's `group` names, else
    the picked group, else another where the user keeps score. 404 for a group the user is
    not in, 403 in words where they only view."""
    wanted = request.POST.get("group") or request.GET.get("group")
    if wanted:
        pk = access.group_id(wanted)
        if pk is None:
            raise Http404("No such group.")
        access.require(request, pk, Role.SCORER)
        return Group.objects.get(pk=pk)
    group = access.picked(request)
    if not access.require(request, group.pk).allows(Role.SCORER):
        group = _scoring_groups(request).first() or group
    access.require(request, group.pk, Role.SCORER)
    return group


@login_required
@require_http_methods(["GET", "POST"])
@vary_on_headers("HX-Request")
def match_create(request: SignedInRequest) -> HttpResponse:
    group = _group_to_write(request)
    saved = list(Player.objects.filter(group=group).values_list("name", flat=True))
    form = MatchForm(request.POST or None)
    deal = None
    if request.method == "POST":
        names = form.names()
        if "jack" in request.POST and names:
            deal, first = rules.deal_for_jack(names)
            form.data = request.POST.copy()
            form.data["dealer"] = str(form.seat_names().index(first))
        elif "add" in request.POST:
            form.data = _seat_player(request.POST, request.POST["add"])
        elif "up" in request.POST:
            form.data = _move_up(request.POST, request.POST["up"])
        elif "create" in request.POST and form.is_valid():
            match = Match.create(
                group,
                form.cleaned_data["preset"],
                form.ruleset,
                form.stakes,
                form.players,
                form.first_dealer,
                by=request.user,
            )
            return redirect(match)
    template = _partial(request, "games/match_new.html", _new_match_region(request))
    seated = {rules.name_key(n) for n in form.names()}
    return render(
        request,
        template,
        {
            "form": form,
            "deal": deal,
            "saved": [n for n in saved if rules.name_key(n) not in seated],
            "presets": rules.PRESETS.values(),
            "group": group,
            "groups": list(_scoring_groups(request)),
            "rules_words": words.rules_in_words(*_chosen_rules(form)),
        },
    )


def _new_match_region(request: HtmxRequest) -> str:
    """What an htmx request redraws of the new-match page: the rules in words, as house rules
    and stakes change, or the whole form."""
    return "rules-words" if request.htmx.trigger == "rules-words" else "match-form"


def _chosen_rules(form: MatchForm) -> tuple[rules.Ruleset, rules.Stakes]:
    """The ruleset and stakes as chosen so far on the new-match form: the preset's, with the
    house rules and stakes that are valid on top."""
    preset = form.chosen_preset
    if not form.is_bound:
        return preset.ruleset, preset.stakes
    form.is_valid()
    data = getattr(form, "cleaned_data", {})
    stakes = rules.Stakes(
        **{
            k: data[k] if data.get(k) is not None else getattr(preset.stakes, k)
            for k in MatchForm.STAKES
        },
        currency=data.get("currency") or preset.stakes.currency,
    )
    return getattr(form, "ruleset", preset.ruleset), stakes


def _seat_player(sent: QueryDict, name: str) -> QueryDict:
    """Put a saved player in the first empty seat."""
    data = sent.copy()
    for seat in MatchForm.SEATS:
        if not (data.get(seat) or "").strip():
            data[seat] = name
            break
    return data


# Seats 2 to 4 have a button to move up one; seat 1 has none.
SEAT_TO_MOVE_UP = forms.TypedChoiceField(
    choices=[(i, i) for i in range(1, len(MatchForm.SEATS))], coerce=int
)


def _move_up(sent: QueryDict, seat: str) -> QueryDict:
    """Swap a seat with the one before it (clockwise order matters for the deal)."""
    data = sent.copy()
    try:
        i = SEAT_TO_MOVE_UP.clean(seat)
    except ValidationError:
        return data
    here, there = MatchForm.SEATS[i], MatchForm.SEATS[i - 1]
    data[here], data[there] = data.get(there, ""), data.get(here, "")
    # The first dealer is a person, not a chair: they move with their name.
    swapped = {str(i): str(i - 1), str(i - 1): str(i)}
    dealer = data.get("dealer")
    if dealer is not None:
        data["dealer"] = swapped.get(dealer, dealer)
    return data


@login_required
@require_http_methods(["GET"])
@vary_on_headers("HX-Request")
def match_detail(request: SignedInRequest, pk: int) -> HttpResponse:
    if _unchanged(request, Match.objects.filter(pk=pk, group__memberships__user=request.user)):
        return HttpResponse(status=204)
    return _board(request, _get_match(request, pk))


@require_http_methods(["GET"])
@vary_on_headers("HX-Request")
def match_shared(request: HtmxRequest, token: str) -> HttpResponse:
    """The read-only board behind a share link: no account, nothing to change, and it
    follows the match by itself."""
    matches = Match.objects.filter(share_token=token)
    try:
        if _unchanged(request, matches):
            return HttpResponse(status=204)
        match = get_object_or_404(matches.with_seats())
    except Http404:  # a revoked link
        template = _partial(request, "games/link_gone.html", "board")
        # A board left open stops asking (htmx stops polling on 286); a page opened anew: 404.
        return render(request, template, status=286 if request.htmx else 404)
    region = _region(request)
    context = {"match": match}
    key = regions.cache_key("shared", token, match.version, match.names, _all_hands(request))
    board = cache.get(key) if region == "board" else None
    if board is None:
        context.update(_summary(match, all_hands=_all_hands(request)))
        context.update(viewer=True, history_url=match.get_share_url() + "?hands=all")
        if region == "board":
            board = render_to_string("games/match_shared.html#board", context, request)
            cache.set(key, board, regions.SECONDS)
    if board is not None:
        if request.htmx:
            return HttpResponse(board)
        context["board"] = mark_safe(board)
    return render(request, _partial(request, "games/match_shared.html", region), context)


@login_required
@require_POST
def match_share(request: SignedInRequest, pk: int) -> HttpResponse:
    match = _get_match(request, pk, Role.SCORER)
    match.new_share_link()
    messages.info(request, "A new link to the board; the old one no longer works.")
    return redirect(match.get_absolute_url() + "#share")


@login_required
@require_POST
@vary_on_headers("HX-Request")
def hand_create(request: SignedInRequest, pk: int) -> HttpResponse:
    match = _get_match(request, pk, Role.SCORER)
    number, version = WriteForm(request.POST).read()
    before = None if number is None else match.state_before(number)
    if number is None or before is None:
        return _stale_board(request, pk, None, request.POST)
    state, _ = before
    form = HandForm(state, request.POST)
    if form.is_valid():
        try:
            now, replayed = match.add_hand(number, form.hand, version, by=request.user)
        except Stale:
            return _stale_board(request, pk, number - 1, request.POST)
        except rules.RuleError as e:
            form.add_error(None, e.message)
        except OperationalError:  # locked past the time-out, or a full disk: rolled back
            form.add_error(None, CANT_SAVE)
            return _cant_save(_board(request, match, form, status=503))
        else:
            return _board(request, now, replayed=replayed) if request.htmx else redirect(match)
    if version != match.version:
        return _stale_board(request, pk, number - 1, request.POST)
    return _board(request, match, form)


@login_required
@require_POST
@vary_on_headers("HX-Request")
def hand_check(request: SignedInRequest, pk: int, number: int | None = None) -> HttpResponse:
    """Re-draw the hand form as it is being filled in: the next question, a rule or a preview.

    Without `number` it is the next hand, and never turns into an edit of a stored one.
    """
    match = _get_match(request, pk, Role.SCORER)
    sent, version = WriteForm(request.POST).read()
    if version != match.version:
        if number is not None:
            return _stale_edit(request, pk, number)
        return _stale_board(request, pk, None if sent is None else sent - 1, request.POST)
    if number is not None and (not 1 <= number <= match.hands_played or match.finished):
        return _go(request, match)
    before = match.state_before(match.hands_played + 1 if number is None else number)
    if before is None:  # hands undone since the match was read
        if number is not None:
            return _stale_edit(request, pk, number)
        return _stale_board(request, pk, None if sent is None else sent - 1, request.POST)
    state, _ = before
    if state.finished:
        return _go(request, match)
    form = HandForm(state, request.POST, checking=True)
    form.is_valid()
    if number is not None:
        return _edit_page(request, match, number, form)
    if request.htmx:
        context = {"match": match, "form": form, "state": state, "number": state.hands + 1}
        return render(request, "games/match_detail.html#hand-form", context)
    return _board(request, match, form)


def _edit_page(
    request: HtmxRequest, match: Match, number: int, form: HandForm, notice=None, status=200
) -> HttpResponse:
    context = {
        "match": match,
        "state": form.state,
        "form": form,
        "number": number,
        "editing": True,
        "notice": notice,
    }
    template = _partial(request, "games/hand_edit.html", "hand-form")
    return render(request, template, context, status=status)


def _stale_edit(request: SignedInRequest, pk: int, number: int) -> HttpResponse:
    """409 for an edit from an out-of-date page: the change is kept, on today's match (where
    the hand was undone meanwhile, on the board as the next hand); where the match was won
    meanwhile, the board says so."""
    match = _get_match(request, pk)
    state, hand = match.state_before(number) or (None, None)
    if hand is None and not match.finished:
        # Undone: what was typed is kept on the board, offered as the next hand.
        response = _stale_board(request, pk, number, entry=request.POST, whole=True)
        if request.htmx:  # the edit page has no board: the match page takes its place
            push_url(response, match.get_absolute_url())
        return response
    if state is None or hand is None or match.finished:
        done = f"Hand {number} was undone" if hand is None else "The match was won"
        notice = f"{done} on another phone, so your change to hand {number} was not saved."
        if not request.htmx:
            return _board(request, match, notice=notice, status=409)
        messages.warning(request, notice)  # the edit page has no board to swap: go to it
        response = _go(request, match)
        response.status_code = 409
        return response
    data = request.POST.copy()
    data["version"] = str(match.version)
    form = HandForm(state, data, checking=True)
    form.is_valid()
    notice = (
        "The hands were changed on another phone. Your change is kept: save it again to use it."
    )
    return _edit_page(request, match, number, form, notice=notice, status=409)


@login_required
@require_http_methods(["GET", "POST"])
@vary_on_headers("HX-Request")
def hand_edit(request: SignedInRequest, pk: int, number: int) -> HttpResponse:
    match = _get_match(request, pk, Role.SCORER)
    state, hand = match.state_before(number) or (None, None)
    if request.method == "GET":
        if state is None or hand is None or match.finished:
            return _go(request, match)  # a finished match is read-only; undo reopens it
        initial = HandForm.initial_for(hand, state.players, number)
        initial["version"] = match.version
        return _edit_page(request, match, number, HandForm(state, initial=initial))
    _, version = WriteForm(request.POST).read()
    stale = version != match.version
    if state is None or hand is None:  # undone on another phone, or never there
        undone = stale or number <= match.hands_played  # (the hands were read after the match)
        return _stale_edit(request, pk, number) if undone else _go(request, match)
    form = HandForm(state, request.POST)
    if match.finished:  # won meanwhile: only this very edit, sent again, is a success
        if stale and not (form.is_valid() and form.hand == hand):
            return _stale_edit(request, pk, number)
        return _go(request, match)
    if form.is_valid():
        try:
            match.change_hand(number, form.hand, version, by=request.user)
        except Stale:
            return _stale_edit(request, pk, number)
        except rules.RuleError as e:
            form.add_error(
                None, f"That would break hand {e.hand}: {e.message} Undo later hands first."
            )
        except OperationalError:
            form.add_error(None, CANT_SAVE)
            return _cant_save(_edit_page(request, match, number, form, status=503))
        else:
            messages.success(request, f"Hand {number} changed; every later hand re-scored.")
            return _go(request, match)
    elif version != match.version:
        return _stale_edit(request, pk, number)
    return _edit_page(request, match, number, form)


@login_required
@require_POST
@vary_on_headers("HX-Request")
def hand_undo(request: SignedInRequest, pk: int) -> HttpResponse:
    match = _get_match(request, pk, Role.SCORER)
    number, version = WriteForm(request.POST).read()
    try:
        undone = number is not None and match.undo_hand(number, version, by=request.user)
    except Stale:
        return _stale_board(request, pk, number, tail=" Nothing was undone.")
    if undone and not request.htmx:  # with htmx the board itself shows it, and at once
        messages.info(request, f"Hand {number} undone.")
    if request.htmx:
        return _board(request, _get_match(request, pk))
    return redirect(match)


@login_required
@require_POST
def match_rematch(request: SignedInRequest, pk: int) -> HttpResponse:
    old = _get_match(request, pk, Role.SCORER)
    before = old.state_before(old.hands_played + 1)  # the next dealer deals the rematch
    if before is None:  # hands undone since the match was read
        return redirect(old)
    state, _ = before
    match = Match.create(
        old.group,
        old.preset,
        old.ruleset(),
        old.stakes(),
        old.names,
        state.dealer,
        by=request.user,
    )
    return redirect(match)


@login_required
@require_http_methods(["GET", "POST"])
def match_delete(request: SignedInRequest, pk: int) -> HttpResponse:
    match = _get_match(request, pk, Role.OWNER)
    if request.method == "POST":
        match.remove()
        messages.info(request, "The match was deleted.")
        return redirect("games:home")
    return render(request, "games/match_delete.html", _summary(match))


class _Counted(Paginator):
    """A paginator told how many there are (a player's stored count of their matches), so
    that it never counts them."""

    def __init__(self, object_list, per_page: int, count: int):
        super().__init__(object_list, per_page)
        self.__dict__["count"] = count


@login_required
def match_list(request: SignedInRequest) -> HttpResponse:
    player = None
    if request.GET.get("player"):
        player = access.get_of_group(request, Player, request.GET["player"])
        group = player.group
    else:
        group = access.picked(request)
    can_score = access.require(request, group.pk).allows(Role.SCORER)
    number = request.GET.get("page")

    def draw():
        """The list (and the player's record), drawn once a version of the group."""
        matches = _listed(group)
        record = None
        paginator = Paginator(matches, 20)
        if player is not None:
            record = player.totals()
            paginator = _Counted(matches.filter(results__player=player), 20, record["played"])
        page = paginator.get_page(number)
        context = {
            "page": page,
            "cards": _cards(list(page.object_list.values_list("pk", flat=True))),
            "players": Player.objects.filter(group=group),
            "player": player,
            "record": record,
            "group": group,
            "can_score": can_score,
            "import_limits": import_limits(),
        }
        return {"listed": regions.partial(request, "games/match_list.html#listed", context)}, None

    parts = (can_score, player and player.pk, number, import_limits())
    return render(
        request,
        "games/match_list.html",
        {
            "group": group,
            "groups": _switch(request, group),
            **regions.region(request, group, "matches", parts, draw),
        },
    )


@login_required
def match_export(request: SignedInRequest, pk: int) -> HttpResponse:
    match = _get_match(request, pk)
    response = HttpResponse(matchfile.dumps(match.to_file()), content_type="application/json")
    response["Content-Disposition"] = f'attachment; filename="{match.file_name()}"'
    return response


@login_required
@require_POST
def match_import(request: SignedInRequest) -> HttpResponse:
    group = _group_to_write(request)
    uploads = request.FILES.getlist("file")
    if not uploads:
        messages.error(request, "Choose a match file to import.")
        return redirect("games:match_list")
    files = _read_files(request, group, uploads)
    # Oldest first, so that each match joins the night of the one begun before it.
    now = timezone.now()
    matches, stored, known = [], 0, []
    for name, m in sorted(files, key=lambda file: file[1].played_at or now):
        try:
            match, new = Match.import_file(group, m, by=request.user)
        except rules.RuleError as e:
            messages.error(request, f"{name}: Nothing was imported. {e.located()}")
            continue
        matches.append(match)
        stored += new
        if not new:
            known.append((name, match))
    if len(known) > ALREADY_LISTED:  # a backup imported again: one line, not one a file
        messages.info(request, f"{len(known)} matches were already imported; none is stored twice.")
    for name, match in known if len(known) <= ALREADY_LISTED else ():
        when = f"{timezone.localtime(match.played_at):%-d %b %Y}"
        messages.info(request, f"{name}: already imported ({match}, {when}).")
    if stored:
        words = f"{stored} matches" if stored > 1 else "Match"
        messages.success(request, f"{words} imported.")
    if len(uploads) == len(files) == len(matches) == 1:
        return redirect(matches[0])
    return redirect("games:match_list")


ALREADY_LISTED = 5  # files said to be already imported one by one; beyond, counted


def _read_files(request: HttpRequest, group, uploads) -> list[tuple[str, matchfile.Match]]:
    """(name, match) of each match file uploaded, a zip standing for the files in it; each
    refused file is said in a message.

    One import's work is bounded (settings.MAX_IMPORT_HANDS): once a file would take it past,
    that file and the ones after it wait for another import, unread. A match the group has
    already costs nothing to store, so it doesn't count: a backup too large for one import
    comes back over several imports of it.
    """
    limit = settings.MAX_IMPORT_HANDS
    too_many = f"One import takes at most {limit:,} hands: import this file again, with fewer."
    files: list[tuple[str, matchfile.Match]] = []
    hands = 0
    for upload in uploads:
        if hands >= limit:
            messages.error(request, f"{upload.name}: Nothing was imported. {too_many}")
            continue
        try:
            contents = _match_files(upload)
        except rules.RuleError as e:
            messages.error(request, f"{upload.name}: Nothing was imported. {e.located()}")
            continue
        waiting, taken = [], len(files)
        for name, data in contents:
            if hands >= limit:
                waiting.append(name)
                continue
            try:
                m = matchfile.read(data, settings.MAX_UPLOAD_SIZE)
            except rules.RuleError as e:
                messages.error(request, f"{name}: Nothing was imported. {e.located()}")
                continue
            work = 0 if Match.objects.filter(group=group).same_as(m) else len(m.hands)
            if hands and hands + work > limit:
                waiting.append(name)
                hands = limit
                continue
            hands += work
            files.append((name, m))
        if len(waiting) == 1:
            messages.error(request, f"{waiting[0]}: Nothing was imported. {too_many}")
        elif waiting:
            first = waiting[0].removeprefix(f"{upload.name}/")
            words = (
                f"{upload.name}: {len(waiting)} of its files, from {first} on, were not "
                f"imported: one import takes at most {limit:,} hands."
            )
            if any(m.played_at is None for _, m in files[taken:]):
                # Never recognised as already here (docs/format.md): again, they'd be twice.
                words += (
                    " Its files don't say when they were played, so importing it again would "
                    f"store the first ones twice: import those from {first} on in a zip of "
                    "their own."
                )
            else:
                words += (
                    " Import it again for the next ones: the matches already here are "
                    "recognised, not stored twice."
                )
            messages.error(request, words)
    return files


def import_limits() -> str:
    """What one import takes, in words: the import form and its refusals say it."""
    return (
        f"up to {settings.DATA_UPLOAD_MAX_NUMBER_FILES} files and "
        f"{settings.MAX_IMPORT_HANDS:,} hands at once, "
        f"{settings.MAX_IMPORT_SIZE / 1_000_000:g} MB in all and "
        f"{settings.MAX_UPLOAD_SIZE / 1_000_000:g} MB a file"
    )


def _match_files(upload) -> list[tuple[str, bytes]]:
    """(name, bytes) of each match file an upload holds: itself, or each file of a zip of
    them, unpacked within the limits (RuleError if it can't be)."""
    if not matchfile.is_zip(upload.read(4)):
        upload.seek(0)
        return [(upload.name, upload.read(settings.MAX_UPLOAD_SIZE + 1))]
    limits = settings.MAX_UPLOAD_SIZE, settings.MAX_ZIP_FILES, settings.MAX_ZIP_SIZE
    return [(f"{upload.name}/{name}", data) for name, data in matchfile.unzip(upload, *limits)]


@login_required
@require_http_methods(["GET"])
def match_export_all(request: SignedInRequest) -> HttpResponse:
    """Every match of the picked group as match files in one zip: a download and a backup."""
    group = access.picked(request)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for match in Match.objects.filter(group=group).order_by("played_at").with_seats():
            archive.writestr(match.file_name(), matchfile.dumps(match.to_file()))
    response = HttpResponse(buffer.getvalue(), content_type="application/zip")
    name = f"buck-euchre-matches-{timezone.localdate():%Y-%m-%d}.zip"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


# --- Accounts and the server ------------------------------------------------------------------


CANT_SAVE = "The score keeper can't save right now; nothing was lost. Try again in a moment."
CANT_READ = "The score keeper can't reach its records right now. Try again in a moment."
TOO_MANY_SIGNUPS = (
    "Too many new accounts from this address in the last hour. Try again later, or ask "
    "whoever runs the score keeper to make your account."
)
TOO_MANY_RESETS = (
    "Too many reset mails asked for in the last hour, from this address or for this account. "
    "Check your mail for the ones already sent, or try again later."
)


REFUSED_TITLES = {
    400: "That couldn't be read",
    403: "Nothing was saved",
    405: "Not a page to open",
    413: "Too much at once",
    429: "Too many tries",
    503: "Try again in a moment",
}


def refuse(request: HttpRequest, status: int, words: str, template="refused.html", **context):
    """A refusal in words: the page says it, and so does the phone when htmx asked (such an
    answer is not swapped in, so what was entered stays; static/js/app.js shows X-Problem)."""
    context = {"words": words, "title": REFUSED_TITLES[status], **context}
    response = render(request, template, context, status=status)
    response["X-Problem"] = quote(words)
    return response


def cant_save(request: HttpRequest) -> HttpResponse:
    """503: the database is locked past its time-out, its disk is full, it is gone. A write
    was rolled back with its transaction."""
    response = refuse(request, 503, CANT_SAVE if request.method == "POST" else CANT_READ)
    response["Retry-After"] = "5"
    return response


def _cant_save(response: HttpResponse) -> HttpResponse:
    """The hand forms' own 503: the form drawn again with the entry on it (htmx keeps the one
    on screen), and the words."""
    response["X-Problem"] = quote(CANT_SAVE)
    response["Retry-After"] = "5"
    return response


def bad_request(request: HttpRequest, exception=None) -> HttpResponse:
    """400, for what no browser sends: too many files or fields, a host this server is not."""
    if isinstance(exception, TooManyFilesSent):
        words = (
            f"One import takes at most {settings.DATA_UPLOAD_MAX_NUMBER_FILES} files. Nothing "
            "was imported: import them a few at a time."
        )
    else:
        words = "The score keeper couldn't read that request, so nothing was saved."
    return refuse(request, 400, words)


GONE = (
    "This match or page is no longer here for you: it was deleted, or you are no longer in "
    "its group."
)


def not_found(request: HttpRequest, exception=None) -> HttpResponse:
    """404: the page says so; a board left open (its poll) shows the words too, rather than
    "something went wrong", where its match was deleted or its reader removed from the group."""
    response = render(request, "404.html", status=404)
    response["X-Problem"] = quote(GONE)
    return response


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    words = (
        "This page was open too long, or its cookie is gone, so nothing was saved. Reload "
        "the page (your browser may need to allow cookies for this site) and try again."
    )
    return refuse(request, 403, words)


def locked_out(
    request: throttles.AxesRequest, original_response=None, credentials=None
) -> HttpResponse:
    """django-axes' answer once an address has had too many wrong passwords, for one account
    or for any: the log-in page again, saying why even the right password is refused."""
    username = (credentials or {}).get("username") or request.POST.get("username", "")
    minutes = int(settings.AXES_COOLOFF_TIME.total_seconds() // 60)
    if throttles.address_locked(request):
        words = (
            f"Too many wrong passwords from this address: log-ins from it are refused for "
            f"{minutes} minutes. Try again later."
        )
    else:
        words = (
            f"Too many wrong passwords for this account from this address: it is locked here "
            f"for {minutes} minutes. Until then even the right password is refused from here. "
            "Try again later."
        )
    form = AuthenticationForm(request, initial={"username": username[:150]})
    next_url = request.POST.get("next", "")
    return refuse(request, 429, words, "registration/login.html", form=form, next=next_url)


def mail_only(view):
    """Password reset exists only where the server can send mail, and only once ALLOWED_HOSTS
    names the server for the link (see games.checks)."""

    @functools.wraps(view)
    def wrapper(request, *args, **kwargs):
        if not password_reset_on():
            raise Http404("This server sends no mail.")
        return view(request, *args, **kwargs)

    return wrapper


class PasswordReset(auth_views.PasswordResetView):
    def form_valid(self, form):
        email = form.cleaned_data["email"].lower()
        address = throttles.client_address(self.request)
        allowed = throttles.allow("reset", address, settings.RESET_MAILS_PER_ADDRESS)
        allowed = allowed and throttles.allow(
            "reset-account", email, settings.RESET_MAILS_PER_ACCOUNT
        )
        if not allowed:
            form.add_error(None, TOO_MANY_RESETS)
            return refuse(self.request, 429, TOO_MANY_RESETS, self.template_name, form=form)
        # The link names the server itself, whatever Host the request named (games.checks).
        domain = reset_domain()
        self.extra_email_context = {"domain": domain, "site_name": domain}
        return super().form_valid(form)


@login_required
@require_http_methods(["GET", "POST"])
def account(request: SignedInRequest) -> HttpResponse:
    form = EmailForm(request.POST or None, instance=request.user) if password_reset_on() else None
    if request.method == "POST" and form is not None and form.is_valid():
        form.save()
        messages.success(request, "Email address saved.")
        return redirect("games:account")
    return render(request, "registration/account.html", {"form": form})


@login_required
@require_http_methods(["GET", "POST"])
def account_delete(request: SignedInRequest) -> HttpResponse:
    user = request.user
    alone = Group.objects.of(user).exclude(memberships__user__in=_others(user))
    held = Group.objects.last_owned_by(user).filter(memberships__user__in=_others(user))
    held = list(held.distinct())
    if request.method == "POST" and not held:
        with transaction.atomic():
            for group in alone:
                group.delete()  # its matches, hands and players go with it
            user.delete()
            axes_reset(username=user.get_username())
        logout(request)
        messages.info(request, "Your account and all its matches were deleted.")
        return redirect("login")
    context = {
        "matches": Match.objects.filter(group__in=alone).count(),
        "players": Player.objects.filter(group__in=alone).count(),
        "held": held,
        "shared": Group.objects.of(user).exclude(pk__in=alone).exists(),
    }
    return render(
        request,
        "registration/account_delete.html",
        context,
        status=409 if held and request.method == "POST" else 200,
    )


def _others(user):
    return get_user_model().objects.exclude(pk=user.pk)


@require_http_methods(["GET"])
@cache_control(public=True, max_age=60 * 60)
def manifest(request: HttpRequest) -> HttpResponse:
    """The web app manifest, rendered so that its icons get their hashed static names."""
    body = render_to_string("manifest.webmanifest")
    return HttpResponse(body, content_type="application/manifest+json")
