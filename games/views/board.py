"""One match's board and its hands: the page, its polls and share link, saving, checking,
editing and undoing a hand, and deleting the match."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Concatenate, ParamSpec
from urllib.parse import quote

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.cache import cache
from django.db import OperationalError
from django.http import Http404, HttpResponse, QueryDict
from django.shortcuts import get_object_or_404, redirect, render, resolve_url
from django.template.loader import render_to_string
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_http_methods, require_POST
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import (
    HttpResponseClientRedirect,
    push_url,
    reswap,
    retarget,
)

from games import access, matchfile, regions, rules, words
from games.access import HtmxRequest, SignedInRequest
from games.forms import HandForm, WriteForm, read_key
from games.models import (
    MATCH_GONE,
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
from games.responses import CANT_SAVE, refuse
from games.views.board_context import (
    all_hands,
    board,
    drawn_at,
    region,
    stale_board,
    summary,
)
from games.views.common import partial

_P = ParamSpec("_P")


def _go(request: HtmxRequest, to: Match) -> HttpResponse:
    """Redirect: htmx must load the whole page, not swap it into a region."""
    if request.htmx:
        return HttpResponseClientRedirect(resolve_url(to))
    return redirect(to)


def _unchanged(request: HtmxRequest, matches: MatchQuerySet) -> bool:
    """A live board's poll (`?v=` the version it shows) for a match whose hands are as
    they were: answered 204 from one small query, with no replay."""
    if not request.htmx or "v" not in request.GET:
        return False
    # The stubs take a queryset of models only; of flat values it finds the value just as well.
    version = get_object_or_404(matches.values_list("version", flat=True))  # type: ignore[type-var]
    return request.GET["v"] == str(version)


@login_required
@require_http_methods(["GET"])
@vary_on_headers("HX-Request")
def match_detail(request: SignedInRequest, pk: int) -> HttpResponse:
    try:
        if _unchanged(request, Match.objects.filter(pk=pk, group__memberships__user=request.user)):
            return HttpResponse(status=204)
        return board(request, access.get_match(request, pk))
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
    part = region(request)
    context: dict[str, object] = {"match": match}
    key = regions.cache_key("shared", token, match.version, match.names, all_hands(request))
    drawn = cache.get(key) if part == "board" else None
    if drawn is None:
        context.update(summary(match, all_hands=all_hands(request)))
        context.update(viewer=True, history_url=match.get_share_url() + "?hands=all")
        if part == "board":
            drawn = render_to_string("games/match_shared.html#board", context, request)
            cache.set(key, drawn, regions.SECONDS)
    if drawn is not None:
        if request.htmx:
            return drawn_at(HttpResponse(drawn), match)
        context["board"] = mark_safe(drawn)
    return drawn_at(
        render(request, partial(request, "games/match_shared.html", part), context), match
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
    """A Save of a new hand: who may save is checked on the match as the save's lock finds it,
    which is all a save reads of it."""
    number, version = WriteForm(request.POST).read()
    key = read_key(request.POST)
    entry = _Entry(request.POST)
    try:
        saved = add_hand(pk, number, entry, version, request.user, key, _scorer(request))
    except Stale as e:
        if number is None or e.checked is None or entry.form is None:
            return stale_board(request, pk, None, request.POST)
        mine = (e.checked, entry.form.hand) if number <= e.hands else None
        return stale_board(request, pk, number - 1, request.POST, mine=mine)
    except Match.DoesNotExist:  # deleted on another phone, alone or with its group
        return refuse(request, 404, MATCH_GONE)
    except rules.RuleError as e:
        if entry.form is None:
            raise
        entry.form.add_error(None, e.message)
    except OperationalError:  # locked past the time-out, or a full disk: rolled back
        match = access.get_match(request, pk, Role.SCORER)
        form = entry.form or _entry_form(match, number, request.POST)
        if form is None:
            return stale_board(request, pk, None, request.POST)
        form.add_error(None, CANT_SAVE)
        return _cant_save(board(request, match, form, status=503))
    else:
        if saved is not None:
            match, earlier = saved.match, saved.earlier
            if earlier and earlier.same_key and _other_than_saved(match, earlier, request.POST):
                return _key_used(request, match, earlier)
            return _saved(request, match, earlier, key, saved.replayed)
    assert number is not None and entry.form is not None  # the entry was read, and refused
    match = access.get_match(request, pk, Role.SCORER)
    if version != match.version:
        return stale_board(request, pk, number - 1, request.POST)
    return board(request, match, entry.form)


def _scorer(request: SignedInRequest) -> Callable[[Match], Match]:
    """The check that the user may save hands of a match (404 for anyone not in its group,
    403 in words for a viewer)."""
    return lambda match: access.checked(request, match, Role.SCORER)


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
    return stale_board(request, match.pk, None, request.POST, why=words.key_used(earlier.number))


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
    response = board(request, match, notice=notice or None, replayed=replayed)
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
        return stale_board(request, pk, None if sent is None else sent - 1, request.POST)
    if number is not None and (not 1 <= number <= match.hands_played or match.finished):
        return _go(request, match)
    before = match.state_before(match.hands_played + 1 if number is None else number)
    if before is None:  # hands undone since the match was read
        if number is not None:
            return _stale_edit(request, pk, number)
        return stale_board(request, pk, None if sent is None else sent - 1, request.POST)
    state, _ = before
    if state.finished:
        return _go(request, match)
    form = HandForm(state, request.POST, checking=True)
    form.is_valid()
    if number is not None:
        return _edit_page(request, match, number, form)
    if request.htmx:
        context = {"match": match, "form": form, "state": state, "number": state.hands + 1}
        return drawn_at(render(request, "games/match_detail.html#hand-form", context), match)
    return board(request, match, form)


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
    return drawn_at(render(request, template, context, status=status), match)


def _stale_edit(request: SignedInRequest, pk: int, number: int) -> HttpResponse:
    """409 for an edit from an out-of-date page: the change is kept, on today's match (where
    the hand was undone meanwhile, on the board as the next hand); where the match was won
    meanwhile, the board says so."""
    match = access.get_match(request, pk)
    state, hand = match.state_before(number) or (None, None)
    if hand is None and not match.finished:
        # Undone: what was typed is kept on the board, offered as the next hand.
        response = stale_board(request, pk, number, entry=request.POST, whole=True)
        if request.htmx:  # the edit page has no board: the match page takes its place
            push_url(response, match.get_absolute_url())
        return response
    if state is None or hand is None or match.finished:
        done = f"Hand {number} was undone" if hand is None else "The match was won"
        notice = f"{done} on another phone, so your change to hand {number} was not saved."
        if not request.htmx:
            return board(request, match, notice=notice, status=409)
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
            later = "; every later hand re-scored" if number < match.hands_played else ""
            messages.success(request, f"Hand {number} changed{later}.")
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
        return stale_board(request, pk, number, tail=" Nothing was undone.")
    except Match.DoesNotExist:  # deleted on another phone, alone or with its group
        return refuse(request, 404, MATCH_GONE)
    if undone and not request.htmx:  # with htmx the board itself shows it, and at once
        messages.info(request, f"Hand {number} undone.")
    if request.htmx:
        return board(request, access.get_match(request, pk))
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
    return render(request, "games/match_delete.html", summary(match))


def _cant_save(response: HttpResponse) -> HttpResponse:
    """The hand forms' own 503: the form drawn again with the entry on it (htmx keeps the one
    on screen), and the words."""
    response["X-Problem"] = quote(CANT_SAVE)
    response["Retry-After"] = "5"
    return response
