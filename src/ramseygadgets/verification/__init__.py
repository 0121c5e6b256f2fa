"""Verification (layer 4): a candidate's verdict on one incremental SAT solver (``verifier``),
the two independent brute forces, the gadget census, the second check (``recheck``), problem-set
files, proofs of minimality, what an optimum rests on (``basis``) and which problems a command
runs (``selection``).  Nothing is imported here: each module loads on its own."""
