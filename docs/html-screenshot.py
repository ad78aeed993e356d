#!/usr/bin/env python3
"""Renders the book's screenshots of the HTML page: the DocuBench suite (50 documents, 6 systems,
`compare_to: neighbours`, 300 tests) run with `--html`, laid out by headless Chromium at 1,280 px.

    cargo build && GOLDGATE_DOCUBENCH=../shared/docubench python3 docs/html-screenshot.py [path/to/goldgate]

Writes docs/src/html-report.png (the verdict, the pipelines and the comparison) and
docs/src/html-report-slices.png (the slices and the fields). The DocuBench data is read where
GOLDGATE_DOCUBENCH says, through links in a temporary folder; none of it is written here.
"""

import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDGATE = os.path.abspath(
    sys.argv[1]
    if len(sys.argv) > 1
    else os.path.join(
        os.environ.get("CARGO_TARGET_DIR", os.path.join(HERE, "..", "target")), "debug", "goldgate"
    )
)
DATA = os.environ.get("GOLDGATE_DOCUBENCH") or sys.exit("GOLDGATE_DOCUBENCH names the DocuBench data")


def suite():
    """The suite of tests/docubench.rs, as the README's example writes it."""
    source = open(os.path.join(HERE, "..", "tests", "docubench.rs")).read()
    return re.search(r'const SUITE: &str = "\\\n(.*?)";\n', source, re.S).group(1)


def shot(page, keep, out, height):
    """A screenshot at 1,280 px of `page` with only the sections named in `keep`."""
    parts = re.split(r'(?=<section id=)', page)
    kept = [parts[0]]
    for part in parts[1:]:
        name = re.match(r'<section id="([^"]+)"', part).group(1)
        end = part.index("</section>") + len("</section>")
        if name in keep:
            kept.append(part[:end])
        kept.append(part[end:])
    with tempfile.TemporaryDirectory() as tmp:
        html = os.path.join(tmp, "page.html")
        open(html, "w").write("".join(kept))
        subprocess.run(
            ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
             f"--user-data-dir={tmp}/profile", "--hide-scrollbars", f"--window-size=1280,{height}",
             f"--screenshot={out}", f"file://{html}"],
            check=True, capture_output=True,
        )


def main():
    with tempfile.TemporaryDirectory() as tmp:
        folder = os.path.join(tmp, "cases", "docubench")
        os.makedirs(folder)
        for part in ["labels", "schemas", "results", "sources.json"]:
            os.symlink(os.path.join(os.path.abspath(DATA), part), os.path.join(folder, part))
        open(os.path.join(folder, "suite.yaml"), "w").write(suite())
        env = dict(os.environ, NO_COLOR="1")
        for name in ["GOLDGATE_REPORT", "GOLDGATE_JUNIT", "GOLDGATE_HTML", "GITHUB_STEP_SUMMARY"]:
            env.pop(name, None)
        subprocess.run([GOLDGATE, "test", "cases", "--html", "page.html"], cwd=tmp, env=env,
                       capture_output=True)
        page = open(os.path.join(tmp, "page.html")).read()
    shot(page, {"pipelines", "comparisons"}, os.path.join(HERE, "src", "html-report.png"), 1330)
    shot(page, {"slices", "fields"}, os.path.join(HERE, "src", "html-report-slices.png"), 1500)


main()
