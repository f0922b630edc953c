"""pmemids_report: figures, tables and an HTML page from pmemids result records.

Called as `pmemids report FILE|DIR... --out DIR [--csv PATH]` (the C++ binary
forwards to `python -m pmemids_report`). See docs/report.md.
"""
