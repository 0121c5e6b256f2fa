"""Statistics of run sets (the numbers of ``results.json`` and of the reports): accuracy per run, mean ± standard deviation, pass@k, token averages,
outcome counts and bootstrap confidence intervals.

Definitions (all for one model and one setting, a :class:`Cell`):

* The **expected sample set** E is every (problem, run) the sources meant to produce.  A sample
  that is absent (the run did not finish) is *missing*; it counts as not solved.  Accuracy of
  run r is ``acc_r = #{p : (p, r) ∈ E, sample correct} / #{p : (p, r) ∈ E}``, so every run is
  scored over the same problems whether or not it finished.
* **Mean accuracy** is the mean of ``acc_r`` over the runs; the **standard deviation** is the
  sample standard deviation over runs (ddof = 1, i.e. divided by R − 1); undefined for one run.
* **Pass@k with k = R** (the paper's Pass@5): the fraction of problems solved in at least one run.
* **Unbiased pass@k** for k < R (Chen et al. 2021): per problem with n expected samples of which
  c are correct, ``1 − C(n − c, k) / C(n, k)``, averaged over problems (problems with n < k
  are left out).  pass@1 equals the mean accuracy when every problem has R samples.
* **Average total tokens**: the mean of ``usage.total_tokens`` over the samples obtained (no
  backend error) that report it (a count of 0, as the reference solver records, is no report).
* **Outcomes** (mutually exclusive): correct, wrong (parsed, verifier said no), parse-failure,
  truncated (finish_reason ``length`` and not correct), error (backend error), missing.
* **Accuracy without truncated samples**: as above with every sample whose finish_reason is
  ``length`` removed from E (correct or not).
* **95 % confidence intervals**: percentile bootstrap over problems: B resamples of the problem
  set with replacement (numpy ``default_rng(seed)``, a fresh generator per cell so the result
  does not depend on the order cells are computed in), recomputing the statistic each time;
  the interval is the 2.5th and 97.5th percentile.
* **Grades by distance to the optimum** (:class:`SizeStats`, :mod:`.sizes`): over the correct
  samples *graded* against an optimum (the denominator, stated with every rate; an optimum
  whose edge count is unproven or whose vertex bound holds only as far as a cube log does
  counts too, nothing is left out silently), the **minimal rate** (share *fully* minimal,
  :attr:`.sizes.SizeGrade.minimality`: an answer on the vertex optimum whose optimum is not
  proven in full is "minimal in vertices", counted apart and never as minimal; its interval the
  same bootstrap over problems, of the pooled ratio) and the **mean excess** vertices (over the
  graded) and edges (over those with a proven edge count).  A cell with no graded sample (no
  optimum, or an old run folder) has ``None``, never 0.
* **Fresh against benchmark** (:func:`accuracy_gap`): benchmark mean accuracy − fresh mean
  accuracy; its interval bootstraps the two problem sets independently (seeds ``seed`` and
  ``seed + 1``) and takes the percentiles of the differences.
* A run of fresh problems (``problem_set`` ``fresh``, ``eval --fresh``) is its own cell, labelled
  ``<label> [fresh]`` (:data:`FRESH_SUFFIX`): it is never pooled with the benchmark's runs.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache, lru_cache
from typing import Any

import numpy as np

from ramseygadgets.core.errors import RamseyGadgetsError
from ramseygadgets.problems.catalog import all_problems, find_problem
from ramseygadgets.problems.solutions import get_solution
from ramseygadgets.runs.samples import (
    OUTCOMES,
    Run,
    Sample,
    problem_colors,
    problem_gadget,
    problem_pair,
    problem_tier,
    setting_sort_key,
)

__all__ = [
    "BOOTSTRAP_RESAMPLES",
    "BOOTSTRAP_SEED",
    "FRESH_SUFFIX",
    "Cell",
    "CellStats",
    "Interval",
    "ProblemInfo",
    "SizeStats",
    "accuracy_gap",
    "bootstrap_accuracy_draws",
    "bootstrap_mean",
    "bootstrap_mean_accuracy",
    "bootstrap_ratio",
    "build_cells",
    "cell_stats",
    "fresh_label",
    "mean",
    "order_models",
    "pass_at_k",
    "problem_info",
    "problem_sort_key",
    "row_label",
    "sample_std",
    "shipped_min_vertices",
    "size_stats",
]

#: Default bootstrap resamples and seed.
BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 0
#: Appended to the model label of a cell of fresh problems.
FRESH_SUFFIX = " [fresh]"


# ---------------------------------------------------------------------------------------------
# Elementary statistics
# ---------------------------------------------------------------------------------------------
def mean(values: Sequence[float]) -> float:
    if not values:
        raise ValueError("mean of no values")
    return sum(values) / len(values)


def sample_std(values: Sequence[float]) -> float | None:
    """Sample standard deviation (ddof = 1); ``None`` for fewer than two values."""
    if len(values) < 2:
        return None
    mu = mean(values)
    return math.sqrt(sum((x - mu) ** 2 for x in values) / (len(values) - 1))


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased estimator of pass@k from n samples with c correct: ``1 − C(n−c, k) / C(n, k)``."""
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"pass@k needs 0 <= c <= n and 1 <= k <= n, got n={n}, c={c}, k={k}")
    if n - c < k:
        return 1.0
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


# ---------------------------------------------------------------------------------------------
# Problem metadata
# ---------------------------------------------------------------------------------------------
@cache
def shipped_min_vertices(problem_id: str) -> int | None:
    """The shipped minimal solution's vertex count, or ``None`` when there is none."""
    if find_problem(problem_id) is None:
        return None
    try:
        return get_solution(problem_id).n
    except (RamseyGadgetsError, KeyError, ValueError, OSError):
        return None


@lru_cache(maxsize=1)
def _catalog_order() -> dict[str, int]:
    return {p.id: i for i, p in enumerate(all_problems())}


def problem_sort_key(problem_id: str) -> tuple[int, str]:
    return (_catalog_order().get(problem_id, len(_catalog_order())), problem_id)


@dataclass(frozen=True)
class ProblemInfo:
    problem_id: str
    tier: str
    gadget: str
    pair: str
    min_vertices: int | None
    colors: int = 2


def problem_info(problem_id: str, samples: Iterable[Sample] = ()) -> ProblemInfo:
    """Tier, gadget, pair and minimal size: the samples' fields first, then the catalog and the
    shipped solutions."""
    tier = gadget = None
    min_vertices = None
    for s in samples:
        tier, gadget = tier or s.tier, gadget or s.gadget
        if min_vertices is None:
            min_vertices = s.min_vertices
    if min_vertices is None:
        min_vertices = shipped_min_vertices(problem_id)
    return ProblemInfo(
        problem_id,
        tier or problem_tier(problem_id),
        gadget or problem_gadget(problem_id),
        problem_pair(problem_id),
        min_vertices,
        problem_colors(problem_id),
    )


# ---------------------------------------------------------------------------------------------
# Cells: one model, one setting
# ---------------------------------------------------------------------------------------------
def fresh_label(label: str) -> str:
    """The model label of a cell of fresh problems."""
    return label + FRESH_SUFFIX


def row_label(run: Run) -> str:
    """The model label a run's cells get: its label, its problem set's tag where one label has
    runs of several problem sets (``alpha [extended]``), and :data:`FRESH_SUFFIX` for fresh
    problems."""
    label = f"{run.label} [{run.set_tag}]" if run.set_tag else run.label
    return fresh_label(label) if run.fresh else label


@dataclass
class Cell:
    """All samples of one model label and one setting, combined over sources.

    ``expected`` holds (problem, run) pairs; ``samples`` maps the present ones to their sample.
    ``fresh``: the cell holds runs of fresh problems (its ``model`` ends in :data:`FRESH_SUFFIX`);
    ``configs``: the sources' ``config.json`` objects, in the order of ``sources``.
    """

    model: str
    setting: str
    expected: set[tuple[str, int]] = field(default_factory=set)
    samples: dict[tuple[str, int], Sample] = field(default_factory=dict)
    sources: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    fresh: bool = False
    configs: list[dict[str, Any]] = field(default_factory=list)

    @property
    def label(self) -> str:
        """The runs' model label (without :data:`FRESH_SUFFIX`)."""
        return self.model.removesuffix(FRESH_SUFFIX) if self.fresh else self.model

    def _empty(self) -> Cell:
        return Cell(
            self.model,
            self.setting,
            sources=list(self.sources),
            notes=list(self.notes),
            fresh=self.fresh,
            configs=list(self.configs),
        )

    @property
    def problems(self) -> list[str]:
        return sorted({p for p, _ in self.expected}, key=problem_sort_key)

    @property
    def run_ids(self) -> list[int]:
        return sorted({r for _, r in self.expected})

    def keys_by_problem(self) -> dict[str, list[tuple[str, int]]]:
        """The expected ``(problem, run)`` keys grouped by problem, runs in increasing order."""
        grouped: dict[str, list[tuple[str, int]]] = {}
        for key in sorted(self.expected):
            grouped.setdefault(key[0], []).append(key)
        return grouped

    def restrict(self, problems: Iterable[str]) -> Cell:
        keep = set(problems)
        part = self._empty()
        part.expected = {k for k in self.expected if k[0] in keep}
        part.samples = {k: s for k, s in self.samples.items() if k[0] in keep}
        return part

    def partition(self, group_of: Mapping[str, object]) -> dict[object, Cell]:
        """The cell split by ``group_of[problem]`` into sub-cells, in one pass over its keys."""
        parts: dict[object, Cell] = {}
        for key in self.expected:
            group = group_of[key[0]]
            part = parts.get(group)
            if part is None:
                part = parts[group] = self._empty()
            part.expected.add(key)
            sample = self.samples.get(key)
            if sample is not None:
                part.samples[key] = sample
        return parts

    def infos(self) -> dict[str, ProblemInfo]:
        by_problem: dict[str, list[Sample]] = {}
        for (p, _), s in self.samples.items():
            by_problem.setdefault(p, []).append(s)
        return {p: problem_info(p, by_problem.get(p, ())) for p in self.problems}


def build_cells(runs: Sequence[Run]) -> list[Cell]:
    """Combine sources per (model label, setting).

    A source whose problems for a setting are disjoint from those already collected is joined run
    by run (run i with run i: e.g. one directory per tier).  A source that overlaps is stacked as
    further runs (its run indices offset by the runs already collected: e.g. one directory per
    repetition).  Runs of fresh problems make cells of their own (:func:`fresh_label`), and so do
    runs of another problem set under the same label (:func:`row_label`).
    """
    cells: dict[tuple[str, str, bool], Cell] = {}
    for run in runs:
        model = row_label(run)
        expected = run.expected_keys()
        by_setting: dict[str, set[tuple[str, int]]] = {}
        for p, s, r in expected:
            by_setting.setdefault(s, set()).add((p, r))
        present = {s.key: s for s in run.samples}
        for setting, keys in by_setting.items():
            cell = cells.setdefault(
                (model, setting, run.fresh), Cell(model, setting, fresh=run.fresh)
            )
            problems = {p for p, _ in keys}
            offset = 0
            if problems & {p for p, _ in cell.expected}:
                offset = max(cell.run_ids) + 1
                cell.notes.append(
                    f"{run.source or run.label}: runs stacked after the {offset} already read"
                )
            for p, r in keys:
                cell.expected.add((p, r + offset))
                sample = present.get((p, setting, r))
                if sample is not None:
                    cell.samples[(p, r + offset)] = sample
            cell.sources.append(run.source)
            cell.configs.append(run.config)
    return sorted(cells.values(), key=lambda c: (c.model, setting_sort_key(c.setting)))


def order_models(cells: Iterable[Cell]) -> list[str]:
    return list(dict.fromkeys(c.model for c in sorted(cells, key=lambda c: c.model)))


# ---------------------------------------------------------------------------------------------
# Statistics of a cell
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Interval:
    low: float
    high: float


@dataclass(frozen=True)
class SizeStats:
    """Grades by distance to the optimum over a cell's correct samples (module docstring).

    ``graded``: the correct samples with an optimum (not disputed) and a known size, whatever is
    known of its edge count (the denominator of ``minimal_rate`` and of the vertex mean);
    ``minimal``: those *fully* minimal (:attr:`.sizes.SizeGrade.minimality`);
    ``minimal_in_vertices``: those on the optimum's vertex count whose optimum is not proven in
    full (counted in ``graded``, never in ``minimal``); ``edges_graded``: those with a proven
    edge count (the denominator of ``mean_excess_edges``); ``excess_vertices``: how many graded
    samples have each excess vertex count.
    """

    correct: int = 0
    graded: int = 0
    minimal: int = 0
    minimal_rate: float | None = None
    minimal_ci: Interval | None = None
    mean_excess_vertices: float | None = None
    mean_excess_edges: float | None = None
    excess_vertices: dict[int, int] = field(default_factory=dict)
    minimal_in_vertices: int = 0
    edges_graded: int = 0


@dataclass(frozen=True)
class CellStats:
    """Every number the tables show for one cell (fractions in [0, 1])."""

    model: str
    setting: str
    problems: int
    runs: int
    expected: int
    present: int
    run_accuracies: tuple[float, ...]
    mean: float | None
    std: float | None
    mean_ci: Interval | None
    pass_at_runs: float | None
    pass_ci: Interval | None
    pass_at: dict[int, float]
    avg_tokens: float | None
    token_samples: int
    outcomes: dict[str, int]
    mean_without_truncated: float | None
    sizes: SizeStats = field(default_factory=SizeStats)

    @property
    def missing(self) -> int:
        return self.outcomes.get("missing", 0)


def _matrices(
    cell: Cell, exclude: Callable[[Sample], bool] | None = None
) -> tuple[list[str], list[int], np.ndarray, np.ndarray]:
    problems, run_ids = cell.problems, cell.run_ids
    pi = {p: i for i, p in enumerate(problems)}
    ri = {r: j for j, r in enumerate(run_ids)}
    correct = np.zeros((len(problems), len(run_ids)))
    expected = np.zeros((len(problems), len(run_ids)))
    for p, r in cell.expected:
        sample = cell.samples.get((p, r))
        if sample is not None and exclude is not None and exclude(sample):
            continue
        expected[pi[p], ri[r]] = 1.0
        if sample is not None and sample.correct:
            correct[pi[p], ri[r]] = 1.0
    return problems, run_ids, correct, expected


def _run_accuracies(correct: np.ndarray, expected: np.ndarray) -> list[float]:
    sizes = expected.sum(axis=0)
    solved = correct.sum(axis=0)
    return [float(c / n) for c, n in zip(solved, sizes) if n > 0]


def _resample_weights(problems: int, resamples: int, seed: int) -> np.ndarray:
    """How often each problem is drawn in each resample (rows: resamples).  With one problem
    every resample is that problem, so one row stands for all (the interval is the point)."""
    if problems == 1:
        return np.ones((1, 1), dtype=np.int64)
    rng = np.random.default_rng(seed)
    return rng.multinomial(problems, np.full(problems, 1.0 / problems), size=resamples)


def bootstrap_accuracy_draws(
    correct: np.ndarray, expected: np.ndarray, resamples: int, seed: int
) -> np.ndarray | None:
    """The mean of per-run accuracies in each bootstrap resample of the problems (rows)."""
    if correct.shape[0] == 0 or resamples <= 0:
        return None
    weights = _resample_weights(correct.shape[0], resamples, seed)
    solved = weights @ correct
    sizes = weights @ expected
    per_run = np.where(sizes > 0, solved / np.where(sizes > 0, sizes, 1), np.nan)
    # A run whose expected problems were all left out of a resample has no accuracy there.
    return np.nanmean(per_run, axis=1)


def bootstrap_mean_accuracy(
    correct: np.ndarray, expected: np.ndarray, resamples: int, seed: int
) -> Interval | None:
    """Percentile bootstrap over problems (rows) of the mean of per-run accuracies."""
    stats = bootstrap_accuracy_draws(correct, expected, resamples, seed)
    if stats is None:
        return None
    low, high = np.percentile(stats, [2.5, 97.5])
    return Interval(float(low), float(high))


def bootstrap_ratio(
    numerator: np.ndarray, denominator: np.ndarray, resamples: int, seed: int
) -> Interval | None:
    """Percentile bootstrap over problems of ``Σ numerator / Σ denominator`` (per-problem
    counts); a resample whose denominator is 0 has no ratio and is left out."""
    if denominator.size == 0 or denominator.sum() <= 0 or resamples <= 0:
        return None
    weights = _resample_weights(denominator.size, resamples, seed)
    top, bottom = weights @ numerator, weights @ denominator
    ratios = top[bottom > 0] / bottom[bottom > 0]
    low, high = np.percentile(ratios, [2.5, 97.5])
    return Interval(float(low), float(high))


def bootstrap_mean(values: np.ndarray, resamples: int, seed: int) -> Interval | None:
    """Percentile bootstrap of the mean of per-problem values."""
    if values.size == 0 or resamples <= 0:
        return None
    weights = _resample_weights(values.size, resamples, seed)
    stats = weights @ values / values.size
    low, high = np.percentile(stats, [2.5, 97.5])
    return Interval(float(low), float(high))


def size_stats(
    cell: Cell, *, resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED
) -> SizeStats:
    """Minimal rate (with its interval) and mean excess over the cell's graded samples."""
    index = {p: i for i, p in enumerate(cell.problems)}
    graded, minimal = np.zeros(len(index)), np.zeros(len(index))
    vertices: list[int] = []
    edges: list[int] = []
    correct = in_vertices = 0
    for (problem, _), sample in cell.samples.items():
        if not sample.correct:
            continue
        correct += 1
        sizes = sample.sizes
        grade = sizes.minimality
        if grade is None or sizes.excess_vertices is None:
            continue
        graded[index[problem]] += 1
        minimal[index[problem]] += grade == "minimal"
        in_vertices += grade == "minimal in vertices"
        vertices.append(sizes.excess_vertices)
        if sizes.excess_edges is not None:
            edges.append(sizes.excess_edges)
    if not vertices:
        return SizeStats(correct=correct)
    return SizeStats(
        correct=correct,
        graded=len(vertices),
        minimal=int(minimal.sum()),
        minimal_rate=float(minimal.sum()) / len(vertices),
        minimal_ci=bootstrap_ratio(minimal, graded, resamples, seed),
        mean_excess_vertices=mean(vertices),
        mean_excess_edges=mean(edges) if edges else None,
        excess_vertices=dict(sorted(Counter(vertices).items())),
        minimal_in_vertices=in_vertices,
        edges_graded=len(edges),
    )


def accuracy_gap(
    benchmark: Cell,
    fresh: Cell,
    *,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> tuple[float | None, Interval | None]:
    """Benchmark mean accuracy − fresh mean accuracy and its 95 % interval (module docstring)."""
    _, _, b_correct, b_expected = _matrices(benchmark)
    _, _, f_correct, f_expected = _matrices(fresh)
    b_runs, f_runs = _run_accuracies(b_correct, b_expected), _run_accuracies(f_correct, f_expected)
    if not b_runs or not f_runs:
        return None, None
    gap = mean(b_runs) - mean(f_runs)
    b_draws = bootstrap_accuracy_draws(b_correct, b_expected, resamples, seed)
    f_draws = bootstrap_accuracy_draws(f_correct, f_expected, resamples, seed + 1)
    if b_draws is None or f_draws is None:
        return gap, None
    low, high = np.percentile(b_draws - f_draws, [2.5, 97.5])
    return gap, Interval(float(low), float(high))


def cell_stats(
    cell: Cell, *, resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED
) -> CellStats:
    problems, run_ids, correct, expected = _matrices(cell)
    accuracies = _run_accuracies(correct, expected)
    per_problem_n = expected.sum(axis=1).astype(int)
    per_problem_c = correct.sum(axis=1).astype(int)
    n_runs = len(run_ids)
    solved_any = (per_problem_c > 0).astype(float)
    pass_at: dict[int, float] = {}
    for k in range(1, n_runs):
        values = [
            pass_at_k(int(n), int(c), k) for n, c in zip(per_problem_n, per_problem_c) if n >= k
        ]
        if values:
            pass_at[k] = mean(values)
    tokens = [
        s.usage.total_tokens
        for s in cell.samples.values()
        if s.usage.total_tokens is not None and not s.error  # None: not reported
    ]
    outcomes = {name: 0 for name in OUTCOMES}
    for key in cell.expected:
        sample = cell.samples.get(key)
        outcomes["missing" if sample is None else sample.outcome] += 1
    _, _, correct_nt, expected_nt = _matrices(cell, exclude=lambda s: s.truncated)
    without_truncated = _run_accuracies(correct_nt, expected_nt)
    return CellStats(
        model=cell.model,
        setting=cell.setting,
        problems=len(problems),
        runs=n_runs,
        expected=len(cell.expected),
        present=len(cell.samples),
        run_accuracies=tuple(accuracies),
        mean=mean(accuracies) if accuracies else None,
        std=sample_std(accuracies),
        mean_ci=bootstrap_mean_accuracy(correct, expected, resamples, seed),
        pass_at_runs=float(solved_any.mean()) if problems else None,
        pass_ci=bootstrap_mean(solved_any, resamples, seed),
        pass_at=pass_at,
        avg_tokens=mean(tokens) if tokens else None,
        token_samples=len(tokens),
        outcomes=outcomes,
        mean_without_truncated=mean(without_truncated) if without_truncated else None,
        sizes=size_stats(cell, resamples=resamples, seed=seed),
    )
