"""What became of the optional files a command read (`roost inbox`, `roost activity`): which
are read, which the deployment does not publish, which could not be read this time, and the
exit code and notes that follow (ARCHITECTURE.md, the pulse).

Exit codes: 0 every file read (or not published: that is no error, a note says so); 1 a file
could not be read this time (its last good copy is used, or it is left out while another is
read); 3 nothing could be read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tui.commands import EXIT_NOTHING, EXIT_OK, EXIT_PROBLEMS
from tui.untrusted import clean_line

if TYPE_CHECKING:
    from tui.config import Settings
    from tui.network.snapshot import Snapshot
    from tui.service import Service
    from tui.session import Session

__all__ = ["Fates", "fates_of", "read_files"]


@dataclass
class Fates:
    names: tuple[str, ...]
    read: list[str] = field(default_factory=list)  # a copy is used (fresh or the last good one)
    absent: list[str] = field(default_factory=list)  # the deployment does not publish it
    failed: dict[str, str] = field(default_factory=dict)  # name → why it was not read now
    notes: list[str] = field(default_factory=list)  # one line each, for stderr and --json

    @property
    def exit_code(self) -> int:
        if not self.read and self.failed:
            return EXIT_NOTHING
        return EXIT_PROBLEMS if self.failed else EXIT_OK

    @property
    def published(self) -> bool:
        """Whether the deployment publishes any of the files."""
        return len(self.absent) < len(self.names)

    def as_dict(self) -> dict[str, str]:
        """Each file's fate in a word: read, stale, absent or failed."""
        return {
            name: "absent"
            if name in self.absent and name not in self.read
            else "stale"
            if name in self.read and name in self.failed
            else "read"
            if name in self.read
            else "failed"
            for name in self.names
        }


def fates_of(snapshot: Snapshot, names: tuple[str, ...]) -> Fates:
    """The fates of ``names`` in ``snapshot`` after a refresh, with a note for each file not
    read fresh."""
    fates = Fates(names)
    for name in names:
        state = snapshot.file(name)
        if state.model is not None:
            fates.read.append(name)
        if state.integrity == "absent":
            fates.absent.append(name)
            if state.model is not None:
                fates.notes.append(
                    f"this deployment no longer publishes {name}: its last copy is used"
                )
            continue
        if state.problem is not None or state.model is None:
            why = clean_line(state.problem.detail if state.problem else "it could not be read", 300)
            fates.failed[name] = why
            kept = "its last good copy is used" if state.model is not None else "it is left out"
            fates.notes.append(f"{name} could not be read ({why}): {kept}")
    return fates


async def read_files(
    settings: Settings, session: Session, files: tuple[str, ...], *, use_cache: bool
) -> Service:
    """The service of ``settings`` with a store that reads ``files`` only, after one refresh
    (its disk copies first); closed: read its ``store.snapshot``."""
    from tui.service import connect  # deferred: off the start path

    service = connect(settings, session, use_cache=use_cache, files=files)
    try:
        service.store.load_cache()
        await service.store.refresh()
    finally:
        await service.aclose()
    return service
