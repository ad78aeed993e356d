#!/usr/bin/env python3
"""Renders docs/src/review-session.svg: a `goldgate review` session as a user sees it.

Builds a small gold set in a temporary folder, runs its tests, starts `goldgate review` in a
tmux window of its own, captures the first item's screen with its colours (`tmux capture-pane
-e -p`) and writes it as an SVG of text.

    cargo build && python3 docs/review-screenshot.py [path/to/goldgate]
"""

import html
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDGATE = os.path.abspath(
    sys.argv[1]
    if len(sys.argv) > 1
    else os.path.join(
        os.environ.get("CARGO_TARGET_DIR", os.path.join(HERE, "..", "target")), "debug", "goldgate"
    )
)
OUT = os.path.join(HERE, "src", "review-session.svg")
COLUMNS, ROWS = 92, 19

FILES = {
    "cases/invoices/suite.yaml": (
        "pipelines:\n  guided: out/guided/{case}.json\n  all_in_one: out/all_in_one/{case}.json\n"
        "defaults:\n  thresholds: { min_exact_match: 1.0 }\n"
    ),
    "cases/invoices/acme-173.yaml": (
        "# ACME invoice no. 173, scanned at 200 dpi\n"
        "document: scans/acme-173.pdf\n"
        "gold:\n"
        '  invoice_number: "0173"   # as printed\n'
        "  total_ttc: 1234.50\n"
        "  issue_date: 2024-03-05\n"
    ),
    "cases/invoices/scans/acme-173.pdf": "%PDF-1.4\n",
    "cases/invoices/out/guided/acme-173.json": (
        '{"invoice_number": "0173", "total_ttc": {"value": "1243.50", "confidence": 0.97},'
        ' "issue_date": {"value": "05/03/2024", "confidence": 0.88}}'
    ),
    "cases/invoices/out/all_in_one/acme-173.json": (
        '{"invoice_number": "0173", "total_ttc": {"value": "1243.50", "confidence": 0.93},'
        ' "issue_date": {"value": "2024-03-05", "confidence": 0.71}}'
    ),
}

PALETTE = {30: "#3b4252", 31: "#e06c75", 32: "#98c379", 33: "#e5c07b", 34: "#61afef",
           35: "#c678dd", 36: "#56b6c2", 37: "#dcdfe4"}
FOREGROUND, BACKGROUND, DIM = "#dcdfe4", "#1e2127", "#7f848e"


def spans(line):
    """The runs of text of a line of `capture-pane -e` with their style."""
    style = {"fg": None, "bold": False, "dim": False}
    out = []
    for part in re.split(r"(\x1b\[[0-9;]*m)", line):
        if part.startswith("\x1b["):
            codes = [int(c) if c else 0 for c in part[2:-1].split(";")]
            for code in codes:
                if code == 0:
                    style = {"fg": None, "bold": False, "dim": False}
                elif code == 1:
                    style["bold"] = True
                elif code == 2:
                    style["dim"] = True
                elif code == 22:
                    style["bold"] = style["dim"] = False
                elif code == 39:
                    style["fg"] = None
                elif code in PALETTE:
                    style["fg"] = PALETTE[code]
                elif 90 <= code <= 97:
                    style["fg"] = PALETTE[code - 60]
        elif part:
            out.append((part, dict(style)))
    return out


def svg(screen):
    char_w, line_h, pad = 8.4, 19, 14
    width, height = COLUMNS * char_w + 2 * pad, ROWS * line_h + 2 * pad + 24
    rows = [
        f'<rect width="{width:.0f}" height="{height:.0f}" rx="8" fill="{BACKGROUND}"/>',
        *(f'<circle cx="{18 + 18 * i}" cy="14" r="5" fill="{c}"/>'
          for i, c in enumerate(["#e06c75", "#e5c07b", "#98c379"])),
    ]
    for n, line in enumerate(screen.split("\n")[:ROWS]):
        y = pad + 24 + (n + 1) * line_h - 5
        tspans = []
        for text, style in spans(line):
            fill = style["fg"] or (DIM if style["dim"] else FOREGROUND)
            weight = ' font-weight="bold"' if style["bold"] else ""
            tspans.append(f'<tspan fill="{fill}"{weight}>{html.escape(text)}</tspan>')
        if tspans:
            rows.append(f'<text x="{pad}" y="{y}" xml:space="preserve">{"".join(tspans)}</text>')
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        f'font-family="DejaVu Sans Mono, Menlo, Consolas, monospace" font-size="14">\n'
        + "\n".join(rows)
        + "\n</svg>\n"
    )


def main():
    with tempfile.TemporaryDirectory() as root:
        for path, text in FILES.items():
            os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
            with open(os.path.join(root, path), "w") as f:
                f.write(text)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("GOLDGATE_", "NEXTEST_"))}
        subprocess.run([GOLDGATE, "test", "cases", "--report", "report.json"], cwd=root, env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        sock = os.path.join(root, "tmux.sock")
        tmux = ["tmux", "-S", sock]
        env.pop("TMUX", None)
        env.pop("NO_COLOR", None)
        subprocess.run(tmux + ["new-session", "-d", "-s", "shot", "-x", str(COLUMNS), "-y", str(ROWS),
                               "-c", root, f"{GOLDGATE} review cases --report report.json; sleep 30"],
                       env=env, check=True)
        try:
            def screen():
                return subprocess.run(tmux + ["capture-pane", "-e", "-p", "-t", "shot"],
                                      capture_output=True, text=True).stdout

            def wait(text):
                for _ in range(200):
                    if text in re.sub(r"\x1b\[[0-9;]*m", "", screen()):
                        return
                    time.sleep(0.05)
                raise SystemExit(f"the screen never showed {text!r}:\n{screen()}")

            wait("review 1/")
            shot = screen()
            subprocess.run(tmux + ["send-keys", "-t", "shot", "q"], check=True)
        finally:
            subprocess.run(tmux + ["kill-server"])
    with open(OUT, "w") as f:
        f.write(svg(shot))
    print(f"wrote {os.path.relpath(OUT)}")


if __name__ == "__main__":
    main()
