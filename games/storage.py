"""Static files as a server sends them: the app's own CSS and JavaScript minified, then named by
the hash of what is sent and compressed (gzip and Brotli) by WhiteNoise, all at collectstatic.

The sources in static/ keep their comments; a phone on a weak signal gets none of them (the
board's first load is held to a budget, tests/test_server.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import rcssmin
import rjsmin
from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import Storage
from whitenoise.storage import CompressedManifestStaticFilesStorage

MINIFIERS = {".css": rcssmin.cssmin, ".js": rjsmin.jsmin}


class _Minified:
    """The app's own static files, as collectstatic reads them to hash them: minified."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage

    def open(self, path: str, mode: str = "rb") -> ContentFile[bytes]:
        with self.storage.open(path) as source:
            return ContentFile(MINIFIERS[Path(path).suffix](source.read()), name=path)


def _own(storage: Storage, path: str) -> bool:
    """A CSS or JavaScript file of the app's own static/ (not a vendored one, already
    minified, nor one of another app's)."""
    own = [Path(folder).resolve() for folder in settings.STATICFILES_DIRS]
    location = getattr(storage, "location", None)
    return (
        location is not None
        and Path(location).resolve() in own
        and Path(path).suffix in MINIFIERS
        and ".min." not in Path(path).name
    )


# (WhiteNoise ships no type information: its storage is Any to mypy.)
class MinifiedStaticFilesStorage(CompressedManifestStaticFilesStorage):  # type: ignore[misc]
    def post_process(
        self, paths: dict[str, tuple[Storage, str]], dry_run: bool = False, **options: Any
    ) -> Iterator[tuple[str, str, bool] | tuple[str, None, RuntimeError]]:
        read: dict[str, tuple[Storage | _Minified, str]] = {
            name: (_Minified(storage), path) if _own(storage, path) else (storage, path)
            for name, (storage, path) in paths.items()
        }
        yield from super().post_process(read, dry_run=dry_run, **options)
