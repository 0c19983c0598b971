"""Static files as a server sends them: the app's own CSS and JavaScript minified, then named by
the hash of what is sent and compressed (gzip and Brotli) by WhiteNoise, all at collectstatic.

The sources in static/ keep their comments; a phone on a weak signal gets none of them (the
board's first load is held to 30 KB, tests/test_server.py).
"""

from pathlib import Path

import rcssmin
import rjsmin
from django.conf import settings
from django.core.files.base import ContentFile
from whitenoise.storage import CompressedManifestStaticFilesStorage

MINIFIERS = {".css": rcssmin.cssmin, ".js": rjsmin.jsmin}


class _Minified:
    """The app's own static files, as collectstatic reads them to hash them: minified."""

    def __init__(self, storage):
        self.storage = storage

    def open(self, path: str, mode: str = "rb") -> ContentFile:
        with self.storage.open(path) as source:
            return ContentFile(MINIFIERS[Path(path).suffix](source.read()), name=path)


def _own(storage, path: str) -> bool:
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


class MinifiedStaticFilesStorage(CompressedManifestStaticFilesStorage):
    def post_process(self, paths, dry_run=False, **options):
        paths = {
            name: (_Minified(storage), path) if _own(storage, path) else (storage, path)
            for name, (storage, path) in paths.items()
        }
        yield from super().post_process(paths, dry_run=dry_run, **options)
