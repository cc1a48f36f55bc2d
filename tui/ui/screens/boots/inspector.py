"""The egg inspector: what an egg is, proven, before anything would hatch it.

A pushed screen over one egg (bytes or a file) and, when known, the boot record that promised
it. Panes, in this order: the verification report (every check, the first failure highlighted
and focused), the manifest, the files (size and hash status of each entry), a read-only viewer
of one entry (text highlighted by its name's suffix, hex for binary, paged, ``/`` to search),
the payload, and what hatching would do (effects, ``grantsAuthority``, the installer line and
the hatcher as text ``y`` copies — never run).

Everything shown comes from untrusted bytes: strings pass through :mod:`tui.untrusted` and are
drawn as ``Text``/``Syntax``, never markup. Entries are read where the strict reader found them
in the egg; nothing is extracted, imported or executed. Keys alone work at 80×24.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from rich.syntax import Syntax
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import (
    Input,
    OptionList,
    Static,
    TabbedContent,
    TabPane,
    Tabs,
    Tree,
)
from textual.widgets.option_list import Option
from textual.widgets.tree import TreeNode

from tui.eggs.boot_rows import EggPromise
from tui.eggs.egg_report import CONTAINER_CHECKS, Check, EggReport
from tui.eggs.entry_pages import EntryPages
from tui.eggs.legacy import read_entry
from tui.eggs.legacy_zip import LEGACY_RULES, LegacyFormatError
from tui.eggs.nested import MEMBER_KEYS, Member, SubEgg, can_enter, members, open_egg, within
from tui.eggs.report_notes import promise_hatch_lines, report_notes
from tui.eggs.unverified import FailedEgg, banner, look_at, read_file
from tui.ui.screens.boots.entry_viewer import EntryViewer
from tui.ui.screens.boots.json_text import pretty_json, size_text
from tui.ui.screens.boots.motions import VIM_JUMPS, jump_cursor, move_cursor
from tui.ui.screens.boots.payload_view import (
    STATUS_MARKS,
    failed_files_note,
    member_prompt,
    payload_renderable,
    reproducibility_text,
)
from tui.ui.stylesheets import sheets
from tui.ui.widgets.key_bar import KeyBar
from tui.ui.widgets.panes import LatestTabbedContent
from tui.ui.widgets.text import copy, pack_texts
from tui.untrusted import clean_line

__all__ = [
    "PANES",
    "VIM_JUMPS",
    "EggInspectorScreen",
    "EntryViewer",
    "hatch_lines",
    "jump_cursor",
    "move_cursor",
]

PANES: tuple[tuple[str, str], ...] = (
    ("report", "Report"),
    ("manifest", "Manifest"),
    ("files", "Files"),
    ("viewer", "Viewer"),
    ("payload", "Payload"),
    ("hatch", "Hatch"),
)
_OPEN_FOLDER_UP_TO = 64  # entries under a folder shown open at first
_CONTENTS_SHOWN = 200  # a manifest's contents (path and hash) are listed up to this many items
LEGACY_CONTAINER = frozenset(LEGACY_RULES)
_HASH_MARK = {True: ("✓", "green"), False: ("✗", "bold red"), None: ("·", "dim")}
_STATUS_OK = {"matches": True, "differs": False}
_MARK = {"pass": ("✓", "green"), "fail": ("✗", "bold red"), "skip": ("–", "dim")}


def _check_prompt(position: int, check: Check, first_failure: bool) -> Text:
    mark, style = _MARK[check.status]
    text = Text(f"{position:>2} ", style="dim")
    text.append(f"{mark} {check.status:<4} ", style=style)
    text.append(check.name, style="bold red" if first_failure else "")
    if first_failure:
        text.append("  ◀ first failure", style="bold red")
    return text


def summary_text(report: EggReport | None, width: int | None = None) -> Text:
    """The line over the panes: verified, or which check failed first; within ``width`` its
    parts go to the next line whole rather than be cut (None: one line)."""
    if report is None:
        return Text("verifying…", style="dim")
    tail = [Text(size_text(report.size)), Text(f"sha256 {(report.sha256 or '?')[:12]}…")]
    failure = report.first_failure
    passed = sum(1 for c in report.checks if c.status == "pass")
    if failure is None and report.legacy:
        parts = [Text(report.kind, style="bold yellow"), Text(f"{passed} checks pass"), *tail]
    elif failure is None:
        packaging = [Text("not byte-reproducible")] if report.reproducibility else []
        parts = [Text.assemble(("VERIFIED", "bold green"), f" {passed} checks pass"), *packaging]
        parts += tail
    else:
        position, check = failure
        lead = Text.assemble(("FAILED", "bold red"), f" at check {position}: {check.name}")
        parts = [lead, *tail]
    return pack_texts(parts, width)


def hatch_lines(record: EggPromise | None, payload: Any) -> list[tuple[str, str]]:
    """``(label, value)`` pairs of what hatching would do, from the record (a boot record, or a
    store's rapplication: what the store says installing it does) and the payload.

    Values are raw (copied as they are by ``y``); the screen cleans them for drawing.
    """
    lines = promise_hatch_lines(record)
    if isinstance(payload, dict):
        brainstem = payload.get("brainstem")
        if isinstance(brainstem, dict):
            for key in ("installer", "min_version", "soul"):
                if isinstance(brainstem.get(key), str):
                    lines.append((f"payload {key}", brainstem[key]))
        if isinstance(payload.get("hatch"), str):
            lines.append(("payload hatch", payload["hatch"]))
    if not lines:
        lines.append(
            ("hatch", "no record and no seed-boot payload: nothing says what hatching does")
        )
    return lines


def _variant(manifest: Any) -> Any:
    return manifest.get("variant") if isinstance(manifest, dict) else None


@dataclass
class _Entry:
    name: str
    size: int
    data_offset: int
    hash_ok: bool | None
    status: str | None = None  # a failed egg's file: matches, differs, missing, extra, …


@dataclass
class _Folder:
    """A folder of the file tree: its sub-folders, its entries, and how many entries in all."""

    folders: dict[str, _Folder] = field(default_factory=dict)
    children: list[_Entry | str] = field(default_factory=list)  # entries and folder names, in order
    total: int = 0
    filled: bool = False


class EggInspectorScreen(Screen[None]):
    """Inspect one egg and its report (judged by :func:`tui.eggs.pipeline.check_egg` before
    the inspector opens). ``escape`` returns to the screen that pushed this one."""

    CSS_PATH = sheets("widgets", "boots")
    AUTO_FOCUS = None
    TAB_TITLE = "Egg inspector"  # help's first section
    SHOWS_IN_HELP = True  # help lists this screen's keys, not those of the tab under it
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("tab", "pane(1)", "Next pane", priority=True, id="inspector.pane-next"),
        Binding(
            "shift+tab",
            "pane(-1)",
            "Prev pane",
            show=False,
            priority=True,
            id="inspector.pane-prev",
        ),
        Binding("j", "cursor(1)", "Down", show=False, id="inspector.cursor-next"),
        Binding("k", "cursor(-1)", "Up", show=False, id="inspector.cursor-prev"),
        Binding("slash", "search", "Search", key_display="/", id="inspector.search"),
        Binding("n", "next_match", "Next match", show=False, id="inspector.next-match"),
        Binding("N", "previous_match", "Previous match", show=False, id="inspector.prev-match"),
        Binding(
            "right_square_bracket", "page(1)", "Page", key_display="]", id="inspector.page-next"
        ),
        Binding(
            "left_square_bracket",
            "page(-1)",
            "Prev page",
            show=False,
            key_display="[",
            id="inspector.page-prev",
        ),
        Binding("x", "hex", "Hex/text", show=False, id="inspector.hex"),
        Binding("r", "raw", "Raw/indented", show=False, id="inspector.raw"),
        Binding("y", "copy", "Copy", id="inspector.copy"),
        Binding("escape", "back", "Back", id="inspector.back"),
        *VIM_JUMPS,
    ]

    def __init__(
        self,
        egg: bytes | bytearray | memoryview | str | Path | SubEgg | None,
        record: EggPromise | None = None,
        *,
        report: EggReport,
        title: str | None = None,
        depth: int = 0,
        trail: tuple[str, ...] = (),
    ) -> None:
        super().__init__(id="egg-inspector" if depth == 0 else f"egg-inspector-{depth}")
        self.egg = egg  # None: refused before a byte was kept (``report`` says why)
        self.source = open_egg(egg) if egg is not None else None
        self.record = record
        self.report: EggReport = report
        named = Path(egg).name if isinstance(egg, str | Path) else "egg"
        self.egg_title = title or (record.name if record is not None else named)
        #: how deep this egg is nested (0: the egg opened) and the eggs it is inside, outermost
        #: first: the breadcrumb back
        self.depth = depth
        self.trail = trail
        self._files_built = False
        self._entries: list[_Entry] = []
        #: a failed egg is shown unverified: what could be read of it (None while it is read)
        self.unverified = report.first_failure is not None and not report.legacy
        self.failed: FailedEgg | None = None
        self.members: list[Member] | None = None

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        title = Text.assemble(("Egg inspector", "bold"), " · ")
        for outer in self.trail:
            title.append(f"{clean_line(outer, 24)} › ", style="dim")
        title.append(clean_line(self.egg_title, 60))
        yield Static(title, id="inspector-title")
        failure = self.report.first_failure
        yield Static(Text(banner(failure[0]) if failure is not None else ""), id="inspector-banner")
        yield Static(summary_text(self.report), id="inspector-summary")
        with LatestTabbedContent(initial="report", id="inspector-panes"):
            with TabPane("Report", id="report"):
                yield OptionList(id="report-list")
                yield Static("", id="report-detail", markup=False)
                yield Static("", id="report-notes", markup=False)
            with TabPane("Manifest", id="manifest"), VerticalScroll(id="manifest-scroll"):
                yield Static("", id="manifest-body", markup=False)
            with TabPane("Files", id="files"):
                yield Static("", id="files-note")
                yield Tree(Text("egg"), id="files-tree")
            with TabPane("Viewer", id="viewer"):
                yield EntryViewer(id="entry-viewer")
            with TabPane("Payload", id="payload"):
                yield OptionList(id="members-list")
                with VerticalScroll(id="payload-scroll"):
                    yield Static("", id="payload-body", markup=False)
            with TabPane("Hatch", id="hatch"):
                yield Static(
                    Text("Shown as text; y copies the highlighted line. roost never runs it."),
                    id="hatch-note",
                )
                yield OptionList(id="hatch-list")
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one(Tree).show_root = False
        self.query_one("#inspector-banner").display = self.report.first_failure is not None
        notes = reproducibility_text(self.report)
        self.query_one("#report-notes", Static).update(notes or "")
        self.query_one("#report-notes").display = notes is not None
        self.query_one("#members-list").display = False
        self._show_report()
        self.query_one("#report-list", OptionList).focus()
        if self.unverified and self.egg is not None:
            self._look()
        elif self.report.entries and _variant(self.report.manifest) in MEMBER_KEYS:
            self._read_members()

    def on_unmount(self) -> None:
        if self.source is not None:
            self.source.close()

    # ------------------------------------------------------------------ filling the panes

    def _show_summary(self) -> None:
        summary = self.query_one("#inspector-summary", Static)
        width = summary.content_region.width or (self.size.width - 2)
        summary.update(summary_text(self.report, width if width > 0 else None))

    def on_resize(self) -> None:
        if self.report is not None:
            self._show_summary()

    def _show_report(self) -> None:
        report = self.report
        assert report is not None
        self._show_summary()
        failure = report.first_failure
        first = failure[0] if failure is not None else 0
        options = [
            Option(_check_prompt(n, check, n == first), id=check.id)
            for n, check in enumerate(report.checks, start=1)
        ]
        listing = self.query_one("#report-list", OptionList)
        listing.clear_options()
        listing.add_options(options)
        listing.highlighted = first - 1 if failure is not None else 0
        self._show_check(listing.highlighted or 0)
        manifest = report.manifest
        self.query_one("#manifest-body", Static).update(self._manifest_text(manifest))
        payload = manifest.get("payload") if isinstance(manifest, dict) else None
        if report.legacy:
            no_payload = "no payload: a legacy egg's manifest has none (see Manifest)"
        else:
            no_payload = "no payload: the manifest did not parse as an object"
        self.query_one("#payload-body", Static).update(payload_renderable(manifest, no_payload))
        self._entries = [_Entry(e.name, e.size, e.data_offset, e.hash_ok) for e in report.entries]
        hatch = self.query_one("#hatch-list", OptionList)
        hatch.clear_options()
        for label, value in hatch_lines(self.record, payload):
            prompt = Text.assemble((f"{label}: ", "bold"), clean_line(value))
            hatch.add_option(Option(prompt))
        hatch.highlighted = 0
        if self.query_one(TabbedContent).active == "files":
            self._build_files()

    def _not_read(self) -> str | None:
        """Why nothing of the egg's content is shown: refused, or a container check failed."""
        report = self.report
        if self.failed is not None and self.failed.unreadable is not None:
            return f"the container cannot be read safely ({self.failed.unreadable})"
        if self.source is None:
            failure = report.first_failure if report is not None else None
            check = f" ({failure[1].id} failed)" if failure is not None else ""
            return f"the egg was refused before it could be read{check}: no byte of it was kept"
        if report is not None and report.manifest is None:
            container = CONTAINER_CHECKS | LEGACY_CONTAINER
            failed = next(
                (c.id for c in report.checks if c.status == "fail" and c.id in container),
                None,
            )
            if failed is not None:
                return f"container check {failed} failed: nothing past it is read (see the report)"
        return None

    def _manifest_text(self, manifest: Any) -> Syntax | Text:
        if self.unverified and self.source is not None:
            return self._unverified_manifest()
        if manifest is None:
            why = self._not_read() or "the manifest did not parse (see the report)"
            return Text(f"no manifest shown: {why}")
        if not isinstance(manifest, dict):
            return Syntax(pretty_json(manifest), "json", theme="ansi_dark", word_wrap=True)
        shown = dict(manifest)
        contents = shown.get("contents")
        if isinstance(contents, list) and len(contents) > _CONTENTS_SHOWN:
            shown["contents"] = f"[{len(contents)} items: see Files]"
        address = self.report.address if self.report is not None else None
        header = (
            f"// file sha256: {self.report.sha256 if self.report else '?'}\n"
            f"// egg address (computed): {address or 'not computable'}\n"
        )
        if self.report is not None and self.report.legacy:
            header = (
                f"// file sha256: {self.report.sha256}\n"
                f"// {self.report.format}: not verifiable under RAPP/1 (no hashes, no address)\n"
            )
        return Syntax(header + pretty_json(shown), "json", theme="ansi_dark", word_wrap=True)

    def _unverified_manifest(self) -> Syntax | Text:
        """A failed egg's manifest: what the safe reader could parse, said to be unverified."""
        failed = self.failed
        if failed is None:
            return Text("reading what can be read of a failed egg…", style="dim")
        if failed.unreadable is not None or failed.manifest is None:
            why = self._not_read() or clean_line(failed.manifest_note)
            return Text(f"no manifest shown: {why}")
        header = (
            f"// UNVERIFIED: read from an egg that FAILED at check {failed.position}; "
            f"{failed.manifest_note}\n// file sha256: {self.report.sha256}\n"
        )
        return Syntax(header + pretty_json(failed.manifest), "json", theme="ansi_dark",
                      word_wrap=True)  # fmt: skip

    # ------------------------------------------------------------------ a failed egg, nested eggs

    @work(thread=True, exclusive=True, group="inspector-look")
    def _look(self) -> None:
        """What can be read of a failed egg, through the safe reader, off the event loop."""
        assert self.egg is not None
        with open_egg(self.egg) as source:
            failed = look_at(source, self.report)
        self.app.call_from_thread(self._show_failed, failed)

    def _show_failed(self, failed: FailedEgg) -> None:
        self.failed = failed
        self.query_one("#inspector-banner", Static).update(Text(failed.banner))
        self.query_one("#manifest-body", Static).update(self._unverified_manifest())
        tabbed = self.query_one(TabbedContent)
        if failed.unreadable is not None:  # the report only
            for pane in ("manifest", "files", "viewer", "payload", "hatch"):
                tabbed.disable_tab(pane)
            self._entries = []
        else:
            self._entries = [
                _Entry(f.name, f.size or 0, 0, _STATUS_OK.get(f.status), f.status)
                for f in failed.files
            ]
            no_payload = "no payload: the manifest did not parse as an object"
            self.query_one("#payload-body", Static).update(
                payload_renderable(failed.manifest, no_payload)
            )
        self._files_built = False
        self.query_one(Tree).clear()
        if tabbed.active == "files":
            self._build_files()

    @work(thread=True, exclusive=True, group="inspector-members")
    def _read_members(self) -> None:
        """A neighborhood's or estate's members, each verified one level deeper."""
        assert self.egg is not None
        with open_egg(self.egg) as source:
            found = members(source, self.report, self.depth)
        self.app.call_from_thread(self._show_members, found or [])

    def _show_members(self, found: list[Member]) -> None:
        self.members = found
        listing = self.query_one("#members-list", OptionList)
        listing.clear_options()
        enter = can_enter(self.depth)
        for index, member in enumerate(found):
            listing.add_option(Option(member_prompt(member, enter), id=f"member-{index}"))
        listing.display = bool(found)
        if found:
            listing.highlighted = 0

    @on(OptionList.OptionSelected, "#members-list")
    def _member_chosen(self, event: OptionList.OptionSelected) -> None:
        self.open_member(event.option_index)

    def open_member(self, index: int) -> bool:
        """Open member ``index`` as an egg of its own (its report and inspector, a breadcrumb
        back); False when it is not in the archive or deeper than the nesting limit."""
        if self.members is None or not 0 <= index < len(self.members) or self.egg is None:
            return False
        member = self.members[index]
        if member.report is None or member.data_offset is None or member.size is None:
            self.notify(f"{clean_line(member.name, 80)} is not in the archive",
                        severity="warning", markup=False)  # fmt: skip
            return False
        if not can_enter(self.depth):
            self.notify("deeper than the nesting limit: not opened", severity="warning",
                        markup=False)  # fmt: skip
            return False
        inner = EggInspectorScreen(
            within(self.egg, member.data_offset, member.size),
            report=member.report,
            title=member.name,
            depth=self.depth + 1,
            trail=(*self.trail, self.egg_title),
        )
        self.app.push_screen(inner)
        return True

    def _show_check(self, index: int) -> None:
        if self.report is None or not self.report.checks:
            return
        index = max(0, min(index, len(self.report.checks) - 1))
        check = self.report.checks[index]
        detail = Text.assemble(
            (f"{check.id}", "bold"), f" · {check.status}\n", clean_line(check.detail or "—")
        )
        listing = False  # the lines after a header ending in ':' are its items, indented
        for line in report_notes(self.report, packaging=False):  # those: #report-notes
            detail.append(("\n  " if listing else "\n") + clean_line(line))
            listing = listing or line.endswith(":")
        self.query_one("#report-detail", Static).update(detail)

    def _build_files(self) -> None:
        if self._files_built or self.report is None:
            return
        self._files_built = True
        root = _Folder()
        for entry in self._entries:
            *parents, _ = entry.name.split("/")
            folder = root
            root.total += 1
            for part in parents:
                if part not in folder.folders:
                    folder.folders[part] = _Folder()
                    folder.children.append(part)
                folder = folder.folders[part]
                folder.total += 1
            folder.children.append(entry)
        tree = self.query_one(Tree)
        self._fill_folder(tree.root, root)
        tree.root.expand()
        tree.cursor_line = 0
        why = self._not_read()
        note = Text("✓ hash matches the manifest · ✗ does not · · not checked", style="dim")
        if self.unverified and self.source is not None:
            note = failed_files_note(self.failed)
            why = None
        elif self.report.legacy:
            note = Text("a legacy egg: each entry's CRC-32 checked; it promises no hashes",
                        style="yellow")  # fmt: skip
        if why is not None:
            note = Text(("no files: " if not self._entries else "hashes not checked: ") + why,
                        style="yellow")  # fmt: skip
        self.query_one("#files-note", Static).update(note)

    def _fill_folder(self, node: TreeNode[Any], folder: _Folder) -> None:
        """Add ``folder``'s children under ``node``; big sub-folders stay closed and are filled
        when first opened, so an egg of thousands of entries opens its tree at once."""
        for item in folder.children:
            if isinstance(item, str):
                child = folder.folders[item]
                label = Text(clean_line(item) + "/", style="bold")
                noun = "entry" if child.total == 1 else "entries"
                label.append(f"  {child.total} {noun}", style="dim")
                small = child.total <= _OPEN_FOLDER_UP_TO
                sub = node.add(label, data=child, expand=small, allow_expand=True)
                if small:
                    self._fill_folder(sub, child)
                continue
            mark, style = _HASH_MARK[item.hash_ok]
            if item.status is not None:
                mark, style = STATUS_MARKS[item.status]
            elif self.report.legacy:
                if self.report.status_of("legacy.crc") == "pass":
                    mark, style = "crc ✓", "green"
            elif item is self._entries[0] and item.name == "manifest.json":
                mark = "manifest (hashed by the address)"
            label = Text(clean_line(item.name.rsplit("/", 1)[-1]))
            shown = "" if item.status == "missing" else size_text(item.size)
            label.append(f"  {shown} ", style="dim")
            label.append(mark, style=style)
            node.add_leaf(label, data=item)
        folder.filled = True

    @on(Tree.NodeExpanded, "#files-tree")
    def _folder_opened(self, event: Tree.NodeExpanded) -> None:
        folder = event.node.data
        if isinstance(folder, _Folder) and not folder.filled:
            self._fill_folder(event.node, folder)

    # ------------------------------------------------------------------ events

    @on(OptionList.OptionHighlighted, "#report-list")
    def _check_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self._show_check(event.option_index)

    @on(TabbedContent.TabActivated)
    def _pane_shown(self, event: TabbedContent.TabActivated) -> None:
        pane = event.pane.id
        if pane != self.current_pane():
            return  # queued behind a newer switch: focusing this pane would switch back to it
        if pane == "files":
            self._build_files()
        self._focus_pane(pane)

    @on(Tree.NodeSelected, "#files-tree")
    def _entry_chosen(self, event: Tree.NodeSelected) -> None:
        entry = event.node.data
        if isinstance(entry, _Entry):
            self.open_entry(entry.name)

    def open_entry(self, name: str) -> bool:
        """Show entry ``name`` in the viewer pane; False when the egg has no such entry."""
        entry = next((e for e in self._entries if e.name == name), None)
        if entry is None or self.source is None or self.egg is None:
            return False
        if entry.status == "missing":
            self.notify(f"{clean_line(name, 80)}: listed in the manifest, not in the archive",
                        severity="warning", markup=False)  # fmt: skip
            return False
        if entry.status is not None:  # a failed egg's file: the safe reader, in a worker
            position = self.failed.position if self.failed is not None else "?"
            self._inflate(
                self.egg,
                entry.name,
                f"UNVERIFIED: the egg FAILED at check {position}; hash {entry.status}",
                entry.hash_ok,
            )
            return True
        if self.report.legacy:  # inflated in a worker, under the caps
            self._inflate(self.egg, entry.name)
            return True
        pages = EntryPages.open(self.source, entry.name, entry.data_offset, entry.size)
        self._view(pages, entry.hash_ok)
        return True

    def _view(self, pages: EntryPages, hash_ok: bool | None, note: str = "") -> None:
        self.query_one(EntryViewer).open(pages, hash_ok, note)
        self.show_pane("viewer")

    @work(thread=True, exclusive=True, group="inspector-entry")
    def _inflate(
        self,
        egg: bytes | bytearray | memoryview | str | Path | SubEgg,
        name: str,
        note: str = "legacy egg: its CRC-32 checked, no hash promised",
        hash_ok: bool | None = None,
    ) -> None:
        """A legacy (or failed) egg's entry, read and inflated under the caps, off the event
        loop, by the one safe reader."""
        try:
            with open_egg(egg) as source:
                data = read_file(source, name) if self.unverified else read_entry(source, name)
        except (LegacyFormatError, KeyError, OSError) as exc:
            self.app.call_from_thread(
                self.notify, clean_line(f"{name}: {exc}", 300), severity="error", markup=False
            )
            return
        pages = EntryPages.of_bytes(name, data)
        self.app.call_from_thread(self._view, pages, hash_ok, note)

    @on(Input.Submitted, "#viewer-search")
    def _search_submitted(self, event: Input.Submitted) -> None:
        viewer = self.query_one(EntryViewer)
        if not viewer.search(event.value):
            self.notify("No match in this entry", severity="warning", markup=False)
        event.input.display = False
        viewer.scroll.focus()

    # ------------------------------------------------------------------ actions

    def _focus_pane(self, pane: str | None) -> None:
        target = {
            "report": "#report-list",
            "manifest": "#manifest-scroll",
            "files": "#files-tree",
            "viewer": "#viewer-scroll",
            "payload": "#members-list" if self.members else "#payload-scroll",
            "hatch": "#hatch-list",
        }.get(pane or "")
        if target:
            self.query_one(target).focus()

    def show_pane(self, pane: str) -> None:
        """Switch panes through the tab strip, as a click does, so keys and clicks take one path
        (a stale switch of the strip cannot undo a newer one: tui/ui/widgets/panes.py)."""
        tabbed = self.query_one(TabbedContent)
        tabbed.query_one(Tabs).active = tabbed.get_tab(pane).id or ""

    def current_pane(self) -> str:
        """The pane last asked for (key or click), even before the switch has been shown."""
        tabbed = self.query_one(TabbedContent)
        active = tabbed.query_one(Tabs).active
        return next((p for p, _ in PANES if tabbed.get_tab(p).id == active), tabbed.active)

    def action_pane(self, delta: int) -> None:
        if self.query_one("#viewer-search", Input).has_focus:
            return
        tabbed = self.query_one(TabbedContent)
        ids = [pane for pane, _ in PANES]
        at = ids.index(self.current_pane())
        for step in range(1, len(ids)):
            pane = ids[(at + delta * step) % len(ids)]
            if not tabbed.get_tab(pane).disabled:
                self.show_pane(pane)
                return

    def action_cursor(self, delta: int) -> None:
        move_cursor(self.focused, delta)

    def action_search(self) -> None:
        viewer = self.query_one(EntryViewer)
        if viewer.pages is None:
            self.notify("Open an entry first (Files, enter)", severity="warning", markup=False)
            return
        self.show_pane("viewer")
        search = self.query_one("#viewer-search", Input)
        search.display = True
        search.value = viewer.needle
        search.focus()

    def action_next_match(self) -> None:
        viewer = self.query_one(EntryViewer)
        if viewer.needle and not viewer.search(viewer.needle, next_match=True):
            self.notify("No match in this entry", severity="warning", markup=False)

    def action_previous_match(self) -> None:
        viewer = self.query_one(EntryViewer)
        if viewer.needle and not viewer.search(viewer.needle, previous=True):
            self.notify("No match in this entry", severity="warning", markup=False)

    def action_jump(self, where: str) -> None:
        jump_cursor(self.focused, where)

    def action_page(self, delta: int) -> None:
        if self.query_one(TabbedContent).active == "viewer":
            self.query_one(EntryViewer).turn(delta)

    def action_hex(self) -> None:
        if self.query_one(TabbedContent).active == "viewer":
            self.query_one(EntryViewer).toggle_hex()

    def action_raw(self) -> None:
        """A JSON entry: its own bytes, or indented again."""
        if self.query_one(TabbedContent).active == "viewer" and not (
            self.query_one(EntryViewer).toggle_raw()
        ):
            self.notify("Only a JSON entry has another form", severity="warning", markup=False)

    def copy_text(self) -> str | None:
        """What ``y`` copies on the current pane (raw value; the clipboard is not a terminal)."""
        active = self.query_one(TabbedContent).active
        if active == "report" and self.report is not None:
            index = self.query_one("#report-list", OptionList).highlighted
            if index is not None and index < len(self.report.checks):
                check = self.report.checks[index]
                return f"{check.id} {check.status}: {check.detail}"
        if active == "hatch":
            index = self.query_one("#hatch-list", OptionList).highlighted
            lines = hatch_lines(self.record, self._payload())
            if index is not None and index < len(lines):
                return lines[index][1]
        if active == "files":
            node = self.query_one(Tree).cursor_node
            if node is not None and isinstance(node.data, _Entry):
                return node.data.name
        if active == "viewer":
            pages = self.query_one(EntryViewer).pages
            return pages.name if pages is not None else None
        if active == "manifest" and self.report is not None:
            return self.report.address
        return None

    def _payload(self) -> Any:
        manifest = self.report.manifest if self.report is not None else None
        return manifest.get("payload") if isinstance(manifest, dict) else None

    def action_copy(self) -> None:
        text = self.copy_text()
        if not text:
            self.notify("Nothing selected to copy", severity="warning", markup=False)
            return
        copy(self, text)

    def action_back(self) -> None:
        search = self.query_one("#viewer-search", Input)
        viewer = self.query_one(EntryViewer)
        if search.display:
            search.display = False
            viewer.clear_search()
            viewer.scroll.focus()
            return
        tabbed = self.query_one(TabbedContent)
        if tabbed.active == "viewer":
            if viewer.needle:  # first escape: the search goes, the entry's colours come back
                viewer.clear_search()
                return
            self.show_pane("files")
            return
        self.dismiss(None)
