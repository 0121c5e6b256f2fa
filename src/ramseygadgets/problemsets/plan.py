"""The plan: from the request's patterns, pairs and specs to the problems to solve, in order,
with what the rules left out and why (see :mod:`ramseygadgets.problemsets`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ramseygadgets.colorings.spec import ColoringSpec, SpecError
from ramseygadgets.core.gadgets import COLOR_NAMES, GadgetKind, GadgetType
from ramseygadgets.core.patterns import Pattern, canonical_graph6
from ramseygadgets.problems.problem import Problem
from ramseygadgets.problemsets.base import ProblemSetError
from ramseygadgets.problemsets.patterns import (
    PLAN_LIMIT,
    Progress,
    estimate_plan,
    expand_patterns,
    load_polynomial_pairs,
    pair_key,
    polynomial_reason,
)

__all__ = [
    "DETERMINERS",
    "GADGET_GROUPS",
    "ProblemSetPlan",
    "pair_problems",
    "parse_gadgets",
    "plan_problem_set",
    "spec_problems",
]

GADGET_GROUPS = {
    "determiners": ("red-determiner", "blue-determiner", "determiner"),
    "senders": ("positive-sender", "negative-sender"),
    "hardness": ("clause-gadget", "variable-gadget"),
}

#: Determiner names: ``determiner`` (any colour) and one per colour name of a spec.
DETERMINERS = ("determiner", *(f"{color}-determiner" for color in COLOR_NAMES))


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

    problems: list[Problem] = field(default_factory=list)
    skipped: list[dict[str, str]] = field(default_factory=list)
    #: the gadget types of the request's pairs (all six) and specs (their colours' determiners
    #: and the senders), whether planned or not
    types: set[str] = field(default_factory=set)

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
    """Add the gadget types of the pair (F, H) that the rules allow to ``plan``."""
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
    """Add a determiner for each colour without a twin, and both senders, of ``spec``."""
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


def _parse_specs(specs: list[str]) -> list[ColoringSpec]:
    out = []
    for text in specs:
        try:
            out.append(ColoringSpec.parse(text))
        except SpecError as exc:
            raise ProblemSetError(str(exc)) from None
    return out


class _Planner:
    """Adds pairs and specs to one plan, each pair and spec once (up to colour renaming)."""

    def __init__(self, wanted: set[str] | None, polynomial: set[tuple[str, str]]) -> None:
        self.wanted, self.polynomial = wanted, polynomial
        self.plan = ProblemSetPlan()
        self.pairs: set[tuple[str, str]] = set()
        self.specs: set[Any] = set()

    def add_pair(self, F: Pattern, H: Pattern, *, say_repeat: bool = True) -> None:
        key = pair_key(F, H)
        if key in self.pairs:
            if say_repeat:
                reason = "same pair as an earlier one with the colours exchanged"
                self.plan.skipped.append({"problem": f"({F.name}, {H.name})", "reason": reason})
            return
        self.pairs.add(key)
        pair_problems(F, H, self.wanted, self.polynomial, self.plan)

    def add_spec(self, spec: ColoringSpec) -> None:
        if spec.is_pair:  # a two-colour single-pattern spec is a pair: same problems, same ids
            self.add_pair(spec.F, spec.H, say_repeat=False)
            return
        if spec.key in self.specs:
            reason = "same spec as an earlier one with colours renamed"
            self.plan.skipped.append({"problem": spec.title, "reason": reason})
            return
        self.specs.add(spec.key)
        spec_problems(spec, self.wanted, self.plan)


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
    """All problems of the request (see :mod:`ramseygadgets.problemsets` for the rules).

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
    spec_list = _parse_specs(specs)
    if not F_list and not spec_list:
        raise ProblemSetError("nothing to generate: give --F and --H, or --spec")
    planner = _Planner(wanted, load_polynomial_pairs(polynomial_pairs))
    for F in F_list:
        for H in H_list:
            planner.add_pair(F, H)
    for spec in spec_list:
        planner.add_spec(spec)
    _check_ids(planner.plan)
    _check_types(wanted, planner.plan)
    return planner.plan


def _check_ids(plan: ProblemSetPlan) -> None:
    """Different patterns with one display name cannot happen; guard the record format anyway."""
    dupes = [pid for pid, count in Counter(plan.ids).items() if count > 1]
    if dupes:
        raise ProblemSetError(f"two problems share the id {dupes[0]}")


def _check_types(wanted: set[str] | None, plan: ProblemSetPlan) -> None:
    """A wanted gadget type that no pair or spec of the request has is a mistake, not an
    empty set (``green-determiner`` without a spec of three colours)."""
    absent = sorted((wanted or set()) - plan.types - {"determiner"})
    if absent:
        raise ProblemSetError(
            f"no pair or spec of this request has a {absent[0]}; its gadget types are "
            f"{', '.join(sorted(plan.types)) or 'none'}"
        )
