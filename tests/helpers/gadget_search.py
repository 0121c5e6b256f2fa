"""The program scripted models run in the python setting (``eval``'s loop and the Inspect task):
a search for a gadget with networkx and PySAT, inside the sandbox.  ``tests/conftest.py`` puts
this folder on ``sys.path``."""

from __future__ import annotations

from ramseygadgets.problems.problem import Problem

__all__ = ["search_program", "found_answer"]


def search_program(problem: Problem) -> str:
    """What the scripted model runs: every graph of networkx's atlas (up to 7 vertices, fewest
    vertices and edges first), its good colourings as CNF (one variable per edge and colour,
    copies found with networkx), PySAT asked whether an edge has the determined colour in all."""
    patterns = [list(p.graph.edges) for p in problem.patterns]
    return f"""
import itertools, json
import networkx as nx
from networkx.algorithms import isomorphism
from pysat.solvers import Solver

PATTERNS = [nx.Graph(edges) for edges in {patterns!r}]
FORCED = {problem.determined_color!r}

def copies(G, P):
    found = set()
    for m in isomorphism.GraphMatcher(G, P).subgraph_monomorphisms_iter():
        back = {{v: k for k, v in m.items()}}
        found.add(frozenset(frozenset((back[a], back[b])) for a, b in P.edges()))
    return found

def encode(G):
    k = len(PATTERNS)
    var = {{(frozenset(e), c): 1 + i * k + c for i, e in enumerate(G.edges()) for c in range(k)}}
    clauses = []
    for e in G.edges():
        clauses.append([var[frozenset(e), c] for c in range(k)])
        clauses += [[-var[frozenset(e), a], -var[frozenset(e), b]] for a, b in itertools.combinations(range(k), 2)]
    for c, P in enumerate(PATTERNS):
        clauses += [[-var[e, c] for e in copy] for copy in copies(G, P)]
    return clauses, var

for G in nx.graph_atlas_g()[1:]:
    if min(d for _, d in G.degree()) == 0:
        continue
    clauses, var = encode(G)
    with Solver(name="minisat22", bootstrap_with=clauses) as solver:
        if not solver.solve():
            continue
        for u, v in G.edges():
            if not solver.solve(assumptions=[-var[frozenset((u, v)), FORCED]]):
                print("FOUND " + json.dumps({{"edges": sorted(map(sorted, G.edges())), "e": [u, v]}}))
                raise SystemExit(0)
print("none up to 7 vertices")
"""


def found_answer(output: str) -> str:
    """The final reply built from the program's output: the graph it printed after ``FOUND``."""
    found = output.split("FOUND ", 1)[1].splitlines()[0]
    return f"The program found one.\n\n```json\n{found}\n```"
