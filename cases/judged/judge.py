"""A stand-in judge for the example suite: reads {"question", "text", "field", "gold", "case"} on
standard input and prints {"held": true|false, "explanation": "..."}, as a model-backed judge
would. It answers by rules so that the example runs offline:
- a question quoting a phrase ("...") holds when the text contains it (case folded);
- a question about not claiming payment holds when the text says nothing of a payment made;
- any other question holds when the text has each of its words of seven letters or more.
"""
import json
import re
import sys

ask = json.load(sys.stdin)
question, text = ask["question"], ask["text"]
folded = text.lower()
quoted = re.findall(r'"([^"]+)"', question)
if quoted:
    missing = [q for q in quoted if q.lower() not in folded]
    held = not missing
    why = "quotes " + ", ".join(quoted) if held else "does not quote " + ", ".join(missing)
elif "paid" in question.lower():
    claims = [c for c in ("has been paid", "was paid", "paid in full", "settled") if c in folded]
    held = not claims
    why = "claims no payment" if held else "claims a payment: " + ", ".join(claims)
else:
    words = [w for w in re.findall(r"[a-z]{7,}", question.lower())]
    missing = [w for w in words if w not in folded]
    held = not missing
    why = "mentions " + ", ".join(words) if held else "never mentions " + ", ".join(missing)
print(json.dumps({"held": held, "explanation": "the text " + why}))
