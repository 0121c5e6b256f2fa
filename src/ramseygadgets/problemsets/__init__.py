"""Generated problem sets: from lists of F and H (or colouring specs with any number of colours)
to problems with minimal solutions, written as one problem file of every colour count.

Modules, one concern each:

* :mod:`.patterns`: the request's patterns (names, graph6, edge lists, ``connected:k``: every
  connected graph on k vertices, from nauty's ``geng -c``), deduplicated up to isomorphism; the
  size of a request before any enumeration; the polynomial pairs;
* :mod:`.plan`: the plan (:func:`plan_problem_set`):

  - pairs (F, H): F from the F list, H from the H list, deduplicated up to colour swap ((F, H)
    and (H, F) are the same problem with the colours exchanged; the first orientation met is
    kept);
  - gadget types, filtered by the rules: determiners only when F ≇ H (otherwise exchanging the
    colours maps good colorings to good colorings and no edge is forced); senders always;
    clause/variable gadgets only when F is a star K1,k and the pair is NP-hard, i.e. not in the
    list of polynomial pairs (built in: the paper's four, :data:`BUILTIN_POLYNOMIAL_PAIRS`; or a
    file given by the user) and not two stars.  Two stars (K1,a, K1,b) are always polynomial: a
    good coloring is a red subgraph R with deg_G(v) − b + 1 ≤ deg_R(v) ≤ a − 1 at every vertex,
    a (g,f)-factor, which is decidable in polynomial time.  Other pairs are *treated* as NP-hard;
  - specs (``"P3 | K3,C4 | K4"``): a determiner for each colour without a twin colour (same
    forbidden set), and both senders; a two-colour spec with one pattern per colour is a pair;

* :mod:`.records`: the problem of a record, the check of every record read back
  (:func:`check_record`), :func:`strength`, and the exported row (:func:`export_row`);
* :mod:`.results`: the ``results.jsonl`` checkpoint (:func:`append_record`,
  :func:`read_results_file`);
* :mod:`.writer`: the output folder (:class:`ProblemSetWriter`, locked by one run at a time):

  - ``plan.json``: the folder's one problem set (problems, what the rules left out, the requests
    that made it), written before any solving; another set is refused unless extended;
  - ``results.jsonl``: one record per finished problem, appended (one write, fsynced) as each
    finishes: the checkpoint.  Every record read back is checked (types, ranges, the solution
    through the verifier); a failing line is reported by file and line and its problem solved
    again; of several records of a problem the strongest counts.  A re-run skips recorded
    problems; ``Ctrl-C`` loses only problems in flight;
  - ``problems.jsonl``: every problem with a solution, of any number of colours, one row each
    with ``schema_version`` (:data:`~ramseygadgets.problems.problem.PROBLEM_SCHEMA_VERSION`), ``colors``
    (``F``/``H`` too for pairs), the fields of ``ramseygadgets export`` (``problems`` table)
    where they apply, plus ``solution`` and ``status``: the file ``ramseygadgets eval
    --dataset`` reads;
  - ``solutions.json``: the proven-minimal two-colour solutions in the format of
    ``data/solutions.json``;
  - ``manifest.json``: the options, the counts, the distribution of minimal sizes, and every
    problem without a solution within the limits, with its status, of exactly the folder's plan;

* :mod:`.load`: reading a set back (:func:`load_generated`), including the files of older
  releases (two-colour ``problems.jsonl`` rows with ``F``/``H`` only, ``multicolor.jsonl``).
"""

from __future__ import annotations

from ramseygadgets.problemsets.base import (
    LEGACY_MULTICOLOR_FILE,
    MANIFEST_FILE,
    PLAN_FILE,
    PROBLEMS_FILE,
    RESULTS_FILE,
    SOLUTIONS_FILE,
    ProblemSetError,
)
from ramseygadgets.problemsets.load import GeneratedEntry, load_generated, problem_set_files
from ramseygadgets.problemsets.patterns import (
    BUILTIN_POLYNOMIAL_PAIRS,
    CONNECTED_GRAPHS,
    PLAN_LIMIT,
    PlanEstimate,
    Progress,
    connected_count,
    connected_graphs,
    estimate_plan,
    expand_patterns,
    load_polynomial_pairs,
    pair_key,
    polynomial_reason,
)
from ramseygadgets.problemsets.plan import (
    DETERMINERS,
    GADGET_GROUPS,
    ProblemSetPlan,
    pair_problems,
    parse_gadgets,
    plan_problem_set,
    spec_problems,
)
from ramseygadgets.problemsets.records import (
    RECORD_MAX_VERTICES,
    STATUSES,
    candidate_of_record,
    check_record,
    export_row,
    problem_json,
    problem_of_record,
    strength,
    strongest,
)
from ramseygadgets.problemsets.results import (
    ResultsRead,
    append_record,
    iter_records,
    read_results,
    read_results_file,
    repair_torn_tail,
)
from ramseygadgets.problemsets.writer import ProblemSetWriter

__all__ = [
    "BUILTIN_POLYNOMIAL_PAIRS",
    "CONNECTED_GRAPHS",
    "DETERMINERS",
    "GADGET_GROUPS",
    "LEGACY_MULTICOLOR_FILE",
    "MANIFEST_FILE",
    "PLAN_FILE",
    "PLAN_LIMIT",
    "PROBLEMS_FILE",
    "RECORD_MAX_VERTICES",
    "RESULTS_FILE",
    "SOLUTIONS_FILE",
    "STATUSES",
    "GeneratedEntry",
    "PlanEstimate",
    "ProblemSetError",
    "ProblemSetPlan",
    "ProblemSetWriter",
    "Progress",
    "ResultsRead",
    "append_record",
    "candidate_of_record",
    "check_record",
    "connected_count",
    "connected_graphs",
    "estimate_plan",
    "expand_patterns",
    "export_row",
    "iter_records",
    "load_generated",
    "load_polynomial_pairs",
    "pair_key",
    "pair_problems",
    "parse_gadgets",
    "plan_problem_set",
    "polynomial_reason",
    "problem_json",
    "problem_of_record",
    "problem_set_files",
    "read_results",
    "read_results_file",
    "repair_torn_tail",
    "spec_problems",
    "strength",
    "strongest",
]
