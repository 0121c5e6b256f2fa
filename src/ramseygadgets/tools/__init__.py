"""The tools a model may call while it answers: the coloring tool (:mod:`.coloring`, the
multiround setting) and Python programs run in the sandbox (:mod:`.python`, the python setting)."""
