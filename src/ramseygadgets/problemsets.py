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

Output directory (:class:`ProblemSetWriter`, locked by one run at a time):

* ``plan.json``: the folder's one problem set (problems, what the rules left out, the requests
  that made it), written before any solving; another set is refused unless extended;
* ``results.jsonl``: one record per finished problem, appended (one write, fsynced) as each
  finishes: the checkpoint.  Every record read back is checked (:func:`check_record`: types,
  ranges, the solution through the verifier); a failing line is reported by file and line and
  its problem solved again; of several records of a problem the strongest counts
  (:func:`strength`).  A re-run skips recorded problems; ``Ctrl-C`` loses only problems in
  flight;
* ``problems.jsonl``: the two-colour problems with a solution, one row each with the fields of
  ``ramseygadgets export`` (``problems`` table) plus ``solution`` and ``status``: the file
  ``ramseygadgets eval --dataset`` reads;
* ``multicolor.jsonl``: the same for multi-colour problems (``colors`` instead of F/H);
* ``solutions.json``: the proven-minimal two-colour solutions in the format of
  ``data/solutions.json``;
* ``manifest.json``: the options, the counts, the distribution of minimal sizes, and every
  problem without a solution within the limits, with its status, of exactly the folder's plan.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ramseygadgets.catalog import POLYNOMIAL_PAIRS
from ramseygadgets.coloring_spec import MAX_COLORS, ColoringSpec, SpecError, split_pattern_list
from ramseygadgets.errors import RamseyGadgetsError, UnknownPatternError
from ramseygadgets.files import atomic_write, lock_directory, make_output_dir
from ramseygadgets.gadgets import COLOR_NAMES, Candidate, GadgetForm, GadgetKind, GadgetType
from ramseygadgets.patterns import Pattern, canonical_graph6, get_pattern, name_graph
from ramseygadgets.problem import Problem

#: The paper's polynomial-time pairs: no clause or variable gadgets are asked for them.
BUILTIN_POLYNOMIAL_PAIRS: tuple[tuple[str, str], ...] = tuple(sorted(POLYNOMIAL_PAIRS))

GADGET_GROUPS = {
    "determiners": ("red-determiner", "blue-determiner", "determiner"),
    "senders": ("positive-sender", "negative-sender"),
    "hardness": ("clause-gadget", "variable-gadget"),
}

#: Determiner names: ``determiner`` (any colour) and one per colour name of a spec.
DETERMINERS = ("determiner", *(f"{color}-determiner" for color in COLOR_NAMES))

RESULTS_FILE = "results.jsonl"
PROBLEMS_FILE = "problems.jsonl"
MULTICOLOR_FILE = "multicolor.jsonl"
SOLUTIONS_FILE = "solutions.json"
MANIFEST_FILE = "manifest.json"
PLAN_FILE = "plan.json"

GeneratedProblem = Problem


class ProblemSetError(RamseyGadgetsError):
    """The generation request or an output directory is unusable."""


# ---------------------------------------------------------------------------------------------
# Patterns
# ---------------------------------------------------------------------------------------------
#: Connected graphs on k vertices up to isomorphism, k = 0, 1, …, 10 (OEIS A001349).
CONNECTED_GRAPHS = (1, 1, 1, 2, 6, 21, 112, 853, 11117, 261080, 11716571)
#: Plans estimated above this many problems are refused unless forced (``--force``).
PLAN_LIMIT = 100_000
#: ``on_enumerated(label, done, total)`` is called this often during an enumeration.
PROGRESS_EVERY = 500

Progress = Callable[[str, int, int], None]


def connected_count(item: str) -> int | None:
    """The number of graphs ``connected:k`` stands for (None: ``item`` is one pattern)."""
    key = item.strip()
    if not key.lower().startswith("connected:"):
        return None
    value = key.split(":", 1)[1].strip()
    if not value.isdigit():
        raise ProblemSetError(
            f"{key!r}: write connected:k with k a number of vertices, e.g. connected:5"
        )
    k = int(value)
    if not 3 <= k <= 10:
        raise ProblemSetError(f"connected:{k}: k must be between 3 and 10")
    return CONNECTED_GRAPHS[k]


def connected_graphs(k: int, on_enumerated: Progress | None = None) -> list[Pattern]:
    """Every connected graph on k vertices (3 ≤ k ≤ 10), one per isomorphism class (nauty
    geng -c); ``on_enumerated`` hears of the progress against the known count."""
    from ramseygadgets.search.exhaustive import iter_graphs

    total = connected_count(f"connected:{k}") or 0
    out = []
    for graph in iter_graphs(k, k - 1, k * (k - 1) // 2, connected=True):
        out.append(name_graph(graph))
        if on_enumerated is not None and len(out) % PROGRESS_EVERY == 0:
            on_enumerated(f"connected:{k}", len(out), total)
    if on_enumerated is not None:
        on_enumerated(f"connected:{k}", len(out), total)
    return out


def expand_patterns(items: Iterable[str], on_enumerated: Progress | None = None) -> list[Pattern]:
    """Patterns from names / graph6 / edge lists / ``connected:k``, comma lists allowed,
    deduplicated up to isomorphism (first spelling kept)."""
    out: dict[str, Pattern] = {}
    for raw in items:
        for item in split_pattern_list(raw):
            if connected_count(item) is not None:
                k = int(item.split(":", 1)[1])
                patterns = connected_graphs(k, on_enumerated)
            else:
                patterns = [get_pattern(item.strip())]
            for p in patterns:
                out.setdefault(canonical_graph6(p.graph), p)
    return list(out.values())


@dataclass
class PlanEstimate:
    """An upper bound on a request's problems, known before any enumeration: every pattern
    counted (``connected:k`` by the number of connected graphs on k vertices), every pair with
    all six gadget types, every spec with a determiner per colour and two senders."""

    problems: int
    enumerations: list[str]

    def describe(self) -> str:
        where = f" ({'; '.join(self.enumerations)})" if self.enumerations else ""
        return f"up to {self.problems:,} problems{where}"


def estimate_plan(
    F_items: Iterable[str] = (), H_items: Iterable[str] = (), specs: Iterable[str] = ()
) -> PlanEstimate:
    """The :class:`PlanEstimate` of a request (no pattern is built)."""
    enumerations: list[str] = []

    def count(items: Iterable[str]) -> int:
        total = 0
        for raw in items:
            for item in split_pattern_list(raw):
                graphs = connected_count(item)
                if graphs is not None:
                    enumerations.append(f"{item.strip()}: {graphs:,} graphs, OEIS A001349")
                total += 1 if graphs is None else graphs
        return total

    pairs = count(F_items) * count(H_items)
    problems = pairs * len(GadgetType) + len(list(specs)) * (MAX_COLORS + 2)
    return PlanEstimate(problems, enumerations)


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
            except (ValueError, RecursionError) as exc:
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
        elif item in {g.value for g in GadgetType} or item in DETERMINERS:
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
    #: the gadget types of the request's pairs (all six) and specs (their colours' determiners
    #: and the senders), whether planned or not
    types: set[str] = field(default_factory=set)

    @property
    def ids(self) -> list[str]:
        return [p.id for p in self.problems]


def polynomial_reason(F: Pattern, H: Pattern, polynomial: set[tuple[str, str]]) -> str | None:
    """Why (F, H) has no clause or variable gadget unless P = NP (None: it is treated as
    NP-hard): it is in the list of polynomial pairs, or both are stars."""
    if _pair_key(F, H) in polynomial:
        return "in the list of polynomial pairs"
    if F.star_k is not None and H.star_k is not None:
        return "two stars: goodness is a (g,f)-factor problem"
    return None


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
        plan.types.add(gadget.value)
        if gadget.is_hardness and F.star_k is None:
            continue  # defined only for stars: not a problem at all
        if not _wanted(gadget.value, wanted):
            continue
        if gadget in (GadgetType.RED_DETERMINER, GadgetType.BLUE_DETERMINER) and symmetric:
            plan.skipped.append(
                {"problem": title, "reason": "F ≅ H: exchanging the colours forbids determiners"}
            )
            continue
        why = polynomial_reason(F, H, polynomial) if gadget.is_hardness else None
        if why is not None:
            reason = f"polynomial pair ({why}): no hardness gadget unless P = NP"
            plan.skipped.append({"problem": title, "reason": reason})
            continue
        plan.problems.append(Problem.make(F, H, gadget))


def spec_problems(spec: ColoringSpec, wanted: set[str] | None, plan: ProblemSetPlan) -> None:
    candidates = [Problem(spec, GadgetKind.DETERMINER, k) for k in range(spec.c)]
    candidates += [
        Problem(spec, kind) for kind in (GadgetKind.POSITIVE_SENDER, GadgetKind.NEGATIVE_SENDER)
    ]
    for p in candidates:
        plan.types.add(p.gadget_name)
        if not _wanted(p.gadget_name, wanted):
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
    force: bool = False,
    on_enumerated: Progress | None = None,
) -> ProblemSetPlan:
    """All problems of the request (see the module docstring for the rules).

    A request whose :func:`estimate_plan` exceeds :data:`PLAN_LIMIT` is refused before any
    enumeration unless ``force``; a gadget type that no pair or spec of the request has is an
    error."""
    F_items, H_items, specs = list(F_items), list(H_items), list(specs)
    estimate = estimate_plan(F_items, H_items, specs)
    if estimate.problems > PLAN_LIMIT and not force:
        raise ProblemSetError(
            f"this request plans {estimate.describe()}, more than the limit of "
            f"{PLAN_LIMIT:,}; narrow --F/--H/--spec, or add --force to go ahead"
        )
    wanted = parse_gadgets(gadgets) if isinstance(gadgets, str) or gadgets is None else set(gadgets)
    F_list = expand_patterns(F_items, on_enumerated)
    H_list = expand_patterns(H_items, on_enumerated)
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
    _check_types(wanted, plan)
    return plan


def _check_types(wanted: set[str] | None, plan: ProblemSetPlan) -> None:
    """A wanted gadget type that no pair or spec of the request has is a mistake, not an
    empty set (``green-determiner`` without a spec of three colours)."""
    absent = sorted((wanted or set()) - plan.types - {"determiner"})
    if absent:
        raise ProblemSetError(
            f"no pair or spec of this request has a {absent[0]}; its gadget types are "
            f"{', '.join(sorted(plan.types)) or 'none'}"
        )


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
            return Problem.from_json(record)
        return Problem.make(str(record["F"]), str(record["H"]), str(record["gadget"]))
    except (KeyError, RamseyGadgetsError, ValueError) as exc:
        raise ProblemSetError(f"unusable problem record {record.get('id', '?')}: {exc}") from None


def core_gadget(problem: GeneratedProblem) -> GadgetForm:
    """The gadget kind that names the designated items (e, f / vertices)."""
    return problem.kind


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
    if not problem.is_pair:
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
                "F": problem.F.spec,
                "H": problem.H.spec,
                "F_edges": [list(e) for e in problem.F.graph.edges],
                "H_edges": [list(e) for e in problem.H.graph.edges],
            }
        )
    row.update(
        {
            "gadget": problem.gadget_name,
            "tier": problem.tier,
            "designated": list((*gadget.edge_names, *gadget.vertex_names)),
        }
    )
    if problem.is_pair:
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
# Checking records read back
# ---------------------------------------------------------------------------------------------
STATUSES = ("found", "none-up-to-limit", "timeout")
#: The largest solution a record may claim (``solve --max-vertices`` allows 40).
RECORD_MAX_VERTICES = 40
_PARSE_ERRORS = (
    RamseyGadgetsError,
    ValueError,
    TypeError,
    KeyError,
    AttributeError,
    IndexError,
    RecursionError,
)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return (_is_int(value) or isinstance(value, float)) and math.isfinite(value)


def _field_problem(record: dict[str, Any]) -> str | None:
    """Why the fields of a record are not of the right types and ranges (None: they are)."""
    status: Any = record.get("status")
    n: Any = record.get("n")
    m: Any = record.get("m")
    bound: Any = record.get("lower_bound")
    limit: Any = record.get("max_vertices")
    if status not in STATUSES:
        return f"status must be one of {', '.join(STATUSES)}, got {status!r}"
    if not _is_int(bound) or bound < 0:
        return f"lower_bound must be a whole number ≥ 0, got {bound!r}"
    if limit is not None and (not _is_int(limit) or limit < 1):
        return f"max_vertices must be a whole number ≥ 1, got {limit!r}"
    for key in ("proven_minimal", "edges_minimal"):
        if not isinstance(record.get(key, False), bool):
            return f"{key} must be true or false, got {record.get(key)!r}"
    seconds, timeout = record.get("seconds", 0.0), record.get("timeout")
    if not _is_number(seconds) or seconds < 0:
        return f"seconds must be a finite number ≥ 0, got {seconds!r}"
    if timeout is not None and (not _is_number(timeout) or timeout <= 0):
        return f"timeout must be a finite number > 0 or null, got {timeout!r}"
    if status != "found":
        if record.get("solution") is not None or record.get("proven_minimal"):
            return f"a {status} record has no solution"
        if limit is not None and bound > limit + 1:
            return f"lower_bound {bound} is more than max_vertices + 1 = {limit + 1}"
        return None
    if not (_is_int(n) and _is_int(m)) or not 1 <= n <= RECORD_MAX_VERTICES or m < 0:
        return f"a found record needs whole numbers 1 ≤ n ≤ {RECORD_MAX_VERTICES}, m ≥ 0"
    if bound > n:
        return f"lower_bound {bound} is above the solution's n = {n}"
    if record.get("proven_minimal") and not (record.get("edges_minimal") and bound == n):
        return "proven_minimal needs edges_minimal and lower_bound = n"
    return None


LEVEL_OUTCOMES = ("none", "found", "timeout")


def _provenance_problem(record: dict[str, Any]) -> str | None:
    """Why the optional search provenance is malformed (None: absent or well-formed):
    ``engine`` a name, ``min_vertices`` the first vertex count tried (1 … 40), ``levels`` one entry per vertex count tried (n, outcome, seconds, counts)."""
    engine: Any = record.get("engine")
    start: Any = record.get("min_vertices")
    if engine is not None and (not isinstance(engine, str) or not engine):
        return f"engine must be a non-empty string, got {engine!r}"
    if start is not None and (not _is_int(start) or not 1 <= start <= RECORD_MAX_VERTICES):
        return (
            f"min_vertices must be a whole number 1 … {RECORD_MAX_VERTICES} or null, got {start!r}"
        )
    levels = record.get("levels", [])
    if not isinstance(levels, list):
        return f"levels must be a list, got {type(levels).__name__}"
    for level in levels:
        if not isinstance(level, dict):
            return f"a level must be an object, got {level!r}"
        n: Any = level.get("n")
        seconds: Any = level.get("seconds", 0.0)
        if not _is_int(n) or not 1 <= n <= RECORD_MAX_VERTICES:
            return f"a level's n must be a whole number 1 … {RECORD_MAX_VERTICES}, got {n!r}"
        if level.get("outcome") not in LEVEL_OUTCOMES:
            return f"level {n}: outcome must be one of {', '.join(LEVEL_OUTCOMES)}"
        if not _is_number(seconds) or seconds < 0:
            return f"level {n}: seconds must be a finite number ≥ 0, got {seconds!r}"
        for key in ("candidates", "lemmas"):
            if not _is_int(level.get(key, 0)) or level.get(key, 0) < 0:
                return f"level {n}: {key} must be a whole number ≥ 0, got {level.get(key)!r}"
        if level["outcome"] == "none" and n >= record["lower_bound"]:
            return f"level {n} is proven empty but lower_bound is {record['lower_bound']}"
    return None


def _solution_problem(record: dict[str, Any], problem: GeneratedProblem) -> str | None:
    """Why a found record's solution is not a solution of size (n, m) (None: it is one)."""
    from ramseygadgets.verify import verify

    gadget = core_gadget(problem)
    candidate = Candidate.from_json(
        record.get("solution"), gadget, max_vertices=RECORD_MAX_VERTICES
    )
    if (candidate.graph.n, candidate.graph.m) != (record["n"], record["m"]):
        return (
            f"the solution has n = {candidate.graph.n}, m = {candidate.graph.m}, the record "
            f"says n = {record['n']}, m = {record['m']}"
        )
    verdict = verify(problem, candidate)
    if not verdict.correct:
        return f"the solution is not a {problem.title}: {verdict.reason}"
    shipped = record.get("shipped")
    if shipped is not None:
        if not record.get("proven_minimal") or not isinstance(shipped, dict):
            return "only a proven-minimal record ships a solution"
        copy = Candidate.from_json(shipped, gadget, max_vertices=RECORD_MAX_VERTICES)
        same = (shipped.get("problem_id"), shipped.get("n"), shipped.get("m")) == (
            problem.id,
            record["n"],
            record["m"],
        )
        if not same or copy.to_json(gadget) != candidate.to_json(gadget):
            return "its shipped solution differs from its solution"
    return None


def check_record(record: Any) -> str | None:
    """Why a ``results.jsonl`` record cannot be trusted, or None when it can: the problem
    parses and has the record's id; status, n, m, lower_bound, limits and flags have the right
    types and ranges; a solution has the claimed (n, m) and passes the verifier; the search
    provenance (engine, min_vertices, levels) is well-formed."""
    if not isinstance(record, dict):
        return f"not a JSON object but {type(record).__name__}"
    if not isinstance(record.get("id"), str):
        return f"id must be a string, got {record.get('id')!r}"
    try:
        problem = problem_of_record(record)
        if problem.id != record["id"]:
            return f"id {record['id']!r} does not match its problem {problem.id!r}"
        why = _field_problem(record)
        if why is None and record["status"] == "found":
            why = _solution_problem(record, problem)
        if why is None:
            why = _provenance_problem(record)
    except _PARSE_ERRORS as exc:
        return str(exc) or type(exc).__name__
    return why


def strength(record: dict[str, Any]) -> tuple[bool, bool, int, int, int]:
    """How much a (checked) record proves: a minimal solution beats any other record, then any
    solution beats none, then the larger proven lower bound, then the smaller solution."""
    return (
        bool(record.get("proven_minimal")),
        record.get("solution") is not None,
        record["lower_bound"],
        -(record.get("n") or 0),
        -(record.get("m") or 0),
    )


def strongest(old: dict[str, Any] | None, new: dict[str, Any]) -> dict[str, Any]:
    """The record to keep for a problem: the stronger one (the older one on a tie)."""
    return new if old is None or strength(new) > strength(old) else old


@dataclass
class ResultsRead:
    """The checked records of a ``results.jsonl``, with where each line starts, and the
    rejected lines (file, line, reason)."""

    records: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)

    def by_id(self) -> dict[str, dict[str, Any]]:
        """The strongest record of each problem."""
        out: dict[str, dict[str, Any]] = {}
        for _, record in self.records:
            out[record["id"]] = strongest(out.get(record["id"]), record)
        return out


def read_results_file(path: Path, verdicts: dict[bytes, str | None] | None = None) -> ResultsRead:
    """Every line of ``results.jsonl`` checked with :func:`check_record` (``verdicts`` caches
    the outcome by line).  A last line without its newline is a torn write and is skipped."""
    out = ResultsRead()
    verdicts = {} if verdicts is None else verdicts
    try:
        data = path.read_bytes() if path.exists() else b""
    except OSError as exc:
        raise ProblemSetError(f"cannot read {path}: {exc.strerror or exc}") from None
    offset = 0
    for number, raw in enumerate(data.split(b"\n")[:-1], 1):
        start, offset = offset, offset + len(raw) + 1
        if not raw.strip():
            continue
        record, why = _parse_line(raw)
        if why is None:
            if raw not in verdicts:
                verdicts[raw] = check_record(record)
            why = verdicts[raw]
        if why is None:
            out.records.append((start, record))
        else:
            out.rejected.append(f"{path} line {number}: {why}")
    return out


def iter_records(path: Path) -> Iterator[dict[str, Any]]:
    """Every record (a JSON object with an ``id``) of a checkpoint JSONL file in order; other
    lines, such as a torn last line left by a kill, are skipped; a missing file has none.
    ``results.jsonl`` is read through :func:`read_results_file`, which checks each record."""
    try:
        data = path.read_bytes() if path.exists() else b""
    except OSError as exc:
        raise ProblemSetError(f"cannot read {path}: {exc.strerror or exc}") from None
    for raw in data.splitlines():
        record, why = _parse_line(raw)
        if why is None and isinstance(record, dict) and "id" in record:
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


def _parse_line(raw: bytes) -> tuple[Any, str | None]:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, f"not UTF-8 text (byte {exc.start + 1})"
    try:
        return json.loads(text), None
    except (ValueError, RecursionError) as exc:
        return None, f"not a JSON record ({type(exc).__name__})"


def read_results(path: Path) -> dict[str, dict[str, Any]]:
    """The strongest checked record of each problem in ``results.jsonl``."""
    return read_results_file(path).by_id()


# ---------------------------------------------------------------------------------------------
# The output directory
# ---------------------------------------------------------------------------------------------
def _plan_json(plan: ProblemSetPlan, requests: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "requests": requests,
        "problems": [problem_json(p) for p in plan.problems],
        "skipped": plan.skipped,
    }


def _describe_difference(folder: ProblemSetPlan, plan: ProblemSetPlan) -> str:
    mine, theirs = set(folder.ids), set(plan.ids)
    new = [pid for pid in plan.ids if pid not in mine]
    gone = [pid for pid in folder.ids if pid not in theirs]
    parts = []
    if new:
        parts.append(f"{len(new)} not in the folder (first: {new[0]})")
    if gone:
        parts.append(f"{len(gone)} of the folder's not planned (first: {gone[0]})")
    return "; ".join(parts)


class ProblemSetWriter:
    """The output directory of a generation run (see the module docstring), locked for this
    process while open (``with ProblemSetWriter(out) as writer``)."""

    def __init__(self, out_dir: str | Path) -> None:
        self.dir = make_output_dir(out_dir, "the problem-set directory", ProblemSetError)
        self.results_path = self.dir / RESULTS_FILE
        self.plan_path = self.dir / PLAN_FILE
        self._lock_fd: int | None = lock_directory(self.dir, "generate run", ProblemSetError)
        self._fd: int | None = None
        try:
            self._check_writable()
            repair_torn_tail(self.results_path)
            self._fd = os.open(self.results_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        except OSError as exc:
            self.close()
            raise ProblemSetError(f"cannot write to {self.dir}: {exc.strerror or exc}") from None
        except BaseException:
            self.close()
            raise
        self._start = os.fstat(self._fd).st_size
        self._verdicts: dict[bytes, str | None] = {}
        self.results: dict[str, dict[str, Any]] = {}
        self.new: list[dict[str, Any]] = []
        self._rejected_lines: list[str] = []
        self.notes: list[str] = []  # records left out for other reasons than their line
        self.requests: list[dict[str, Any]] = []
        self.reload()

    # -- lifecycle --------------------------------------------------------------------------
    def close(self) -> None:
        for attr in ("_fd", "_lock_fd"):
            fd = getattr(self, attr)
            if fd is not None:
                os.close(fd)
                setattr(self, attr, None)

    def __enter__(self) -> ProblemSetWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _check_writable(self) -> None:
        """Fail before any solving when the folder cannot take new files (read-only, full)."""
        fd, name = tempfile.mkstemp(prefix=".write-check.", dir=self.dir)
        os.close(fd)
        os.unlink(name)

    # -- the plan ---------------------------------------------------------------------------
    def adopt_plan(
        self, plan: ProblemSetPlan, request: dict[str, Any], *, extend: bool = False
    ) -> ProblemSetPlan:
        """The folder's plan, written to ``plan.json`` before any solving: ``plan`` on a new
        folder; on a used one the same problems are required (another set is refused, naming
        the difference) unless ``extend`` adds the new problems to the folder's."""
        folder = self._read_plan()
        if folder is None:  # a new folder, or one written before plans were kept
            folder = ProblemSetPlan(problems=[problem_of_record(r) for r in self.results.values()])
            same = set(folder.ids) <= set(plan.ids)
        else:
            same = set(folder.ids) == set(plan.ids)
        if not same and not extend:
            made_by = f", made by `{self.requests[0].get('command')}`" if self.requests else ""
            raise ProblemSetError(
                f"{self.dir} holds another problem set ({len(folder.ids)} problems{made_by}); "
                f"this command plans {len(plan.ids)}: {_describe_difference(folder, plan)}; "
                f"repeat the folder's options, add --extend to add the new problems to it, or "
                f"choose another --out"
            )
        if not same or not self.plan_path.exists():
            plan = plan if same else _merged(folder, plan)
            self.requests = [*self.requests, request]
            self._write(self.plan_path, json.dumps(_plan_json(plan, self.requests)) + "\n")
        return plan

    def _read_plan(self) -> ProblemSetPlan | None:
        if not self.plan_path.exists():
            return None
        try:
            data = json.loads(self.plan_path.read_text(encoding="utf-8"))
            plan = ProblemSetPlan(
                problems=[problem_of_record(r) for r in data["problems"]],
                skipped=[dict(x) for x in data["skipped"]],
            )
            self.requests = [dict(r) for r in data["requests"]]
        except (OSError, *_PARSE_ERRORS) as exc:
            raise ProblemSetError(
                f"{self.plan_path} is not a problem-set plan ({exc}); move it away or choose "
                f"another --out"
            ) from None
        return plan

    # -- records ----------------------------------------------------------------------------
    def reload(self) -> None:
        """Re-read ``results.jsonl`` (the durable truth): ``results`` gets the strongest
        checked record of each problem, ``new`` the records appended since this writer opened,
        ``rejected`` every line that failed the check."""
        read = read_results_file(self.results_path, self._verdicts)
        self.results = read.by_id()
        self.new = [record for offset, record in read.records if offset >= self._start]
        self._rejected_lines = read.rejected

    def checked_records(self) -> list[dict[str, Any]]:
        """Every checked record of ``results.jsonl`` in file order (all of each problem's,
        not only the strongest: each may prove something the others do not)."""
        return [
            record for _, record in read_results_file(self.results_path, self._verdicts).records
        ]

    @property
    def rejected(self) -> list[str]:
        """Every record left out: lines that fail :func:`check_record` (file and line),
        records outside the plan, solver records that did not check."""
        return self._rejected_lines + self.notes

    def done(
        self, problem_id: str, retry_unsolved: bool = False, max_vertices: int | None = None
    ) -> bool:
        """Whether a problem needs no (more) solving: it has a solution, or a record and no
        retry is asked, or its proven lower bound is already above ``max_vertices``."""
        record = self.results.get(problem_id)
        if record is None:
            return False
        if record.get("solution") is not None or not retry_unsolved:
            return True
        return max_vertices is not None and record["lower_bound"] > max_vertices

    def record(self, record: dict[str, Any]) -> bool:
        """Append one finished problem to ``results.jsonl`` (durable before returning) when it
        passes :func:`check_record`; a record that does not is listed in ``rejected``."""
        why = check_record(record)
        if why is not None:
            self.notes.append(f"the solver's record of {record.get('id')}: {why} (a bug)")
            return False
        line = json.dumps(record).encode("utf-8") + b"\n"
        if self._fd is None:
            raise ProblemSetError(f"{self.results_path} is not open")
        try:
            view = memoryview(line)
            while view:
                view = view[os.write(self._fd, view) :]
            os.fsync(self._fd)
        except OSError as exc:
            raise ProblemSetError(
                f"cannot write {self.results_path}: {exc.strerror or exc}"
            ) from None
        self._verdicts[line[:-1]] = None
        self.results[record["id"]] = strongest(self.results.get(record["id"]), record)
        self.new.append(record)
        return True

    # -- the output files -------------------------------------------------------------------
    def _write(self, path: Path, text: str) -> None:
        try:
            atomic_write(path, text)
        except OSError as exc:
            raise ProblemSetError(f"cannot write {path}: {exc.strerror or exc}") from None

    def finish(self, plan: ProblemSetPlan, options: dict[str, Any]) -> dict[str, Any]:
        """Write problems.jsonl, multicolor.jsonl, solutions.json and manifest.json (each
        atomically) from the strongest checked record of each planned problem."""
        records = [self.results[pid] for pid in plan.ids if pid in self.results]
        solved = [r for r in records if r.get("solution")]
        pairs = [export_row(r) for r in solved if "colors" not in r]
        multi = [export_row(r) for r in solved if "colors" in r]
        self._write(self.dir / PROBLEMS_FILE, "".join(json.dumps(r) + "\n" for r in pairs))
        self._write(self.dir / MULTICOLOR_FILE, "".join(json.dumps(r) + "\n" for r in multi))
        solutions = {
            "description": "Minimal solutions of a generated RamseyGadgets problem set (two colours).",
            "minimal": "fewest vertices n (no solution on n-1 vertices), then fewest edges m",
            "generator": options.get("command", "ramseygadgets generate"),
            "solutions": [r["shipped"] for r in solved if r.get("shipped")],
        }
        self._write(self.dir / SOLUTIONS_FILE, json.dumps(solutions, indent=1) + "\n")
        manifest = self.manifest(plan, records, options)
        self._write(self.dir / MANIFEST_FILE, json.dumps(manifest, indent=2) + "\n")
        return manifest

    def manifest(
        self, plan: ProblemSetPlan, records: list[dict[str, Any]], options: dict[str, Any]
    ) -> dict[str, Any]:
        """The manifest of exactly the planned problems (``records``: theirs, in plan order)."""
        status = Counter(r["status"] for r in records)
        sizes = Counter(r["n"] for r in records if r.get("proven_minimal"))
        return {
            "options": options,
            "requests": self.requests,
            "planned": len(plan.problems),
            "finished": len(records),
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
                for r in records
                if not r.get("solution")
            ],
            "not_proven_minimal": [
                r["id"] for r in records if r.get("solution") and not r.get("proven_minimal")
            ],
            "skipped": plan.skipped,
            "rejected_records": self.rejected,
            "outside_plan": sorted(set(self.results) - set(plan.ids)),
            "search_seconds": round(sum(r.get("seconds", 0.0) for r in records), 3),
            "files": {
                "problems": PROBLEMS_FILE,
                "multicolor": MULTICOLOR_FILE,
                "solutions": SOLUTIONS_FILE,
                "results": RESULTS_FILE,
                "plan": PLAN_FILE,
            },
        }


def _merged(folder: ProblemSetPlan, plan: ProblemSetPlan) -> ProblemSetPlan:
    """The folder's problems, then the new ones of ``plan`` (``--extend``)."""
    known = set(folder.ids)
    skipped = folder.skipped + [s for s in plan.skipped if s not in folder.skipped]
    return ProblemSetPlan(
        problems=folder.problems + [p for p in plan.problems if p.id not in known],
        skipped=skipped,
    )


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
