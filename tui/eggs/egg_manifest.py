"""The egg manifest (``rapp/1-egg``) as a typed model for screens and the CLI.

The verifier checks the raw parsed manifest rule by rule (so each rule has its own line in the
report); this model is what the rest of roost reads once a manifest passed those checks, and
it refuses anything the rules refuse.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StrictStr

from tui.eggs import rapp
from tui.eggs.boot_record import Hex64, Rappid, Utc

__all__ = ["ContentItem", "EggManifest", "parse_manifest"]


def _path(value: str) -> str:
    problem = rapp.path_problem(value)
    if problem is not None:
        raise ValueError(f"invalid packed path: {problem}")
    return value


def _sig(value: str | None) -> str | None:
    problem = rapp.sig_problem(value)
    if problem is not None:
        raise ValueError(problem)
    return value


class ContentItem(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    path: Annotated[StrictStr, AfterValidator(_path)]
    hash: Hex64


class EggManifest(BaseModel):
    """Exactly the seven members; ``payload`` stays the variant's raw JSON object."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    schema_: Literal["rapp/1-egg"] = Field(alias="schema")
    variant: Literal[
        "organism", "rapplication", "session", "invite", "neighborhood", "estate", "sealed"
    ]
    rappid: Rappid
    created_utc: Utc
    contents: list[ContentItem]
    payload: dict[str, Any]
    sig: Annotated[StrictStr | None, AfterValidator(_sig)]

    @property
    def address(self) -> str:
        """The egg address (§3), the same value a boot record's ``egg.address`` must hold."""
        return rapp.egg_address(self.as_value())

    @property
    def payload_kind(self) -> str | None:
        kind = self.payload.get("kind")
        return kind if isinstance(kind, str) else None

    def as_value(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True)


def parse_manifest(value: Any) -> EggManifest:
    """Validate a parsed manifest value (raises :class:`pydantic.ValidationError`)."""
    return EggManifest.model_validate(value)
