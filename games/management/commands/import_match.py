import json
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction
from django.utils import timezone

from games import matchfile
from games.management.commands._group import group_named
from games.management.commands.replay import read_file
from games.models import Group, import_match
from games.rules import RuleError


class Command(BaseCommand):
    help = (
        "Store buck-euchre/1 match files, or zips of them (a backup), each file all or nothing; "
        "print `FILE: ID` for each (ZIP/FILE for a file of a zip), with (already imported) "
        "where the user has that match already."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "files", nargs="+", metavar="FILE", help="match files or zips of them, - for stdin"
        )
        parser.add_argument("--user", help="the owner's username (default: the first superuser)")
        parser.add_argument(
            "--group",
            type=int,
            metavar="ID",
            help="the group to store in (default: the user's own)",
        )
        parser.add_argument("--json", action="store_true", help="write each error as JSON")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["user"]:
            try:  # the username field's own checks: its letters (username_validator), length
                get_user_model()._meta.get_field("username").run_validators(options["user"])
            except ValidationError as e:
                raise CommandError(f"--user: {' '.join(e.messages)}") from None
        group = self._group(options["group"], options["user"])
        owner = group or self._owner(options["user"])
        refused = False
        files = []
        for path in options["files"]:
            try:
                contents = _match_files(path)
            except RuleError as e:
                refused = True
                self._refuse(path, e, options["json"])
                continue
            for name, data in contents:
                try:
                    files.append((name, _parse(data)))
                except RuleError as e:
                    refused = True
                    self._refuse(name, e, options["json"])
        # Oldest first, so that each match joins the night of the one begun before it.
        now = timezone.now()
        stored = {}
        username = options["user"] or "scorekeeper"
        for i in sorted(range(len(files)), key=lambda i: files[i][1].played_at or now):
            path, m = files[i]
            try:
                with transaction.atomic():  # an account made for it goes if the file does
                    who = owner or get_user_model().objects.create_user(username)
                    stored[i] = import_match(who, m)
                if owner is None:
                    # A fresh database, or a --user not yet here: the matches are kept under
                    # a new account, given a password later with `changepassword NAME`.
                    self.stderr.write(f"Stored under a new account, {username} (no password yet).")
                    owner = who
            except RuleError as e:
                refused = True
                self._refuse(path, e, options["json"])
        for i, (path, _) in enumerate(files):
            if i in stored:
                match, new = stored[i]
                self.stdout.write(f"{path}: {match.pk}" + ("" if new else " (already imported)"))
        if refused:
            raise SystemExit(1)

    def _refuse(self, path: str, error: RuleError, as_json: bool) -> None:
        if as_json:
            document = {"error": {"file": path, **matchfile.error_document(error)["error"]}}
            self.stderr.write(json.dumps(document))
        else:
            self.stderr.write(f"{path}: nothing imported. {error.located()} ({error.code})")

    def _group(self, pk: int | None, username: str | None) -> Group | None:
        return None if pk is None else group_named(pk, username)

    def _owner(self, username: str | None) -> User | None:
        users = get_user_model().objects.all()
        if username:  # one not yet here is made with the first match stored
            found = users.filter(username=username).first()  # else as the sign-up form finds
            return found or users.filter(username__iexact=username).first()  # one: any capitals
        return users.order_by("-is_superuser", "pk").first()


def _match_files(path: str) -> list[tuple[str, str | bytes]]:
    """(name, text or bytes) of each match file of `path`: the file itself, or each file of a
    zip, unpacked within the limits the app's import keeps (RuleError if it can't be)."""
    if path != "-":
        try:
            with open(path, "rb") as f:
                if matchfile.is_zip(f.read(4)):
                    limits = settings.MAX_UPLOAD_SIZE, settings.MAX_ZIP_FILES, settings.MAX_ZIP_SIZE
                    members = matchfile.unzip(f, *limits)
                    return [(f"{path}/{name}", data) for name, data in members]
        except OSError:
            pass  # read_file says why, as for any file it can't read
    return [(path, read_file(path))]


def _parse(data: str | bytes) -> matchfile.Match:
    if isinstance(data, bytes):  # a file of a zip, held to the app's limit
        return matchfile.read(data, settings.MAX_UPLOAD_SIZE)
    return matchfile.parse(data)
