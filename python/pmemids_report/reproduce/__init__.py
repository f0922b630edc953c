"""pmemids reproduce: the seed papers' claims as runnable checks with verdicts.

claims.py (claim files), predicate.py (the predicate language), evaluate.py (a check over
records, with its test), verdict.py (a claim's verdict and record), machine.py (what this
machine and binary can show), rows.py (records to rows), cli.py (the command). See
docs/reproduce.md.
"""
