"""Many matches: the home page, the list, a new match and a rematch, match files in and out."""

from __future__ import annotations

import io
import zipfile
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING, TypedDict

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import UploadedFile
from django.core.paginator import Paginator
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse, QueryDict
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_http_methods, require_POST
from django.views.decorators.vary import vary_on_headers

from games import access, matchfile, payways, regions, rules, words
from games.access import HtmxRequest, SignedInRequest
from games.forms import MatchForm
from games.models import (
    Group,
    Match,
    MatchQuerySet,
    Night,
    PayWays,
    Player,
    Role,
    create_match,
    day_start,
    import_match,
)
from games.responses import (
    import_limits,
)
from games.views.common import (
    cards_of,
    group_switch,
    partial,
)
from games.views.payways import buttons
from games.views.payways import me as payways_me
from games.views.standings import current as current_season


def _listed(group: Group) -> MatchQuerySet:
    """A group's matches for a list, latest first (`cards_of` draws them)."""
    return Match.objects.filter(group=group).order_by("-played_at", "-pk")


# How long after its last match began a night's settle-up is tonight's on the home page.
TONIGHT = timedelta(hours=12)


class _Tonight(TypedDict):
    """The latest night's settle-up on the home page (`_tonight`): each transfer as
    (currency, payment, paid in full, cents left, the buttons that pay it)."""

    night: Night
    transfers: list[tuple[str, rules.Payment, bool, int, list[payways.Way]]]
    staked: bool
    not_fewest: str
    is_tonight: bool
    last: datetime
    started: date


def _tonight(group: Group, me: int | None) -> _Tonight | None:
    """The settle-up of the latest night, once one of its matches has finished; the buttons
    that pay a transfer for the one who pays it (`me`, the viewer's player)."""
    night = Night.latest(group)
    if night is None:
        return None
    settle_up, paid = night.settle_up(), night.paid_cents()
    first, last = night.span()
    assert first is not None and last is not None  # Night.latest has a finished match
    me_name = group.players.filter(pk=me).values_list("name", flat=True).first() if me else None
    kept = PayWays.of_group(group.pk) if me_name else {}
    day = timezone.localtime(first).date()
    transfers = [
        (
            s.currency,
            t,
            s.covered(t, paid),
            left := t.cents - paid.get(s.key(t), 0),
            buttons(kept, me_name, t.payer, t.payee, left, s.currency, day),
        )
        for s in settle_up
        for t in s.transfers
    ]
    return {
        "night": night,
        "transfers": transfers,
        "staked": bool(settle_up),
        "not_fewest": "" if all(s.fewest for s in settle_up) else words.NOT_FEWEST,
        "is_tonight": timezone.now() - last < TONIGHT,
        "last": last,
        "started": timezone.localtime(first).date(),
    }


@login_required
def home(request: SignedInRequest) -> HttpResponse:
    group = access.picked(request)
    me = payways_me(request, group.pk)

    def draw() -> tuple[dict[str, str], datetime | None]:
        """The matches, the latest night's settle-up and the link to the season's standings,
        drawn once a version of the group, and again each day (today's season may change)."""
        tonight = _tonight(group, me)
        context = {
            "group": group,
            "playing": cards_of(MatchQuerySet.latest_ids(group, finished=False, most=20)),
            "finished": cards_of(MatchQuerySet.latest_ids(group, finished=True, most=5)),
            "tonight": tonight,
            "season": current_season(group),
        }
        records = regions.partial(request, "games/home.html#records", context)
        ends = day_start(timezone.localdate() + timedelta(days=1))
        if tonight and tonight["is_tonight"]:
            ends = min(ends, tonight["last"] + TONIGHT)
        return {"records": records}, ends

    return render(
        request,
        "games/home.html",
        {
            "group": group,
            "groups": group_switch(request, group),
            "can_score": access.may(request, group, Role.SCORER),
            **regions.region(request, group, "home", (me,), draw),
        },
    )


def _scoring_groups(request: SignedInRequest) -> QuerySet[Group]:
    return Group.objects.filter(
        memberships__user=request.user, memberships__role__in=access.roles_allowing(Role.SCORER)
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
    if not access.may(request, group, Role.SCORER):
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
    deal, how, first = None, "", ""
    if request.method == "POST":
        names = form.names()
        if ("jack" in request.POST or "cut" in request.POST) and names:
            how = "jack" if "jack" in request.POST else "cut"
            deal, first = (rules.deal_for_jack if how == "jack" else rules.cut_for_deal)(names)
            form.data = request.POST.copy()
            form.data["dealer"] = str(form.seat_names().index(first))
        # A new form, not new data under the old one: its first-dealer tiles name the seats.
        elif "add" in request.POST:
            form = MatchForm(_seat_player(request.POST, request.POST["add"]))
        elif "up" in request.POST:
            form = MatchForm(_move_up(request.POST, request.POST["up"]))
        elif "create" in request.POST and form.is_valid():
            try:
                match = create_match(
                    group,
                    form.cleaned_data["preset"],
                    form.ruleset,
                    form.stakes,
                    form.players,
                    form.first_dealer,
                    by=request.user,
                )
            except rules.RuleError as e:  # the group keeps as many matches as it may
                form.add_error(None, e.message)
            else:
                return redirect(match)
    template = partial(request, "games/match_new.html", _new_match_region(request))
    seated = {rules.name_key(n) for n in form.names()}
    return render(
        request,
        template,
        {
            "form": form,
            "deal": _cards_shown(deal, first) if deal else None,
            "dealer_found": first if deal else "",
            "dealt_by": how,
            "starting": "create" in request.POST,
            "saved": [n for n in saved if rules.name_key(n) not in seated],
            "presets": rules.PRESETS.values(),
            "group": group,
            "groups": list(_scoring_groups(request)),
            "rules_words": words.rules_in_words(*_chosen_rules(form), form.chosen_preset.name),
        },
    )


def _cards_shown(deal: list[tuple[int, str, str, str]], first: str) -> list[dict[str, object]]:
    """The cards of a cut or a deal for the first Jack, the one that chose the dealer marked
    (a cut's last card is not always the low one)."""
    chosen = max(i for i, (_, name, _, _) in enumerate(deal) if name == first)
    return [
        {"name": name, "rank": rank, "suit": suit, "chosen": i == chosen}
        for i, (_, name, rank, suit) in enumerate(deal)
    ]


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
@require_POST
def match_rematch(request: SignedInRequest, pk: int) -> HttpResponse:
    old = access.get_match(request, pk, Role.SCORER)
    before = old.state_before(old.hands_played + 1)  # the next dealer deals the rematch
    if before is None:  # hands undone since the match was read
        return redirect(old)
    state, _ = before
    try:
        match = create_match(
            old.group,
            old.preset,
            old.ruleset(),
            old.stakes(),
            old.names,
            state.dealer,
            by=request.user,
        )
    except rules.RuleError as e:  # the group is full, or stakes from before the limits
        messages.error(request, e.message)
        return redirect(old)
    return redirect(match)


# The stubs' generic Paginator, which Django's own class is not at run time (no [Match] there).
if TYPE_CHECKING:
    _MatchPaginator = Paginator[Match]
else:
    _MatchPaginator = Paginator


class _Counted(_MatchPaginator):
    """A paginator told how many there are (a player's stored count of their matches), so
    that it never counts them."""

    def __init__(self, object_list: QuerySet[Match], per_page: int, count: int) -> None:
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
    can_score = access.may(request, group, Role.SCORER)
    number = request.GET.get("page")

    def draw() -> tuple[dict[str, str], None]:
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
            # A page of a queryset is a queryset; the stubs' Page knows only that it pages.
            "cards": cards_of(list(page.object_list.values_list("pk", flat=True))),  # type: ignore[attr-defined]
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
            "groups": group_switch(request, group),
            **regions.region(request, group, "matches", parts, draw),
        },
    )


@login_required
def match_export(request: SignedInRequest, pk: int) -> HttpResponse:
    match = access.get_match(request, pk)
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
            match, new = import_match(group, m, by=request.user)
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


def _read_files(
    request: HttpRequest, group: Group, uploads: list[UploadedFile]
) -> list[tuple[str, matchfile.Match]]:
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


def _match_files(upload: UploadedFile) -> list[tuple[str, bytes]]:
    """(name, bytes) of each match file an upload holds: itself, or each file of a zip of
    them, unpacked within the limits (RuleError if it can't be)."""
    if not matchfile.is_zip(upload.read(4)):
        upload.seek(0)
        assert upload.name is not None  # the request's parser keeps no file without a name
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
