"""Start-up: registering the commands loads nothing heavy (timed by ``bench/startup.py``, not
here), ``problems`` lists the paper's set without the SAT solver or numpy, and ``verify`` decides
an answer with the SAT solver alone (the brute force's numpy and networkx load only when it runs)."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import networkx as nx
import pytest

from ramseygadgets.core.graphs import Graph

HEAVY = ("numpy", "numba", "pysat", "networkx", "scipy")


def loaded_after(code: str) -> list[str]:
    """The heavy top-level packages in ``sys.modules`` after running ``code`` in a fresh process."""
    probe = (
        f"{code}\nimport json, sys\n"
        f"print(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r}))))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize(
    "code", ["import ramseygadgets.cli.app", "import ramseygadgets.cli", "import ramseygadgets"]
)
def test_importing_the_cli_loads_nothing_heavy(code: str) -> None:
    assert loaded_after(code) == []


def test_registering_the_commands_loads_no_progress_bar() -> None:
    """rich's progress module loads only when a command shows a bar (``cli.progress``)."""
    probe = "import sys, ramseygadgets.cli\nprint('rich.progress' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_problems_loads_no_sat_solver_nor_numpy() -> None:
    code = (
        "import contextlib, io, sys\nsys.argv = ['ramseygadgets', 'problems', '--json']\n"
        "from ramseygadgets.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
        "    main()"
    )
    assert loaded_after(code) == []


def test_verify_loads_the_sat_solver_only(tmp_path) -> None:
    answer = tmp_path / "answer.json"
    answer.write_text('{"edges": [[0,1],[0,2],[0,3],[0,4],[1,2],[1,3],[1,4]], "e": [0,1]}')
    code = (
        "import contextlib, io, sys\n"
        f"sys.argv = ['ramseygadgets', 'verify', 'p3_k3_red_determiner', {str(answer)!r}]\n"
        "from ramseygadgets.cli import main\n"
        "out = io.StringIO()\n"
        "with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):\n"
        "    main()\n"
        "assert 'CORRECT' in out.getvalue(), out.getvalue()"
    )
    assert loaded_after(code) == ["pysat"]


def test_the_facade_still_gives_its_names() -> None:
    import ramseygadgets

    for name in ramseygadgets.__all__:
        assert getattr(ramseygadgets, name) is not None
    assert ramseygadgets.get_problem("k13_k4_red_determiner").id == "k13_k4_red_determiner"
    with pytest.raises(AttributeError):
        ramseygadgets.no_such_name  # noqa: B018


def test_graph6_is_networkx_s() -> None:
    """``Graph.to_graph6`` writes what networkx writes (one- and four-byte vertex counts)."""
    rng = random.Random(6)
    for n in [*range(12), 62, 63, 64, 100]:
        density = rng.random()
        edges = tuple((u, v) for u in range(n) for v in range(u + 1, n) if rng.random() < density)
        reference = nx.Graph()
        reference.add_nodes_from(range(n))
        reference.add_edges_from(edges)
        expected = nx.to_graph6_bytes(reference, header=False).decode().strip()
        assert Graph(n, edges).to_graph6() == expected
