"""What a match's board shows and how it is drawn: the summary of the match the engine folds,
who wrote each hand, the board's cache key, the board itself (a page, or for htmx its region),
what changed on another phone, and the 409 board with two entries of one hand side by side.
The views of games/views/board.py answer with these."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypedDict, TypeVar

from django import forms
from django.conf import settings
from django.contrib.auth.models import User
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse, QueryDict
from django.shortcuts import render
from django_htmx.http import reselect, reswap, retarget

from games import access, regions, rules, words
from games.access import SignedInRequest
from games.forms import HandForm
from games.models import HISTORY_SHOWN, MAX_HANDS, Change, Match, Replay, Role
from games.views.common import clock, partial, qr

_T = TypeVar("_T")


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
    """What a page shows about a match (`summary`)."""

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


def summary(
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
    return regions.cache_key("board", *parts, request.user.get_username(), all_hands(request))


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


def board(
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
    shown: Mapping[str, object] = {}
    if drawn is None:
        hands = all_hands(request)
        if replayed is None:
            match, shown = _read_together(
                request, match, lambda m: summary(m, None, hands, me=request.user)
            )
        else:
            shown = summary(match, replayed, hands, me=request.user)
    share_url = request.build_absolute_uri(match.get_share_url())
    context: dict[str, Any] = {
        "match": match,
        "share_url": share_url,
        "share_qr": lambda: qr(share_url),  # drawn only where the page shows it
        "viewer": not role.allows(Role.SCORER),
        "is_owner": role.allows(Role.OWNER),
    }
    if drawn is None:
        context.update(shown)
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
    part = region(request)
    if request.htmx and not whole and part == "board" and "board" in context:
        response = HttpResponse(context["board"], status=status)
    else:
        page = "games/match_detail.html"
        template = page if whole else partial(request, page, part)
        response = render(request, template, context, status=status)
    if request.htmx and (request.method == "POST" or "v" in request.GET):
        response["HX-Trigger"] = "board-changed"  # the score race under the board follows
    if "v" in request.GET:  # a poll: what changed, for a phone in the middle of a hand
        before = _count(request.GET.get("n"))
        response["X-Board-Change"] = what_changed(request, match, before, match.hands_played)
    return drawn_at(response, match)


def drawn_at(response: HttpResponse, match: Match) -> HttpResponse:
    """The version of the match a board or hand form was drawn at (what its `version` input
    holds), for a phone's own code to read without parsing the page."""
    response["X-Match-Version"] = str(match.version)
    return response


def all_hands(request: HttpRequest) -> bool:
    """A page asks for every hand of the history: "Show all", or the poll of a board showing
    every hand (its history says so, and the board keeps them)."""
    return request.GET.get("hands") == "all"


def region(request: HttpRequest) -> str:
    """What an htmx request redraws: "Show all" the history, or the board (a poll, `?v=`)."""
    return "hands" if all_hands(request) and "v" not in request.GET else "board"


def _count(text: str | None) -> int | None:
    try:
        count: int | None = forms.IntegerField(min_value=0, max_value=MAX_HANDS).clean(text)
        return count
    except ValidationError:
        return None


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


def what_changed(request: HttpRequest, match: Match, before: int | None, now: int) -> str:
    """What another phone did, and who, from the hands a page showed and the hands there
    are now: "Hand 5 was saved by Bob on another phone." """
    if before is not None and now > before:
        by = _by(request, match, Change.Kind.SAVED, before + 1, now)
        return f"{_numbers(before + 1, now)} saved{by} on another phone."
    if before is not None and now < before:
        by = _by(request, match, Change.Kind.UNDONE, now + 1, before)
        return f"{_numbers(now + 1, before)} undone{by} on another phone."
    return "The hands were changed on another phone."


def stale_board(
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
    notice = why or what_changed(request, match, before, state.hands) + tail
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
    response = board(
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
