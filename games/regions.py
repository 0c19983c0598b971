"""Regions of the pages over many matches, drawn once a version of the group's data.

What a region of such a page shows (a group's matches, results, nights, players, payments)
changes only with a write to the group, and every such write moves the group's version on in
its own transaction (`Group.version`, moved by `models.groups_turn`). So a region drawn for a
version is drawn once: the next request at that version takes it from the shared cache
(`CACHE_URL`). The version is read with the group, before anything the region shows, so a
region drawn from it is never older than it, and none drawn for an older version is ever
found again. The key holds whatever else the drawing depends on (the viewer's role, the page
of a list, the time zone, ...), the group's id and the moment it was made (ids of a dropped
database are used again) and a digest of the app's templates and code (a new release draws
anew).

A region that holds a form is drawn with marks where each request puts its own CSRF token.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from datetime import datetime
from pathlib import Path

from django.core.cache import cache
from django.http import HttpRequest
from django.middleware.csrf import get_token
from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.safestring import SafeString, mark_safe

from games.models import Group

# As long as a drawn region is kept; a write makes it unreachable long before.
SECONDS = 60 * 60 * 24
CSRF_MARK = "csrf-token-of-the-request-7d1e42b9"


def _digest() -> str:
    """The app's templates and code, in a few letters: what a region looks like."""
    app = Path(__file__).resolve().parent
    files = sorted(
        [*app.glob("*.py"), *app.glob("templatetags/*.py"), *app.glob("templates/**/*.*")]
        + [*(app.parent / "templates").glob("**/*.*")]
    )
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.relative_to(app.parent).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


DIGEST = _digest()


def region(
    request: HttpRequest,
    group: Group,
    name: str,
    parts: tuple[object, ...],
    draw: Callable[[], tuple[dict[str, str], datetime | None]],
) -> dict[str, SafeString]:
    """The region `name` of a page of `group` (read with its version before anything the
    region shows), for `parts` (what else the drawing depends on): drawn by `draw()` once a
    version, else taken from the cache. `draw()` gives the region's pieces of text, drawn
    with `CSRF_MARK` as the CSRF token, and when the drawing goes out of date without any
    write, if it does ("Tonight's settle-up" is another night's 12 hours on), or None."""
    key = cache_key("region", name, group.pk, group.created.isoformat(), group.version, *parts)
    kept = cache.get(key)
    now = timezone.now()
    if kept is None or (kept["until"] is not None and now >= kept["until"]):
        drawn, ends = draw()
        kept = {"drawn": drawn, "until": ends}
        # Its statements each read what was committed when they ran: a write landing while
        # it was drawn may show in some and not in others. Such a drawing is shown once, as
        # any page would be, but kept only if the version did not move meanwhile.
        if (ends is None or now < ends) and not group.moved_on():
            seconds = SECONDS if ends is None else min(SECONDS, (ends - now).total_seconds())
            cache.set(key, kept, seconds)
    return {piece: with_token(request, text) for piece, text in kept["drawn"].items()}


def cache_key(kind: str, *words: object) -> str:
    """The key of a drawing kept in the cache: its kind and all it depends on, with the time
    zone of the clock times it shows and the app's digest; hashed, so that any cache takes it
    (memcached refuses spaces, as in a player's name, and keys over 250 bytes)."""
    words = (*words, timezone.get_current_timezone_name(), DIGEST)
    return f"{kind}:" + hashlib.sha256(repr(words).encode()).hexdigest()


def with_token(request: HttpRequest, drawn: str) -> SafeString:
    """A drawing from the cache with this request's own CSRF token in its forms."""
    return mark_safe(drawn.replace(CSRF_MARK, get_token(request)) if CSRF_MARK in drawn else drawn)


def partial(request: HttpRequest, template: str, context: Mapping[str, object]) -> str:
    """A partial of a template drawn for the cache: its forms' CSRF tokens left as marks."""
    return render_to_string(template, {**context, "csrf_token": CSRF_MARK}, request)
