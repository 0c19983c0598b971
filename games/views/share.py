"""Share the night (#44 §2): the night as a picture (games/picture.py) and the words for a
group chat, for the Share button of the night's page and of a finished match's board. Both
are drawn from what the night's page shows (`Night.settle_up`, `Night.paid_cents`, the
matches' stored results) and from that night only."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.utils import timezone
from django.views.decorators.http import require_http_methods

from games import access, picture, words
from games.access import SignedInRequest
from games.models import Night


def night_card(night: Night) -> picture.NightCard:
    """What the picture of the night shows: its matches and who won each, then each
    currency's nets and the payments that settle them, as the night's page has them; where
    nothing was staked, each player's points over the finished matches."""
    matches = list(night.matches.order_by("played_at", "pk").with_results())
    lines = tuple(
        picture.MatchLine(
            words.clock(timezone.localtime(m.played_at)),
            m.label,
            tuple(m.winner_names()) if m.finished else (),
        )
        for m in matches
    )
    paid = night.paid_cents()
    sections = [
        picture.Section(
            s.currency,
            tuple(s.net.items()),
            tuple(
                picture.Transfer(t.payer, t.payee, t.cents, max(0, t.cents - paid.get(s.key(t), 0)))
                for t in s.transfers
            ),
        )
        for s in night.settle_up()
    ]
    if not sections and any(m.finished for m in matches):
        points: dict[str, int] = {}
        for m in matches:
            if m.finished:
                for r in m.results.all():
                    points[r.player.name] = points.get(r.player.name, 0) + r.score
        sections.append(picture.Section(None, tuple(points.items())))
    first = timezone.localtime(matches[0].played_at) if matches else timezone.localtime()
    group = night.group.name
    return picture.NightCard(
        group,
        night.titled(matches[0].played_at if matches else None).removeprefix("The night of "),
        f"{first:%A}",
        lines,
        tuple(sections),
    )


def _filename(night: Night) -> str:
    return f"buck-euchre-night-{night.started() or night.pk}.png"


@login_required
@require_http_methods(["GET"])
def night_picture(request: SignedInRequest, pk: int) -> HttpResponse:
    """The night as a PNG, for a member to share."""
    night = access.get_of_group(request, Night, pk)
    response = HttpResponse(picture.draw(night_card(night)), content_type="image/png")
    response["Content-Disposition"] = f'inline; filename="{_filename(night)}"'
    response["Cache-Control"] = "private, no-cache"
    return response


@login_required
@require_http_methods(["GET"])
def night_words(request: SignedInRequest, pk: int) -> HttpResponse:
    """The night's few lines for a group chat, as text."""
    night = access.get_of_group(request, Night, pk)
    response = HttpResponse(
        picture.chat_text(night_card(night)), content_type="text/plain; charset=utf-8"
    )
    response["Cache-Control"] = "private, no-cache"
    return response
