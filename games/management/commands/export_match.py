from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from games import matchfile
from games.management.commands._group import group_named
from games.models import Group, Match


class Command(BaseCommand):
    help = (
        "Write a stored match as a buck-euchre/1 file on standard output, or with "
        "--all --user NAME DIR every match of that user's own group (or of --group ID) into "
        "DIR, one file each."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("target", metavar="ID|DIR", help="the match's id; with --all, a folder")
        parser.add_argument("--all", action="store_true", help="export every match of --user")
        parser.add_argument("--user", help="whose matches --all exports (their own group's)")
        parser.add_argument("--group", type=int, metavar="ID", help="the group --all exports")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["all"]:
            group = self._group(options["user"], options["group"])
            self._export_all(group, Path(options["target"]))
            return
        if options["user"] or options["group"] is not None:
            raise CommandError(
                "--user and --group go with --all: export_match --all --user NAME DIR."
            )
        try:
            pk = int(options["target"])
        except ValueError:
            raise CommandError(f"{options['target']!r} is not a match id.") from None
        match = Match.objects.with_seats().filter(pk=pk).first()
        if match is None:
            raise CommandError(f"There is no match {options['target']}.")
        self.stdout.write(matchfile.dumps(match.to_file()), ending="")

    def _group(self, username: str | None, pk: int | None) -> Group:
        owner = None
        if username:
            owner = get_user_model().objects.filter(username=username).first()
            if owner is None:
                raise CommandError(f"There is no user {username!r}.")
        if pk is not None:
            return group_named(pk, username)
        if owner is None:
            raise CommandError("Say whose matches to export: --all --user NAME DIR.")
        return Group.home(owner)

    def _export_all(self, group: Group, folder: Path) -> None:
        try:
            folder.mkdir(parents=True, exist_ok=True)
            for match in Match.objects.filter(group=group).order_by("played_at").with_seats():
                path = folder / match.file_name()
                path.write_text(matchfile.dumps(match.to_file()), encoding="utf-8")
                self.stdout.write(str(path))
        except OSError as e:
            raise CommandError(f"Can't write to {folder}: {e.strerror or e}.") from None
