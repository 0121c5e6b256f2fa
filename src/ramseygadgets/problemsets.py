"""Generated problem sets: from lists of F and H (or multi-colour specs) to problems with
minimal solutions, written in the record format of the 70-problem dataset.

Building the set (:func:`plan_problem_set`):

* patterns: names, graph6, edge lists, or ``connected:k`` (every connected graph on k vertices,
  from nauty's ``geng -c``), deduplicated up to isomorphism;
* pairs (F, H): F from the F list, H from the H list, deduplicated up to colour swap ((F, H) and
  (H, F) are the same problem with the colours exchanged; the first orientation met is kept);
* gadget types, filtered by the spec's rules: determiners only when F ≇ H (otherwise
  exchanging the colours maps good colorings to good colorings and no edge is forced); senders
  always; clause/variable gadgets only when F is a star K1,k and the pair is NP-hard, i.e. not
  in the list of polynomial pairs (built in: the paper's four, :data:`BUILTIN_POLYNOMIAL_PAIRS`;
  or a file given by the user) and not two stars.  Two stars (K1,a, K1,b) are always polynomial:
  a good coloring is a red subgraph R with deg_G(v) − b + 1 ≤ deg_R(v) ≤ a − 1 at every vertex, a
  (g,f)-factor, which is decidable in polynomial time.  Other pairs are *treated* as NP-hard;
* multi-colour specs (``"P3 | K3,C4 | K4"``): a determiner for each colour without a twin colour
  (same forbidden set), and both senders.

Output directory (:class:`ProblemSetWriter`):

* ``results.jsonl``: one record per finished problem, appended (and fsynced) as each finishes:
  the checkpoint.  A re-run skips recorded problems; ``Ctrl-C`` loses only problems in flight;
* ``problems.jsonl``: the two-colour problems with a solution, one row each with the fields of
  ``ramseygadgets export`` (``problems`` table) plus ``solution`` and ``status``: the file
  ``ramseygadgets eval --dataset`` reads;
* ``multicolor.jsonl``: the same for multi-colour problems (``colors`` instead of F/H);
* ``solutions.json``: the proven-minimal two-colour solutions in the format of
  ``data/solutions.json``;
* ``manifest.json``: the options, the counts, the distribution of minimal sizes, and every
  problem without a solution within the limits, with its status.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ramseygadgets.catalog import POLYNOMIAL_PAIRS, Problem
from ramseygadgets.errors import RamseyGadgetsError, UnknownPatternError
from ramseygadgets.files import atomic_write, make_output_dir
from ramseygadgets.gadgets import Candidate, GadgetType
from ramseygadgets.graphs import Graph
from ramseygadgets.multicolor.spec import ColoringSpec, MultiProblem, SpecError, split_pattern_list
from ramseygadgets.patterns import Pattern, canonical_graph6, get_pattern

#: The paper's polynomial-time pairs: no clause or variable gadgets are asked for them.
BUILTIN_POLYNOMIAL_PAIRS: tuple[tuple[str, str], ...] = tuple(sorted(POLYNOMIAL_PAIRS))

GADGET_GROUPS = {
    "determiners": ("red-determiner", "blue-determiner", "determiner"),
    "senders": ("positive-sender", "negative-sender"),
    "hardness": ("clause-gadget", "variable-gadget"),
}

RESULTS_FILE = "results.jsonl"
PROBLEMS_FILE = "problems.jsonl"
MULTICOLOR_FILE = "multicolor.jsonl"
SOLUTIONS_FILE = "solutions.json"
MANIFEST_FILE = "manifest.json"

GeneratedProblem = Problem | MultiProblem


class ProblemSetError(RamseyGadgetsError):
    """The generation request or an output directory is unusable."""


# ---------------------------------------------------------------------------------------------
# Patterns
# ---------------------------------------------------------------------------------------------
def _families(n: int) -> list[str]:
    return [f"P{n}", f"C{n}", f"K{n}", f"K1,{n - 1}", f"K{n}-e"]


def name_graph(graph: Graph) -> Pattern:
    """The pattern of a connected graph, with a family name (Pk, Ck, Kk, K1,k, Kk-e) where one
    fits, else named by its canonical graph6."""
    canonical = canonical_graph6(graph)
    for name in _families(graph.n):
        try:
            pattern = get_pattern(name)
        except UnknownPatternError:
            continue
        if pattern.graph.m == graph.m and canonical_graph6(pattern.graph) == canonical:
            return pattern
    return get_pattern(canonical)


def connected_graphs(k: int) -> list[Pattern]:
    """Every connected graph on k vertices (k ≥ 3), one per isomorphism class (nauty geng -c)."""
    from ramseygadgets.search.exhaustive import iter_graphs

    if not 3 <= k <= 10:
        raise ProblemSetError(f"connected:{k}: k must be between 3 and 10")
    return [name_graph(g) for g in iter_graphs(k, k - 1, k * (k - 1) // 2, connected=True)]


def expand_patterns(items: Iterable[str]) -> list[Pattern]:
    """Patterns from names / graph6 / edge lists / ``connected:k``, comma lists allowed,
    deduplicated up to isomorphism (first spelling kept)."""
    out: dict[str, Pattern] = {}
    for raw in items:
        for item in split_pattern_list(raw):
            key = item.strip()
            if key.lower().startswith("connected:"):
                value = key.split(":", 1)[1].strip()
                if not value.isdigit():
                    raise ProblemSetError(
                        f"{key!r}: write connected:k with k a number of vertices, e.g. connected:5"
                    )
                patterns = connected_graphs(int(value))
            else:
                patterns = [get_pattern(key)]
            for p in patterns:
                out.setdefault(canonical_graph6(p.graph), p)
    return list(out.values())


def _pair_key(a: Pattern, b: Pattern) -> tuple[str, str]:
    x, y = canonical_graph6(a.graph), canonical_graph6(b.graph)
    return (x, y) if x <= y else (y, x)


def load_polynomial_pairs(source: str | None = "builtin") -> set[tuple[str, str]]:
    """Unordered pairs (canonical keys) whose goodness problem is polynomial.

    ``builtin``: the paper's four; ``none``: no pair; otherwise a file with one pair per line,
    two patterns separated by whitespace (``P3 K1,3``; ``#`` comments), or a JSON list of pairs.
    """
    if source is None or source == "builtin":
        pairs = [list(p) for p in BUILTIN_POLYNOMIAL_PAIRS]
    elif source == "none":
        return set()
    else:
        path = Path(source)
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise ProblemSetError(
                f"cannot read the polynomial pairs file {source}: {exc}"
            ) from None
        if text.lstrip().startswith("["):
            try:
                pairs = json.loads(text)
            except ValueError as exc:
                raise ProblemSetError(f"{source}: not valid JSON: {exc}") from None
        else:
            pairs = [line.split("#", 1)[0].split() for line in text.splitlines()]
            pairs = [p for p in pairs if p]
        for number, pair in enumerate(pairs, 1):
            if not isinstance(pair, list) or len(pair) != 2:
                raise ProblemSetError(f"{source}: pair {number} must be two patterns, got {pair!r}")
    out = set()
    for a, b in pairs:
        try:
            out.add(_pair_key(get_pattern(str(a)), get_pattern(str(b))))
        except UnknownPatternError as exc:
            raise ProblemSetError(f"polynomial pairs: {exc}") from None
    return out


# ---------------------------------------------------------------------------------------------
# The plan
# ---------------------------------------------------------------------------------------------
def _wanted(gadget: str, wanted: set[str] | None) -> bool:
    if wanted is None:
        return True
    if gadget in wanted:
        return True
    return gadget.endswith("-determiner") and "determiner" in wanted


def parse_gadgets(text: str | None) -> set[str] | None:
    """``determiners,senders`` / ``red-determiner,clause`` / ``all`` → a set of names (None: all)."""
    if not text or text.strip() == "all":
        return None
    out: set[str] = set()
    for item in (x.strip().lower().replace("_", "-") for x in text.split(",")):
        if not item:
            continue
        if item in GADGET_GROUPS:
            out.update(GADGET_GROUPS[item])
        elif item in ("clause", "variable"):
            out.add(f"{item}-gadget")
        elif (
            item in {g.value for g in GadgetType}
            or item.endswith("-determiner")
            or item == "determiner"
        ):
            out.add(item)
        else:
            raise ProblemSetError(
                f"unknown gadget {item!r}; use determiners, senders, hardness, all, or a type "
                f"such as red-determiner, positive-sender, clause-gadget"
            )
    return out


@dataclass
class ProblemSetPlan:
    """The problems to solve, in order, and what was left out (with the reason)."""

    problems: list[GeneratedProblem] = field(default_factory=list)
    skipped: list[dict[str, str]] = field(default_factory=list)

    @property
    def ids(self) -> list[str]:
        return [p.id for p in self.problems]


def pair_problems(
    F: Pattern,
    H: Pattern,
    wanted: set[str] | None,
    polynomial: set[tuple[str, str]],
    plan: ProblemSetPlan,
) -> None:
    symmetric = canonical_graph6(F.graph) == canonical_graph6(H.graph)
    for gadget in GadgetType:
        title = f"({F.name}, {H.name})-{gadget.value}"
        if not _wanted(gadget.value, wanted):
            continue
        if gadget in (GadgetType.RED_DETERMINER, GadgetType.BLUE_DETERMINER) and symmetric:
            plan.skipped.append(
                {"problem": title, "reason": "F ≅ H: exchanging the colours forbids determiners"}
            )
            continue
        if gadget.is_hardness:
            if F.star_k is None:
                continue  # defined only for stars: not a problem at all
            if _pair_key(F, H) in polynomial:
                plan.skipped.append(
                    {
                        "problem": title,
                        "reason": "polynomial pair (no hardness gadget unless P = NP)",
                    }
                )
                continue
            if H.star_k is not None:
                plan.skipped.append(
                    {
                        "problem": title,
                        "reason": "two stars: polynomial ((g,f)-factor), no hardness "
                        "gadget unless P = NP",
                    }
                )
                continue
        plan.problems.append(Problem(F, H, gadget))


def spec_problems(spec: ColoringSpec, wanted: set[str] | None, plan: ProblemSetPlan) -> None:
    candidates = [MultiProblem(spec, "determiner", k) for k in range(spec.c)]
    candidates += [MultiProblem(spec, "positive-sender"), MultiProblem(spec, "negative-sender")]
    for p in candidates:
        if not _wanted(p.gadget, wanted):
            continue
        if not p.is_possible_by_symmetry():
            plan.skipped.append(
                {"problem": p.title, "reason": "another colour forbids the same set: no determiner"}
            )
            continue
        plan.problems.append(p)


def plan_problem_set(
    F_items: Iterable[str] = (),
    H_items: Iterable[str] = (),
    specs: Iterable[str] = (),
    *,
    gadgets: str | set[str] | None = None,
    polynomial_pairs: str | None = "builtin",
) -> ProblemSetPlan:
    """All problems of the request (see the module docstring for the rules)."""
    wanted = parse_gadgets(gadgets) if isinstance(gadgets, str) or gadgets is None else set(gadgets)
    F_list, H_list = expand_patterns(F_items), expand_patterns(H_items)
    if bool(F_list) != bool(H_list):
        raise ProblemSetError("give both --F and --H (each a list of patterns)")
    spec_list = []
    for text in specs:
        try:
            spec_list.append(ColoringSpec.parse(text))
        except SpecError as exc:
            raise ProblemSetError(str(exc)) from None
    if not F_list and not spec_list:
        raise ProblemSetError("nothing to generate: give --F and --H, or --spec")
    polynomial = load_polynomial_pairs(polynomial_pairs)
    plan = ProblemSetPlan()
    seen: set[tuple[str, str]] = set()
    for F in F_list:
        for H in H_list:
            key = _pair_key(F, H)
            if key in seen:
                plan.skipped.append(
                    {
                        "problem": f"({F.name}, {H.name})",
                        "reason": "same pair as an earlier one with the colours exchanged",
                    }
                )
                continue
            seen.add(key)
            pair_problems(F, H, wanted, polynomial, plan)
    seen_specs: set[Any] = set()
    for spec in spec_list:
        if spec.is_pair:  # a two-colour single-pattern spec is a pair: same problems, same ids
            key = _pair_key(spec.F, spec.H)
            if key not in seen:
                seen.add(key)
                pair_problems(spec.F, spec.H, wanted, polynomial, plan)
            continue
        if spec.key in seen_specs:
            plan.skipped.append(
                {
                    "problem": spec.title,
                    "reason": "same spec as an earlier one with colours renamed",
                }
            )
            continue
        seen_specs.add(spec.key)
        spec_problems(spec, wanted, plan)
    ids = Counter(plan.ids)
    dupes = [pid for pid, count in ids.items() if count > 1]
    if (
        dupes
    ):  # different patterns with one display name cannot happen; guard the record format anyway
        raise ProblemSetError(f"two problems share the id {dupes[0]}")
    return plan


# ---------------------------------------------------------------------------------------------
# Records
# ---------------------------------------------------------------------------------------------
def problem_json(problem: GeneratedProblem) -> dict[str, Any]:
    """The problem part of a record (``to_json`` of either kind)."""
    return problem.to_json()


def problem_of_record(record: dict[str, Any]) -> GeneratedProblem:
    """The problem a record describes (two-colour records by F/H/gadget, others by colors/gadget)."""
    try:
        if "colors" in record:
            return MultiProblem.from_json(record)
        return Problem.make(str(record["F"]), str(record["H"]), str(record["gadget"]))
    except (KeyError, RamseyGadgetsError, ValueError) as exc:
        raise ProblemSetError(f"unusable problem record {record.get('id', '?')}: {exc}") from None


def core_gadget(problem: GeneratedProblem) -> GadgetType:
    """The core gadget type that names the designated items (e, f / vertices)."""
    return problem.gadget_type if isinstance(problem, MultiProblem) else problem.gadget


def candidate_of_record(record: dict[str, Any], problem: GeneratedProblem) -> Candidate | None:
    data = record.get("solution")
    if not data:
        return None
    return Candidate.from_json(data, core_gadget(problem), max_vertices=None)


def export_row(record: dict[str, Any]) -> dict[str, Any]:
    """A ``problems.jsonl`` row: the export schema of the 70 plus ``solution``/``status``/proof fields."""
    problem = problem_of_record(record)
    candidate = candidate_of_record(record, problem)
    assert candidate is not None
    gadget = core_gadget(problem)
    designated = candidate.designated
    edges = dict(zip(gadget.edge_names, designated.edges))
    row: dict[str, Any] = {"id": problem.id, "title": problem.title}
    if isinstance(problem, MultiProblem):
        row.update(
            {
                "colors": problem.spec.to_json(),
                "color_names": [c.name for c in problem.spec.colors],
                "forbidden_edges": [
                    [[list(e) for e in p.graph.edges] for p in col.forbidden]
                    for col in problem.spec.colors
                ],
            }
        )
    else:
        from ramseygadgets.prompts import settings_for

        row.update(
            {
                "F": problem.F.name,
                "H": problem.H.name,
                "F_edges": [list(e) for e in problem.F.graph.edges],
                "H_edges": [list(e) for e in problem.H.graph.edges],
            }
        )
    row.update(
        {
            "gadget": problem.gadget if isinstance(problem, MultiProblem) else problem.gadget.value,
            "tier": problem.tier,
            "designated": list((*gadget.edge_names, *gadget.vertex_names)),
        }
    )
    if not isinstance(problem, MultiProblem):
        row["settings"] = settings_for(problem, min_vertices=candidate.graph.n)
    row.update(
        {
            "min_vertices": candidate.graph.n,
            "min_edges": candidate.graph.m,
            "solution_edges": [list(e) for e in candidate.graph.edges],
            "solution_e": list(edges["e"]) if "e" in edges else None,
            "solution_f": list(edges["f"]) if "f" in edges else None,
            "solution_vertices": list(designated.vertices) if designated.vertices else None,
            "solution_method": record.get("method", ""),
            "solution": candidate.to_json(gadget),
            "status": record["status"],
            "proven_minimal": record.get("proven_minimal", False),
            "lower_bound": record.get("lower_bound"),
        }
    )
    return row


# ---------------------------------------------------------------------------------------------
# The output directory
# ---------------------------------------------------------------------------------------------
def iter_records(path: Path) -> Iterator[dict[str, Any]]:
    """Every record of a checkpoint JSONL file in order (a torn last line, left by a kill, is
    ignored; a missing file has none)."""
    if not path.exists():
        return
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict) and "id" in record:
            yield record


def append_record(path: Path, record: dict[str, Any]) -> None:
    """Append one record as a JSON line to a checkpoint file (durable before returning)."""
    try:
        with path.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(record) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
    except OSError as exc:
        raise ProblemSetError(f"cannot write {path}: {exc.strerror or exc}") from None


def repair_torn_tail(path: Path) -> None:
    """Cut a partial last line (a kill during a write) so that appends start on a new line."""
    if not path.exists():
        return
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        with path.open("r+b") as fh:
            fh.truncate(data.rfind(b"\n") + 1)


def read_results(path: Path) -> dict[str, dict[str, Any]]:
    """Records of ``results.jsonl`` by id, the last one of each id."""
    return {record["id"]: record for record in iter_records(path)}


class ProblemSetWriter:
    """The output directory of a generation run (see the module docstring)."""

    def __init__(self, out_dir: str | Path) -> None:
        self.dir = make_output_dir(out_dir, "the problem-set directory", ProblemSetError)
        self.results_path = self.dir / RESULTS_FILE
        self.results = read_results(self.results_path)
        repair_torn_tail(self.results_path)

    def reload(self) -> None:
        """Re-read ``results.jsonl`` (the durable truth) into ``results``."""
        self.results = read_results(self.results_path)

    def done(self, problem_id: str, retry_unsolved: bool = False) -> bool:
        record = self.results.get(problem_id)
        return record is not None and (record.get("status") == "found" or not retry_unsolved)

    def record(self, record: dict[str, Any]) -> None:
        """Append one finished problem to ``results.jsonl`` (durable before returning)."""
        append_record(self.results_path, record)
        self.results[record["id"]] = record

    def finish(self, plan: ProblemSetPlan, options: dict[str, Any]) -> dict[str, Any]:
        """Write problems.jsonl, multicolor.jsonl, solutions.json and manifest.json (atomically)."""
        order = {pid: i for i, pid in enumerate(plan.ids)}
        records = sorted(
            self.results.values(), key=lambda r: (order.get(r["id"], len(order)), r["id"])
        )
        solved = [r for r in records if r.get("solution")]
        pairs = [export_row(r) for r in solved if "colors" not in r]
        multi = [export_row(r) for r in solved if "colors" in r]
        try:
            atomic_write(self.dir / PROBLEMS_FILE, "".join(json.dumps(r) + "\n" for r in pairs))
            atomic_write(self.dir / MULTICOLOR_FILE, "".join(json.dumps(r) + "\n" for r in multi))
            shipped = [r["shipped"] for r in solved if r.get("shipped")]
            solutions = {
                "description": "Minimal solutions of a generated RamseyGadgets problem set (two colours).",
                "minimal": "fewest vertices n (no solution on n-1 vertices), then fewest edges m",
                "generator": options.get("command", "ramseygadgets generate"),
                "solutions": shipped,
            }
            atomic_write(self.dir / SOLUTIONS_FILE, json.dumps(solutions, indent=1) + "\n")
            manifest = self.manifest(plan, records, options)
            atomic_write(self.dir / MANIFEST_FILE, json.dumps(manifest, indent=2) + "\n")
        except OSError as exc:
            raise ProblemSetError(
                f"cannot write the problem set to {self.dir}: {exc.strerror or exc}"
            ) from None
        return manifest

    def manifest(
        self, plan: ProblemSetPlan, records: list[dict[str, Any]], options: dict[str, Any]
    ) -> dict[str, Any]:
        in_plan = [r for r in records if r["id"] in set(plan.ids)]
        status = Counter(r["status"] for r in in_plan)
        sizes = Counter(r["n"] for r in in_plan if r.get("proven_minimal"))
        return {
            "options": options,
            "planned": len(plan.problems),
            "finished": len(in_plan),
            "unfinished": [pid for pid in plan.ids if pid not in self.results],
            "status": dict(sorted(status.items())),
            "minimal_sizes": {str(n): sizes[n] for n in sorted(sizes)},
            "not_solved": [
                {
                    "id": r["id"],
                    "status": r["status"],
                    "lower_bound": r.get("lower_bound"),
                    "max_vertices": r.get("max_vertices"),
                }
                for r in in_plan
                if not r.get("solution")
            ],
            "not_proven_minimal": [
                r["id"] for r in in_plan if r.get("solution") and not r.get("proven_minimal")
            ],
            "skipped": plan.skipped,
            "search_seconds": round(sum(r.get("seconds", 0.0) for r in in_plan), 3),
            "files": {
                "problems": PROBLEMS_FILE,
                "multicolor": MULTICOLOR_FILE,
                "solutions": SOLUTIONS_FILE,
                "results": RESULTS_FILE,
            },
        }


def load_generated(
    path: str | Path,
) -> list[tuple[GeneratedProblem, Candidate | None, dict[str, Any]]]:
    """Problems, solutions and records of a generated set (a directory or one of its JSONL files)."""
    path = Path(path)
    files = [path / PROBLEMS_FILE, path / MULTICOLOR_FILE] if path.is_dir() else [path]
    out = []
    for file in files:
        if not file.exists():
            continue
        for line in file.read_text(encoding="utf-8").splitlines():
            if line.strip():
                record = json.loads(line)
                problem = problem_of_record(record)
                out.append((problem, candidate_of_record(record, problem), record))
    return out
