"""One match's board and its hands: the page, its polls and share link, saving, checking,
editing and undoing a hand, and deleting the match."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import wraps
from typing import Any, Concatenate, ParamSpec, TypedDict, TypeVar
from urllib.parse import quote

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.db import OperationalError
from django.http import Http404, HttpRequest, HttpResponse, QueryDict
from django.shortcuts import get_object_or_404, redirect, render, resolve_url
from django.template.loader import render_to_string
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_http_methods, require_POST
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import (
    HttpResponseClientRedirect,
    push_url,
    reselect,
    reswap,
    retarget,
)

from games import access, matchfile, regions, rules, words
from games.access import HtmxRequest, SignedInRequest
from games.forms import HandForm, WriteForm, read_key
from games.models import (
    MATCH_GONE,
    MAX_HANDS,
    Change,
    Earlier,
    Group,
    Match,
    MatchQuerySet,
    Removal,
    Replay,
    Role,
    Stale,
    add_hand,
    change_hand,
    delete_match,
    undo_hand,
)
from games.responses import (
    CANT_SAVE,
    refuse,
)
from games.views.common import (
    clock,
    partial,
    qr,
)

_T = TypeVar("_T")
_P = ParamSpec("_P")


def _go(request: HtmxRequest, to: Match) -> HttpResponse:
    """Redirect: htmx must load the whole page, not swap it into a region."""
    if request.htmx:
        return HttpResponseClientRedirect(resolve_url(to))
    return redirect(to)


HISTORY_SHOWN = 5  # the latest hands under the board; the rest on demand


def _cell(name: str, change: int, score: int, ruleset: rules.Ruleset) -> dict[str, object]:
    """A player's line in a hand of the history: the change in words, how it went (a
    penalty is "up", counted down), the score; both as the table sees them (`count_up`)."""
    trend = "up" if change > 0 else "down" if change < 0 else ""
    return {
        "name": name,
        "change": words.signed(words.change_shown(ruleset, change)),
        "trend": trend,
        "score": rules.shown_score(ruleset, score),
    }


class Summary(TypedDict):
    """What a page shows about a match (`_summary`)."""

    match: Match
    state: rules.MatchState
    standings: list[dict[str, object]]
    history: list[dict[str, object]]
    payments: list[rules.Payment]
    stakes: rules.Stakes
    stakes_text: str
    if_ended: str
    preset: rules.Preset
    house_rules: list[str]
    rules_words: list[tuple[str, str]]
    poll_every: str
    all_hands: bool


def _summary(
    match: Match, replayed: Replay | None = None, all_hands: bool = False, me: User | None = None
) -> Summary:
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
            "cells": [
                _cell(p, result.changes[p], result.scores[p], state.ruleset) for p in state.players
            ],
            "by": _author(authors.get(result.number), me),
        }
        for result in shown
    ]

    standings: list[dict[str, object]] = [
        {
            "name": p,
            "score": state.shown(p),
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
        "rules_words": words.rules_in_words(state.ruleset, stakes, match.preset),
        # How often a board left open asks whether its match changed: less often once it is
        # won (an Undo can reopen it).
        "poll_every": f"{settings.POLL_SECONDS_WON if state.finished else settings.POLL_SECONDS}s",
        "all_hands": all_hands,
    }


def _author(change: Change | None, me: User | None) -> str:
    """Who wrote a hand as it stands: "changed by Bob at 9:14 p.m.", or "saved by Bob" where
    it was not the reader."""
    if change is None:
        return ""
    if change.kind == Change.Kind.EDITED:
        return f"changed by {change.name or 'somebody'} at {clock(change.at)}"
    assert me is not None  # who wrote the hands is read for a member only
    return f"saved by {change.name}" if change.name and change.user_id != me.pk else ""


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


def _read_together(
    request: SignedInRequest, match: Match, read: Callable[[Match], _T]
) -> tuple[Match, _T]:
    """(the match, `read(match)`) with no save landing in between: where another phone's
    save landed between reading the match and `read`'s reading of its hands
    (`Match.moved_on`), both are read again, up to three times. Never a board whose hands are
    newer than its version (a Save from it would be refused as stale)."""
    result = read(match)
    for _ in range(3):
        if not match.moved_on():
            break
        match = access.get_match(request, match.pk)
        result = read(match)
    return match, result


def _board(
    request: SignedInRequest,
    match: Match,
    form: HandForm | None = None,
    notice: str | None = None,
    status: int = 200,
    replayed: Replay | None = None,
    whole: bool = False,
    conflict: dict[str, object] | None = None,
) -> HttpResponse:
    """The board: the whole match page, or for htmx its board alone (`whole` asks for the
    page even then, for an answer that takes the place of another page). In the hand form's
    place, a `conflict` (`_conflict`) where there is one."""
    role = access.require(request, match.group_id)
    kept = form is None and notice is None  # drawn as a plain GET draws it: cached
    key = _board_key(request, match, role) if kept else None
    drawn = cache.get(key) if key else None
    summary: Mapping[str, object] = {}
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
        "share_qr": lambda: qr(share_url),  # drawn only where the page shows it
        "viewer": not role.allows(Role.SCORER),
        "is_owner": role.allows(Role.OWNER),
    }
    if drawn is None:
        context.update(summary)
        state: rules.MatchState = context["state"]
        if not role.allows(Role.SCORER):
            form = conflict = None
        elif form is None and conflict is None and not state.finished:
            form = HandForm(state, initial={"number": state.hands + 1, "version": match.version})
        context.update(
            form=form,
            conflict=conflict,
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
        template = page if whole else partial(request, page, region)
        response = render(request, template, context, status=status)
    if request.htmx and (request.method == "POST" or "v" in request.GET):
        response["HX-Trigger"] = "board-changed"  # the score race under the board follows
    if "v" in request.GET:  # a poll: what changed, for a phone in the middle of a hand
        before = _count(request.GET.get("n"))
        response["X-Board-Change"] = _what_changed(request, match, before, match.hands_played)
    return _drawn_at(response, match)


def _drawn_at(response: HttpResponse, match: Match) -> HttpResponse:
    """The version of the match a board or hand form was drawn at (what its `version` input
    holds), for a phone's own code to read without parsing the page."""
    response["X-Match-Version"] = str(match.version)
    return response


def _all_hands(request: HttpRequest) -> bool:
    """A page asks for every hand of the history: "Show all", or the poll of a board showing
    every hand (its history says so, and the board keeps them)."""
    return request.GET.get("hands") == "all"


def _region(request: HttpRequest) -> str:
    """What an htmx request redraws: "Show all" the history, or the board (a poll, `?v=`)."""
    return "hands" if _all_hands(request) and "v" not in request.GET else "board"


def _count(text: str | None) -> int | None:
    try:
        count: int | None = forms.IntegerField(min_value=0, max_value=MAX_HANDS).clean(text)
        return count
    except ValidationError:
        return None


def _unchanged(request: HtmxRequest, matches: MatchQuerySet) -> bool:
    """A live board's poll (`?v=` the version it shows) for a match whose hands are as
    they were: answered 204 from one small query, with no replay."""
    if not request.htmx or "v" not in request.GET:
        return False
    # The stubs take a queryset of models only; of flat values it finds the value just as well.
    version = get_object_or_404(matches.values_list("version", flat=True))  # type: ignore[type-var]
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
    names = [name for user, name in Change.who(match, kind, first, last) if user != request.user.pk]
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
    entry: QueryDict | None = None,
    tail: str = "",
    whole: bool = False,
    mine: tuple[rules.MatchState, rules.Hand] | None = None,
    why: str | None = None,
) -> HttpResponse:
    """409: the board as it is now, what changed (or `why` it was not stored), and what the
    player entered, kept.

    Where another hand was stored under the number of the one entered (`mine`: the match
    it was entered in, and the hand), the two are shown side by side (`_conflict`): keep
    theirs, or see one's own as the next hand first. Otherwise, where the entry still fits
    the match it is offered as the next hand; or the form says what is wrong with it, and
    the player can fix it or discard it.
    """
    match, replayed = _read_together(
        request, access.get_match(request, pk), lambda m: m.replay_latest(HISTORY_SHOWN)
    )
    state = replayed[0]
    notice = why or _what_changed(request, match, before, state.hands) + tail
    form = conflict = None
    if mine is not None and entry is not None and not state.finished:
        conflict = _conflict(request, match, state, mine, entry)
    if entry is not None and conflict is None and not state.finished:
        data = entry.copy()
        data.update({"number": str(state.hands + 1), "version": str(match.version)})
        form = HandForm(state, data, checking=True)
        form.is_valid()
    elif entry is not None and state.finished:
        notice += " The match is over, so what you entered was not saved."
    response = _board(
        request,
        match,
        form,
        notice=notice,
        status=409,
        replayed=replayed,
        whole=whole,
        conflict=conflict,
    )
    if request.htmx:  # a check answers into the hand form; this answer is the whole board,
        # or (`whole`) the match page's main, title and all, in another page's place.
        target = "#main" if whole else "#board"
        # htmx takes modifiers after the swap method; django-htmx's type names the method alone.
        response = reswap(retarget(response, target), "outerHTML show:window:top")  # type: ignore[arg-type]
        if whole:
            reselect(response, target)
    return response


# What of a Save's entry the "Mine is the next hand" form carries on (the hand form's fields).
ENTRY_FIELDS = ("upcard", "trump", "maker", "bid", "moon", "dropped", *(f"t{i}" for i in range(6)))


def _entry_side(
    result: rules.HandResult, players: Sequence[str], ruleset: rules.Ruleset
) -> dict[str, object]:
    """One side of a conflict: the hand in the words of the hands list, and each player's
    change."""
    return {
        "text": words.hand_in_words(result),
        "cells": [_cell(p, result.changes[p], result.scores[p], ruleset) for p in players],
    }


def _conflict(
    request: SignedInRequest,
    match: Match,
    now: rules.MatchState,
    mine: tuple[rules.MatchState, rules.Hand],
    entry: QueryDict,
) -> dict[str, object] | None:
    """Two entries of one hand: the one stored under its number (who saved it) and the one
    the player typed (`mine`: the match it was typed in, and the hand), both as the engine
    sees them; and what was typed, to be offered as the next hand only when asked. None
    where no other hand stands under that number."""
    before, hand = mine
    number = before.hands + 1
    stored_before, theirs = match.state_before(number) or (None, None)
    if stored_before is None or theirs is None or theirs == hand:
        return None
    try:
        stored, typed = rules.play(stored_before, theirs)[1], rules.play(before, hand)[1]
    except rules.RuleError:  # the hands before it changed meanwhile: no side by side
        return None
    change = Change.authors(match, [number]).get(number)
    if change is None or not change.name:
        by = "on another phone"
    else:
        by = "by you" if change.user_id == request.user.pk else f"by {change.name}"
    carried = [(name, v) for name in ENTRY_FIELDS for v in entry.getlist(name) if v != ""]
    return {
        "number": number,
        "next": now.hands + 1,
        "stored": {**_entry_side(stored, now.players, now.ruleset), "by": by},
        "mine": _entry_side(typed, now.players, now.ruleset),
        "fields": carried,
    }


@login_required
@require_http_methods(["GET"])
@vary_on_headers("HX-Request")
def match_detail(request: SignedInRequest, pk: int) -> HttpResponse:
    try:
        if _unchanged(request, Match.objects.filter(pk=pk, group__memberships__user=request.user)):
            return HttpResponse(status=204)
        return _board(request, access.get_match(request, pk))
    except Http404:
        removed = _removed_from(request, pk)
        if removed is None:
            raise
    context = {"group": removed}
    if not request.htmx:
        return render(request, "games/removed.html", context, status=404)
    # A board left open: the page's main takes the words, with no form left on it, and the
    # board stops asking (htmx stops polling on 286).
    response = render(request, "games/removed.html#removed", context, status=286)
    return reswap(retarget(response, "#main"), "innerHTML show:window:top")  # type: ignore[arg-type]


def _removed_from(request: SignedInRequest, pk: int) -> Group | None:
    """The group of this match, where an owner took the user out of it (`Removal`); None
    for anyone else, who finds nothing here (404)."""
    group = Group.objects.filter(matches=pk).first()
    if group is None or access.role(request, group.pk) is not None:
        return None
    return group if Removal.objects.filter(group=group, user=request.user).exists() else None


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
        template = partial(request, "games/link_gone.html", "board")
        # A board left open stops asking (htmx stops polling on 286); a page opened anew: 404.
        return render(request, template, status=286 if request.htmx else 404)
    region = _region(request)
    context: dict[str, object] = {"match": match}
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
            return _drawn_at(HttpResponse(board), match)
        context["board"] = mark_safe(board)
    return _drawn_at(
        render(request, partial(request, "games/match_shared.html", region), context), match
    )


@login_required
@require_POST
def match_share(request: SignedInRequest, pk: int) -> HttpResponse:
    match = access.get_match(request, pk, Role.SCORER)
    match.new_share_link()
    messages.info(request, "A new link to the board; the old one no longer works.")
    return redirect(match.get_absolute_url() + "#share")


def gone_in_words(
    view: Callable[Concatenate[SignedInRequest, _P], HttpResponse],
) -> Callable[Concatenate[SignedInRequest, _P], HttpResponse]:
    """A write to a match that is not there, deleted on another phone before the write took
    its lock or while it read the match (under the lock, `Match.DoesNotExist` says the same),
    is answered in the match's words, which the middleware's for any page gone can't know."""

    @wraps(view)
    def wrapped(request: SignedInRequest, /, *args: _P.args, **kwargs: _P.kwargs) -> HttpResponse:
        try:
            return view(request, *args, **kwargs)
        except (Http404, Match.DoesNotExist):
            if request.method != "POST":
                raise  # a page: not found (games.middleware.NotFoundInWordsMiddleware)
            return refuse(request, 404, MATCH_GONE)

    return wrapped


@login_required
@require_POST
@vary_on_headers("HX-Request")
@gone_in_words
def hand_create(request: SignedInRequest, pk: int) -> HttpResponse:
    match = access.get_match(request, pk, Role.SCORER)
    number, version = WriteForm(request.POST).read()
    key = read_key(request.POST)
    entry = _Entry(request.POST)
    try:
        saved = add_hand(match, number, entry, version, by=request.user, key=key)
    except Stale as e:
        if number is None or e.checked is None or entry.form is None:
            return _stale_board(request, pk, None, request.POST)
        mine = (e.checked, entry.form.hand) if number <= e.hands else None
        return _stale_board(request, pk, number - 1, request.POST, mine=mine)
    except Match.DoesNotExist:  # deleted on another phone, alone or with its group
        return refuse(request, 404, MATCH_GONE)
    except rules.RuleError as e:
        if entry.form is None:
            raise
        entry.form.add_error(None, e.message)
    except OperationalError:  # locked past the time-out, or a full disk: rolled back
        form = entry.form or _entry_form(match, number, request.POST)
        if form is None:
            return _stale_board(request, pk, None, request.POST)
        form.add_error(None, CANT_SAVE)
        return _cant_save(_board(request, match, form, status=503))
    else:
        if saved is not None:
            earlier = saved.earlier
            if earlier and earlier.same_key and _other_than_saved(match, earlier, request.POST):
                return _key_used(request, saved.match, earlier)
            return _saved(request, saved.match, earlier, key, saved.replayed)
    assert number is not None and entry.form is not None  # the entry was read, and refused
    if version != match.version:
        return _stale_board(request, pk, number - 1, request.POST)
    return _board(request, match, entry.form)


class _Entry:
    """The hand a Save sent, read by the hand form on the match as `add_hand` finds it under
    its lock (`form`, once read)."""

    def __init__(self, data: QueryDict) -> None:
        self.data = data
        self.form: HandForm | None = None

    def __call__(self, state: rules.MatchState) -> rules.Hand | None:
        self.form = HandForm(state, self.data)
        return self.form.hand if self.form.is_valid() else None


def _entry_form(match: Match, number: int | None, data: QueryDict) -> HandForm | None:
    """The hand form holding what a Save sent, on the match as it stood before hand
    `number`, where the save never came to read it (None where there is no such hand)."""
    before = None if number is None else match.state_before(number)
    return None if before is None else HandForm(before[0], data)


def _other_than_saved(match: Match, earlier: Earlier, data: QueryDict) -> bool:
    """Whether a Save sent again under the key its hand was stored with holds another hand
    than the one that key stored (other tricks, another maker)."""
    before = match.state_before(earlier.number)
    if before is None or earlier.change is None:
        return True
    form = HandForm(before[0], data)
    return not form.is_valid() or matchfile.dump_hand(form.hand) != earlier.change.after


def _key_used(request: SignedInRequest, match: Match, earlier: Earlier) -> HttpResponse:
    """409, as a payment form sent again with other content is: nothing stored, the board as
    it is, why in words, and what was sent kept in the form."""
    return _stale_board(request, match.pk, None, request.POST, why=words.key_used(earlier.number))


def _saved(
    request: SignedInRequest,
    match: Match,
    earlier: Earlier | None,
    key: str | None,
    replayed: Replay | None = None,
) -> HttpResponse:
    """A Save's success: the board (a redirect without htmx), and where the hand had been
    saved already, what the player should know of it."""
    notice = _told(request, earlier, key) if earlier is not None else ""
    if not request.htmx:
        if notice:
            messages.info(request, notice)
        return redirect(match)
    response = _board(request, match, notice=notice or None, replayed=replayed)
    if key:  # the outbox's word that the hand it sent under `key` is stored
        response["X-Hand-Key"] = key
    return response


def _told(request: SignedInRequest, earlier: Earlier, key: str | None) -> str:
    """What a Save of a hand stored already says: nothing to the phone that saved it (a
    double tap, or its resend under its key, unless the hand was changed or undone since);
    who saved it to another phone."""
    if earlier.same_key:
        return words.resent(earlier.number, earlier.now)
    change = earlier.change
    if change is None:
        return ""
    if change.user_id != request.user.pk:
        return words.saved_twice(change.name or "Somebody")
    if key and change.key and change.key != key:  # the same account's other phone
        return words.saved_twice("")
    return ""


@login_required
@require_POST
@vary_on_headers("HX-Request")
@gone_in_words
def hand_check(request: SignedInRequest, pk: int, number: int | None = None) -> HttpResponse:
    """Re-draw the hand form as it is being filled in: the next question, a rule or a preview.

    Without `number` it is the next hand, and never turns into an edit of a stored one.
    """
    match = access.get_match(request, pk, Role.SCORER)
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
        return _drawn_at(render(request, "games/match_detail.html#hand-form", context), match)
    return _board(request, match, form)


def _edit_page(
    request: HtmxRequest,
    match: Match,
    number: int,
    form: HandForm,
    notice: str | None = None,
    status: int = 200,
) -> HttpResponse:
    context = {
        "match": match,
        "state": form.state,
        "form": form,
        "number": number,
        "editing": True,
        "notice": notice,
    }
    template = partial(request, "games/hand_edit.html", "hand-form")
    return _drawn_at(render(request, template, context, status=status), match)


def _stale_edit(request: SignedInRequest, pk: int, number: int) -> HttpResponse:
    """409 for an edit from an out-of-date page: the change is kept, on today's match (where
    the hand was undone meanwhile, on the board as the next hand); where the match was won
    meanwhile, the board says so."""
    match = access.get_match(request, pk)
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
@gone_in_words
def hand_edit(request: SignedInRequest, pk: int, number: int) -> HttpResponse:
    match = access.get_match(request, pk, Role.SCORER)
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
            change_hand(match, number, form.hand, version, by=request.user)
        except Stale:
            return _stale_edit(request, pk, number)
        except Match.DoesNotExist:  # deleted on another phone, alone or with its group
            return refuse(request, 404, MATCH_GONE)
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
@gone_in_words
def hand_undo(request: SignedInRequest, pk: int) -> HttpResponse:
    match = access.get_match(request, pk, Role.SCORER)
    number, version = WriteForm(request.POST).read()
    try:
        undone = number is not None and undo_hand(match, number, version, by=request.user)
    except Stale:
        return _stale_board(request, pk, number, tail=" Nothing was undone.")
    except Match.DoesNotExist:  # deleted on another phone, alone or with its group
        return refuse(request, 404, MATCH_GONE)
    if undone and not request.htmx:  # with htmx the board itself shows it, and at once
        messages.info(request, f"Hand {number} undone.")
    if request.htmx:
        return _board(request, access.get_match(request, pk))
    return redirect(match)


@login_required
@require_http_methods(["GET", "POST"])
@gone_in_words
def match_delete(request: SignedInRequest, pk: int) -> HttpResponse:
    match = access.get_match(request, pk, Role.OWNER)
    if request.method == "POST":
        try:
            delete_match(match)
        except Match.DoesNotExist:  # a double tap, or its group deleted meanwhile
            return refuse(request, 404, MATCH_GONE)
        messages.info(request, "The match was deleted.")
        return redirect("games:home")
    return render(request, "games/match_delete.html", _summary(match))


def _cant_save(response: HttpResponse) -> HttpResponse:
    """The hand forms' own 503: the form drawn again with the entry on it (htmx keeps the one
    on screen), and the words."""
    response["X-Problem"] = quote(CANT_SAVE)
    response["Retry-After"] = "5"
    return response
