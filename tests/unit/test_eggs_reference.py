"""roost agrees with the RAPP/1 reference consumer on eggs its producer's rules pack.

Both directions: every variant packed as the reference packs it verifies (its "not
byte-reproducible" notes aside), and every change the reference's ``verify_egg`` refuses fails
roost at the matching named check. With ``ROOST_RAPP_REFERENCE`` naming a copy of the
reference's ``rapp.py`` the same corpus is also put to the reference itself (skipped without).
"""

from __future__ import annotations

import importlib.util
import io
import os
import warnings
import zipfile
from pathlib import Path

import pytest

from tests.reference_eggs import MUTATIONS, ORGANISMS, Mutation, corpus, member_name
from tui.eggs.egg_report import CONTAINER_CHECKS
from tui.eggs.verify import verify_egg


@pytest.fixture(scope="module")
def eggs() -> dict[str, bytes]:
    return corpus()


def ascii_entries(egg: bytes) -> list[str]:
    """The entries of a ZIP egg ``zipfile`` wrote without the UTF-8 flag (its ASCII names)."""
    with zipfile.ZipFile(io.BytesIO(egg)) as archive:
        return [i.filename for i in archive.infolist() if not i.flag_bits & 0x800]


@pytest.mark.parametrize(
    "variant", ["organism", "rapplication", "session", "neighborhood", "estate"]
)
def test_every_variant_packed_by_the_reference_verifies(eggs, variant):
    egg = eggs[variant]
    report = verify_egg(egg)
    assert report.verified, report.first_failure
    notes = report.reproducibility
    if egg[:2] != b"PK":
        assert notes == ()
        return
    own = [n for n in notes if ":" not in n.entry]
    assert [n.entry for n in own] == ascii_entries(egg)
    assert {n.rule for n in notes} == {"zip.utf8-flag"}
    assert all(n.detail == "flags 0x0000: the UTF-8 flag is unset" for n in notes)
    assert report.as_json()["byte_reproducible"] is False


def test_the_non_ascii_name_carries_its_flag_and_no_note(eggs):
    report = verify_egg(eggs["organism"])
    assert "docs/caf\u00e9.md" not in {n.entry for n in report.reproducibility}
    assert report.entry("docs/caf\u00e9.md") is not None


def test_a_signed_invite_passes_everything_but_the_signature_it_has_no_key_for(eggs):
    """The reference refuses a signed egg without a trusted verifier too (§10)."""
    report = verify_egg(eggs["invite"])
    assert report.failed() == ["signature"]
    assert "no key" in report.by_id("signature").detail


def test_member_eggs_notes_are_named_through_their_member(eggs):
    report = verify_egg(eggs["neighborhood"])
    member = member_name(ORGANISMS[0])
    assert f"{member}:soul.md" in {n.entry for n in report.reproducibility}
    estate = verify_egg(eggs["estate"])
    assert any(n.entry.count(":") == 2 for n in estate.reproducibility)  # two levels down


@pytest.mark.parametrize("mutation", MUTATIONS, ids=lambda m: m.name)
def test_a_change_the_reference_refuses_fails_roost_at_the_matching_check(mutation: Mutation):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # zipfile warns of a duplicate name
        egg = mutation.build()
    report = verify_egg(egg)
    failure = report.first_failure
    assert failure is not None, mutation.name
    assert failure[1].id == mutation.check, (mutation.name, failure[1])


def test_roost_is_stricter_than_the_reference_only_on_container_checks():
    """Where roost's check is not the reference's own step, it is a container rule (named in
    docs/eggs.md); everywhere else the step and the check are the same rule."""
    same_rule = {
        "§5": {"integrity"},
        "§6.1": {"manifest.rappid"},
        "§7.4": {"manifest.utc"},
        "§9.1": {"manifest.members", "manifest.schema", "manifest.sorted", "manifest.container"},
        "§9.2": {"manifest.variant", "viability"},
        "parse": set(),
    }
    for mutation in MUTATIONS:
        rules = set().union(*(same_rule[step] for step in mutation.step.split("/")))
        assert mutation.check in rules | CONTAINER_CHECKS, mutation.name


def _reference():
    path = os.environ.get("ROOST_RAPP_REFERENCE")
    if not path or not Path(path).is_file():
        pytest.skip("ROOST_RAPP_REFERENCE does not name a copy of the reference's rapp.py")
    spec = importlib.util.spec_from_file_location("rapp_reference", path)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def test_the_reference_accepts_the_corpus(eggs):
    reference = _reference()
    for variant, egg in eggs.items():
        ok, step, why = reference.verify_egg(egg)
        assert ok or (variant == "invite" and step == "§10"), (variant, step, why)


@pytest.mark.parametrize("mutation", MUTATIONS, ids=lambda m: m.name)
def test_the_reference_refuses_each_mutation_at_its_step(mutation: Mutation):
    reference = _reference()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        egg = mutation.build()
    ok, step, why = reference.verify_egg(egg)
    if mutation.newer and ok:
        pytest.skip(f"this copy of the reference predates the rule ({mutation.name})")
    assert not ok, mutation.name
    assert step in mutation.step.split("/"), (mutation.name, step, why)
