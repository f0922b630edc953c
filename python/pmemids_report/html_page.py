"""index.html from the Jinja2 template templates/index.html.j2 (autoescaped).

The page, top to bottom: a banner when any record was measured on emulated PMEM,
a summary of the inputs, the warnings, the environment, every figure (PNG linked
to its SVG) with its table and caption, the configurations with their seeds, and
the skipped configurations with their reasons.
"""

from __future__ import annotations

from pathlib import Path

import jinja2


def render(out_dir: Path, **page) -> Path:
    env = jinja2.Environment(loader=jinja2.PackageLoader("pmemids_report", "templates"),
                             autoescape=True, undefined=jinja2.StrictUndefined,
                             trim_blocks=True, lstrip_blocks=True)
    path = out_dir / "index.html"
    path.write_text(env.get_template("index.html.j2").render(**page), encoding="utf-8")
    return path
