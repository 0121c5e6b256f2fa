"""The evaluation harness: every (problem, setting, run) asked of a model, graded and recorded.

The package loads nothing by itself: import what you need from its modules
(:mod:`.runner` for ``EvalOptions`` and ``run_eval``, :mod:`.backends` for ``make_backend``,
:mod:`.conversation`, :mod:`.multiround`, :mod:`.summary`, :mod:`.types`), so that a scorer or
a reward that needs one module does not load every backend and ``openai``.

``run_eval(EvalOptions(out=Path("runs/solver")))`` (both from :mod:`.runner`) evaluates the
exact solver and writes its run directory; docs/eval.md shows the command line, the backends
and the run-directory format.
"""
