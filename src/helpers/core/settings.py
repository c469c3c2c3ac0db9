"""What the command line decides for a run, and a parameter file cannot (issue 64 item 2): whether the run is offline
(a model whose ``api_base`` is another machine is refused), whether its outputs may lie outside the project's
``results/``, and whether model-written code may be graded without a kernel boundary.

The command line makes one ``RunSettings`` (its flags, and the user's own switches ``COP_OFFLINE=1`` and
``COP_WRITE_ANYWHERE=1``, read here and nowhere else) and hands it to every stage as a papermill parameter
(``settings``), so each executed notebook shows what it ran under; ``Params.settings`` carries it to the code that
uses it (``params.check_confined``, ``collect.preflight``, the grading stage). Consent to grade without a boundary
comes from the command line's ``--unisolated-grading`` alone, never from the environment.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, fields, replace

from helpers.core.errors import CostOfPassError
from helpers.core.shards import Shard

OFFLINE_ENV = "COP_OFFLINE"  # "1": the user's switch for --offline
WRITE_ANYWHERE_ENV = "COP_WRITE_ANYWHERE"  # "1": the user's switch for --write-anywhere


@dataclass(frozen=True)
class RunSettings:
    """``offline``: refuse a model whose API is another machine; ``write_anywhere``: a set's ``output_dir`` may lie
    outside ``results/``; ``unisolated_grading``: grade model-written code without a kernel boundary where none
    works (the program can then read and change this machine); ``batch``: send the calls through the providers' batch
    APIs whatever the set's ``collection.mode`` (``cost-of-pass run --batch``); ``shard``: ``i/N`` to collect and grade
    only shard i of N of the set's attempts (``cost-of-pass run --shard``, ``core.shards``), empty for all of them."""

    offline: bool = False
    write_anywhere: bool = False
    unisolated_grading: bool = False
    batch: bool = False
    shard: str = ""

    @property
    def part(self) -> Shard | None:
        """The shard this run collects and grades (``core.shards.Shard``), None for the whole set."""
        return Shard.parse(self.shard) if self.shard else None

    @classmethod
    def from_environment(cls) -> RunSettings:
        """The user's own switches (``COP_OFFLINE=1``, ``COP_WRITE_ANYWHERE=1``); never consent to grade without a
        boundary, which only the command line gives."""
        return cls(offline=os.environ.get(OFFLINE_ENV) == "1",
                   write_anywhere=os.environ.get(WRITE_ANYWHERE_ENV) == "1")

    def allowing(self, offline: bool = False, write_anywhere: bool = False, unisolated_grading: bool = False,
                 batch: bool = False, shard: str = "") -> RunSettings:
        """These settings with the command line's flags added (a flag only ever allows or restricts more); ``shard``
        is checked here (one line when it is not ``i/N``)."""
        if shard:
            shard = Shard.parse(shard).text
        return replace(self, offline=self.offline or offline, write_anywhere=self.write_anywhere or write_anywhere,
                       unisolated_grading=self.unisolated_grading or unisolated_grading, batch=self.batch or batch,
                       shard=shard or self.shard)

    def parameter(self) -> dict[str, bool | str]:
        """The papermill parameter ``settings`` (plain JSON; ``shard`` only in a shard's run)."""
        return {k: v for k, v in asdict(self).items() if k != "shard" or v}

    @classmethod
    def from_parameter(cls, value: object) -> RunSettings:
        """The ``settings`` a stage was given (``parameter``'s form); one line where it is not that form."""
        names = {f.name for f in fields(cls)}
        if not isinstance(value, dict) or set(value) - names or not all(
                isinstance(v, str if k == "shard" else bool) for k, v in value.items()):
            raise CostOfPassError(f"the run's settings must be a mapping of {', '.join(sorted(names))} to true/false "
                                  f"(shard: 'i/N' or '') (the command line sets them), got {value!r}")
        if value.get("shard"):
            Shard.parse(value["shard"])  # one line when it is not i/N
        return cls(**value)
