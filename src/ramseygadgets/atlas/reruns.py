"""``atlas adopt LOG --rerun-log DIR``: a proof's re-run taken from a re-run log, not run here.

:mod:`ramseygadgets.search.reruns` re-runs a proof's none-cubes in resumable sittings, one
logged record per cube.  :class:`LoggedRecheck` is the :class:`~.adopt.CubeRecheck` that
``adopt`` then uses: instead of searching a sample of the cubes again in this process, it
reads which of the proof's cubes the re-run logs searched again and found none
(:func:`~ramseygadgets.search.reruns.logged_rerun`, the configurations with them), so the fact
says "all re-run (agree)" once every cube has a record — and how many otherwise.  A re-run
record that found a solution refuses the log.  The re-run logs are read, never trusted for
more than they say: each record names its cube, which must be one of the proof's.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ramseygadgets.atlas.adopt import CubeRecheck
from ramseygadgets.search.cubeproof import CubeProof, Rerun
from ramseygadgets.search.reruns import LoggedRerun, logged_rerun

__all__ = ["LoggedRecheck"]


@dataclass(frozen=True)
class LoggedRecheck(CubeRecheck):
    """Re-runs read from the re-run logs ``logs`` (files or their directories); of several
    logs, the one that re-ran most of a proof's cubes is taken."""

    share: float = 1.0
    logs: tuple[Path, ...] = ()

    def rerun(self, proof: CubeProof, where: str | Path, what: str) -> Rerun:
        best: LoggedRerun | None = None
        for log in self.logs:
            found = logged_rerun(proof, Path(log))
            if best is None or found.count > best.count:
                best = found
        if self.progress is not None and best is not None:
            self.progress(what, best.count, proof.cubes)
        return best if best is not None else Rerun(proof.cubes, {})
