"""The evaluation harness: every (problem, setting, run) asked of a model, graded and recorded.

The package loads nothing by itself: import what you need from its modules
(:mod:`.runner` for ``EvalOptions`` and ``run_eval``, :mod:`.backends` for ``make_backend``,
:mod:`.conversation`, :mod:`.multiround`, :mod:`.summary`, :mod:`.types`), so that a scorer or
a reward that needs one module does not load every backend and ``openai``.

>>> from ramseygadgets.harness.runner import EvalOptions, run_eval
>>> outcome = run_eval(EvalOptions(out=Path("runs/solver")))          # doctest: +SKIP

See docs/eval.md for the command line, the backends and the run-directory format.
"""
