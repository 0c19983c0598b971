"""What several page families share: the partial-or-page choice, a match of the user's
groups, the group switch, match cards, times in the players' zone, a QR code, CSV
downloads and a player's statistics and charts."""

from __future__ import annotations

import csv
import functools
from collections.abc import Iterable
from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING, TypedDict

import segno
from django.http import HttpResponse
from django.utils import timezone
from django.utils.http import content_disposition_header
from django.utils.safestring import mark_safe

from games import access, rules, words
from games.access import HtmxRequest, SignedInRequest
from games.charts import line_chart
from games.models import (
    Group,
    Match,
    Summed,
    running_money,
)

if TYPE_CHECKING:
    from _typeshed import SupportsWrite


def partial(request: HtmxRequest, template: str, partial: str) -> str:
    """The page for a normal request, just its region for an htmx one."""
    if request.htmx and not request.htmx.history_restore_request:
        return f"{template}#{partial}"
    return template


def clock(moment: datetime) -> str:
    """ "7:30 p.m.", in the players' time zone."""
    return words.clock(timezone.localtime(moment))


def day_and_clock(moment: datetime) -> str:
    """ "Nov 28, 7:30 p.m.", as the lists say when a match began."""
    return words.day_and_clock(timezone.localtime(moment))


class Card(TypedDict):
    """A match as a list shows it (`cards_of`): its title, when it began, each player's
    (name, score as shown, won) in seat order, and its line of words."""

    pk: int
    title: str
    when: str
    scores: list[tuple[str, int, bool]]
    meta: str


def cards_of(ids: list[int]) -> list[Card]:
    """What a list shows of each of these matches, from their stored results: put together
    here once, so that a long page of cards costs little to draw (games/_match_cards.html)."""
    cards: list[Card] = []
    for m in Match.card_rows(ids):
        if m.finished:
            meta = words.card_meta(m.hands_played, winners=[n for _, n, _, won in m.results if won])
        else:
            dealer = next(n for seat, n, _, _ in m.results if seat == m.next_dealer)
            meta = words.card_meta(m.hands_played, dealer=dealer)
        when = day_and_clock(m.played_at)
        cards.append(
            {
                "pk": m.pk,
                "title": f"{m.label} · {when}",
                "when": when,
                "scores": [
                    (name, score if m.counted_up_from is None else m.counted_up_from - score, won)
                    for _, name, score, won in m.results
                ],
                "meta": meta,
            }
        )
    return cards


@functools.lru_cache(maxsize=64)
def qr(url: str) -> str:
    return mark_safe(segno.make(url, error="m").svg_inline(scale=5, dark="#000", light="#fff"))


def group_switch(request: SignedInRequest, group: Group) -> list[Group]:
    """The user's other groups, for the switch at the top of a page over one group."""
    return [m.group for m in access.memberships(request).values() if m.group_id != group.pk]


# A text cell that a spreadsheet would read as a formula (OWASP's "CSV injection"): a name
# such as =HYPERLINK(...) must reach it as text.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(cell: object) -> object:
    """A CSV cell a spreadsheet shows as it is: text that starts like a formula gets a
    leading '. Numbers (an amount, a score) are not text and stay numbers, signs and all."""
    if isinstance(cell, str) and cell.startswith(FORMULA_STARTS):
        return "'" + cell
    return cell


def spreadsheet_amount(cents: int) -> Decimal:
    """An amount as a number for a spreadsheet: -3.00, not the text "-3.00"."""
    return Decimal(rules.format_money(cents))


class _SafeWriter:
    """csv.writer, with every cell made spreadsheet_safe."""

    def __init__(self, out: SupportsWrite[str]) -> None:
        self.writer = csv.writer(out)

    def writerow(self, cells: Iterable[object]) -> None:
        self.writer.writerow([spreadsheet_safe(cell) for cell in cells])


def csv_download(name: str) -> tuple[HttpResponse, _SafeWriter]:
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    disposition = content_disposition_header(True, name)
    assert disposition is not None  # an attachment always has one
    response["Content-Disposition"] = disposition
    return response, _SafeWriter(response)


# --- A player's statistics and charts (their page and /me/) ---------------------------------


def _percent(part: int, whole: int) -> str:
    return f"{round(100 * part / whole)}%" if whole else "–"


def _stat_rows(stats: dict[str, int], money_by_currency: dict[str, int]) -> list[tuple[str, str]]:
    """§12's statistics in words, one (label, value) a row."""
    s = stats
    per_hand = f"{s['points'] / s['dealt_in']:.2f}" if s["dealt_in"] else "–"
    rows = [
        ("Matches", str(s["played"])),
        ("Finished", str(s["finished"])),
        ("Wins", str(s["won"])),
        ("Win rate", _percent(s["won"], s["finished"])),
    ]
    for currency, cents in money_by_currency.items():
        rows.append((f"Net money ({currency})", words.signed_money(cents, currency)))
    rows += [
        ("Hands played (redeals not counted)", str(s["dealt_in"])),
        ("Of those, hands they stayed in", f"{s['stayed_in']}"),
        ("Stayed-in rate", _percent(s["stayed_by_choice"], s["could_drop"])),
        ("Made trump", str(s["made_trump"])),
        ("Made rate", _percent(s["made"], s["made_trump"])),
        ("Sets", str(s["was_set"])),
        ("Euchred", str(s["euchred"])),
        ("Sweeps", str(s["sweeps"])),
        ("Points per hand", per_hand.replace("-", "−")),
    ]
    if s.get("moons_declared"):  # only where the rules played the moon (§12)
        rows[-1:-1] = [
            ("Moons shot", str(s["moons_declared"])),
            ("Of those, made", str(s["moons_made"])),
        ]
    return rows


def _short_money(cents: int, currency: str) -> str:
    """An axis label: "$5", "−$2.50"."""
    text = words.money(cents, currency)
    return text[:-3] if text.endswith(".00") else text


# A chart of a long history draws at most this many points: the total after every so many
# matches (its table the same rows), so that a page costs the same at 1,000 matches as at 60.
CHART_POINTS = 60


def _shown(count: int) -> set[int]:
    """Which of `count` matches (their places, from 0) a chart draws the total after: each,
    or at most CHART_POINTS of them, every so many, the last always."""
    most = CHART_POINTS
    if count <= most:
        return set(range(count))
    return {round((k + 1) * count / most) - 1 for k in range(most)}


def net_charts(name: str, players: list[int], summed: Summed) -> list[dict[str, object]]:
    """The net money over time of `players` (ids; their stored sums `summed`), match by match,
    one chart a currency, in the order of each currency's first match; at most CHART_POINTS
    points a chart (the total after every so many matches), and only those are read."""
    shown = {currency: _shown(count) for currency, count in summed.staked.items()}
    points = running_money(players, shown)
    charts = []
    currencies = sorted(summed.staked, key=lambda currency: (summed.first[currency], currency))
    for i, currency in enumerate(c for c in currencies if points.get(c)):
        count = summed.staked[currency]
        running, labels, rows, before = [0], ["Start"], [], 0
        for played_at, total in points[currency]:
            local = timezone.localtime(played_at)
            running.append(total)
            labels.append(f"{local:%b} {local.day}")
            won = words.signed_money(total - before, currency)
            rows.append((words.date_and_clock(local), won, words.signed_money(total, currency)))
            before = total
        every = len(rows) < count
        after = f"every {count // len(rows)} or so of" if every else "each of"
        description = (
            f"{name}'s net money in {currency} after {after} {count} matches "
            f"played for money, from {labels[1]} to {labels[-1]}: "
            f"{'+' if before > 0 else ''}{words.money(before, currency)} in all."
        )
        chart = line_chart(
            f"Net money over time ({currency})",
            description,
            {name: running},
            labels,
            y_text=lambda v, c=currency: _short_money(v, c),
        )
        charts.append(
            {
                "id": f"net-{i}",
                "chart": chart,
                "currency": currency,
                "rows": rows,
                "every": every,
            }
        )
    return charts


def stats_context(summed: Summed) -> dict[str, object]:
    """§12's statistics of these stored sums in words: over all their matches and for each
    rule set."""
    presets = [
        {
            "label": rules.PRESETS[preset].label if preset in rules.PRESETS else preset,
            "played": stats["played"],
            "rows": _stat_rows(stats, summed.money_by_preset.get(preset, {})),
        }
        for preset, stats in summed.by_preset.items()
    ]
    return {"overall": _stat_rows(summed.stats, summed.money), "presets": presets}
