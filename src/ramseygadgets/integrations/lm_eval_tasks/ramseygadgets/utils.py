"""lm-evaluation-harness hooks of the RamseyGadgets tasks (loaded by ``!function utils.…``).

The logic lives in the installed package, :mod:`ramseygadgets.integrations.lm_eval`.
"""

from ramseygadgets.integrations.lm_eval import load_dataset, process_results

__all__ = ["load_dataset", "process_results"]
