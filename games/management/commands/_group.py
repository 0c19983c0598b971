"""What import_match and export_match share: the group that --group ID names."""

from django.core.management.base import CommandError

from games.models import Group


def group_named(pk: int, username: str | None = None) -> Group:
    """The group --group ID names, one that --user NAME (if given) is in; CommandError if not."""
    group = Group.objects.filter(pk=pk).first()
    if group is None:
        raise CommandError(f"There is no group {pk}.")
    if username and not group.memberships.filter(user__username=username).exists():
        raise CommandError(f"{username!r} is not in the group {group} ({pk}).")
    return group
