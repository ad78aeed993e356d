"""A stand-in extraction pipeline for goldgate's `run:` example.

Reads a plain-text receipt and prints the fields it finds as a goldgate field document on
standard output. Exits non-zero when the document cannot be read, as a real pipeline would.
"""

import json
import re
import sys


def extract(text):
    def find(pattern):
        match = re.search(pattern, text, re.IGNORECASE | re.MULTILINE)
        return match.group(1).strip() if match else None

    return {
        "store": text.strip().splitlines()[0].strip(),
        "receipt_number": find(r"^(?:receipt|ticket)\s*(?:no\.?|n°)\s*:?\s*(\S+)"),
        "date": find(r"^date\s*:?\s*(.+)$"),
        "total": find(r"^total\s*(?:ttc)?\s*:?\s*(.+)$"),
        "payment_method": find(r"^(?:paid by|payment|paiement)\s*:?\s*(\w+)"),
    }


def main():
    if len(sys.argv) != 2:
        print("usage: extract.py DOCUMENT", file=sys.stderr)
        return 2
    try:
        with open(sys.argv[1], encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        print(f"cannot read {sys.argv[1]}: {e}", file=sys.stderr)
        return 1
    fields = {k: v for k, v in extract(text).items() if v is not None}
    print(json.dumps({"fields": fields, "model": "rules-v1"}, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
