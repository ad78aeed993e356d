"""Generates tests/reference/kieval.jsonl: documents in KIEval's CSV layout, each scored by
KIEval's own published scorer, on inputs nobody tuned goldgate to (a fixed seed), for
`profile: kieval`.

    python3 -m venv /tmp/kieval-venv
    /tmp/kieval-venv/bin/pip install numpy scipy rich pyyaml
    /tmp/kieval-venv/bin/python tests/reference/kieval.py KIEVAL [OUT]

KIEVAL is a clone of UpstageAI/KIEval (bare or not; the files are read from its HEAD with `git
show`) or a folder holding `KIEval/kieval.py` and `KIEval/utils.py`. The scorer is fetched by
whoever makes the values again: it is not in this repository. The script copies `KIEval/` to a
temporary folder and imports it from there (KIEval imports NumPy, SciPy, rich and PyYAML). OUT
defaults to `kieval.jsonl` next to this script. Values last made with KIEval at commit
95914a47780d420472b0a9450f77cc977deef1fb under Python 3.11.7, NumPy 2.4.6, SciPy 1.17.1; the
same bytes come out under KIEval's own pins (Python 3.10.13, NumPy 1.22.1, SciPy 1.10.0, rich
13.5.2, PyYAML 6.0.3) and under any PYTHONHASHSEED.

Each document is scored alone, exactly as `run_eval.py` calls the scorer:
`kieval([gold.csv], [pred.csv], shortlist, empty_token="<empty>", grouping_strategy="hungarian",
value_delimiter="||", entity_type_delimiter="\\t", split_merged_value=True,
include_empty_token_in_score_calculation=False, print_score=False)`, with two shortlists:
`"all"`, every key either file names (a group's line of keys, an entity line's key: nothing is
dropped, goldgate's default), and `"cord"`, CORD's 30 classes as `eval_utils.load_ontology`
derives them from naver-clova-ix/cord-v2 (`CORD_KEYS` below). Sets of 40 to 120 of the
documents are also scored together in one call, which pools KIEval's counts over the set.

The documents: CORD-like receipts written as `run_eval.py`'s `write_csv_for_cord` writes them
(groups `0` menu, `1` sub_total, `2` total, `3` void_menu, every class of the group in the line
of keys, `<empty>` where a class has no value, `||` between several values, cells quoted by
Python's `csv` writer) and in other layouts (only the keys used, totals outside groups, no groups
at all, the keys of KIEval's README example), generic small documents over few values (so that
alignments tie), and predictions perturbed from them: values changed, deleted, added, `<empty>`
and empty cells, merged values split, reordered or dropped in part, items dropped, added,
reordered, duplicated, keys outside CORD's ontology, groups gold lacks, group numbers written in
other scripts (`٣`, `३`, `３`, `𝟘`) or followed by text (`12` is group 1), rows shorter or
longer than their line of keys, blank lines, Unicode values, values with spaces, empty
predictions. Left out: a document KIEval raises on (it is counted and reported), and what
goldgate refuses by design: a line of keys naming one key twice, a block starting with a digit
`int` cannot read (`²`), a key naming both a group's digit and an entity.

Each line (`\\n` ends, keys sorted, floats as `json.dumps` writes them):
`{"kind": "document", "id", "gold", "pred", "keys": "all" | "cord", "counts", "precision",
"recall", "f1", "aligned"}` and `{"kind": "set", "id", "documents": [ids], "keys", "counts", ...}`.
`counts` holds goldgate's four tallies (`src/metrics/kieval.rs`): `ungrouped` is KIEval's
non-group entities (`total.non_group`), `grouped` its entities inside groups (`total.group`),
`items` its items (`total.grouping`), `total` what it scores (`total.kieval`), each
`{"labels": label, "exact": TP, "false_positives": FP, "false_negatives": FN, "wrong":
wrong_match, "missing": no_match}`, summed over KIEval's confusion matrix as its `get_kieval` sums
it (kept even where KIEval leaves a part out of its total because gold has none of it);
`precision`, `recall`, `f1`, `aligned` are `total.kieval`'s `precision`, `recall`,
`kieval_entity_f1`, `kieval_aligned`. Before anything is written, KIEval is run on
`tests/fixtures/kieval/` and must give the counts `tests/kieval.rs` asserts there. The script
prints how many documents it left out and why; with KIEVAL_RAISED=PATH it writes the documents
KIEval raised on to PATH. Not run by the tests (they read the JSONL).
"""
import contextlib
import copy
import csv
import io
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import unicodedata
from pathlib import Path

SEED = 20250305
CANDIDATES = 2850
SETS = 24

# CORD's classes, as `eval_utils.load_ontology("naver-clova-ix/cord-v2")` derives them (sorted).
CORD_KEYS = sorted([
    "menu.cnt", "menu.discountprice", "menu.etc", "menu.itemsubtotal", "menu.nm", "menu.num",
    "menu.price", "menu.sub_cnt", "menu.sub_etc", "menu.sub_nm", "menu.sub_price",
    "menu.sub_unitprice", "menu.unitprice", "menu.vatyn", "sub_total.discount_price",
    "sub_total.etc", "sub_total.othersvc_price", "sub_total.service_price",
    "sub_total.subtotal_price", "sub_total.tax_price", "total.cashprice", "total.changeprice",
    "total.creditcardprice", "total.emoneyprice", "total.menuqty_cnt", "total.menutype_cnt",
    "total.total_etc", "total.total_price", "void_menu.nm", "void_menu.price",
])
assert len(CORD_KEYS) == 30
# `load_ontology`'s ontology_info: a group per top-level category, numbered in sorted order.
CATEGORIES = ["menu", "sub_total", "total", "void_menu"]
GROUP = {c: (i, [k for k in CORD_KEYS if k.split(".")[0] == c]) for i, c in enumerate(CATEGORIES)}

EMPTY = "<empty>"
SEP = "||"

# The same digit in other scripts (Python's `int` reads each): Arabic-Indic, extended
# Arabic-Indic, Devanagari, Bengali, Thai, full-width, mathematical bold and double-struck.
ZEROS = [0x0660, 0x06F0, 0x0966, 0x09E6, 0x0E50, 0xFF10, 0x1D7CE, 0x1D7D8]
# Headings of entity blocks: some start with a character that is numeric but no digit to
# `isdigit` (`Ⅻ`, `½`), so the block stays one of entities.
HEADINGS = ["info", "total", "SUMMARY", "Ⅻ totals", "½ price", "store", "kasir: ANI",
            "-- footer --", " header", "Struk", "領収書", "total.total_price"]

NAMES = ["Nasi Goreng", "ES TEH MANIS", "Café Latte", "Cafe\u0301 Latte", "아메리카노", "焼きそば",
         "Bánh mì", "PAKET A (2 pcs)", "Kopi Susu", "Ayam Bakar", "Teh Botol", "Croissant",
         "Mie Ayam", "Jus Jeruk", "Σουβλάκι", "Roti bakar  keju", " Air Mineral",
         "Burger\u00a0Deluxe", "Pho\u3000Bo", "Dim Sum 点心", "קפה הפוך", "شاي بالنعناع",
         "Пельмени", "ข้าวผัด", "Ice Cream 🍦", '"Special" Tea', '5" Pizza', "Tahu Isi ",
         "CHICKEN KATSU", "chicken katsu", "Lemon Tea (L)", "Donat\u2028Coklat", "Kue\u0085Lapis",
         "Nasi Uduk", "Es Jeruk", "Sop Buntut", "Gado-gado", "Soto Ayam", "Bakso", "Martabak"]
SUB_NAMES = ["Extra Cheese", "Less Sugar", "Ice", "Large", "Sambal", "Telur", "Keju", "No Ice",
             "Topping Boba", "추가 샷", "大盛り"]
PAYMENT = ["cashprice", "creditcardprice", "emoneyprice"]


def price(rng):
    n = rng.choice([500, 1000, 1500, 2500, 5000, 8000, 12000, 15000, 18181, 22727, 25000,
                    32000, 45000, 60000, 100000, 125500])
    style = rng.random()
    if style < 0.55:
        return f"{n:,}".replace(",", ".")
    if style < 0.7:
        return f"{n:,}"
    if style < 0.8:
        return str(n)
    if style < 0.87:
        return f"{n / 1000:.2f}"
    if style < 0.93:
        return "Rp " + f"{n:,}".replace(",", ".")
    if style < 0.97:
        return "@" + f"{n:,}".replace(",", ".")
    return f"{n:,}".replace(",", ".").translate(FULLWIDTH)


FULLWIDTH = {ord(c): ord(c) - 0x30 + 0xFF10 for c in "0123456789"} | {ord("."): 0xFF0E}


def count(rng):
    n = rng.choice([1, 1, 1, 2, 2, 3, 4, 10])
    return rng.choice([str(n), str(n), f"{n}x", f"x{n}", f"{n}.00", f"{n} pcs", chr(0x0660 + n % 10)])


def menu_item(rng):
    item = {"menu.nm": rng.choice(NAMES), "menu.cnt": count(rng), "menu.price": price(rng)}
    if rng.random() < 0.15:
        del item["menu.cnt"]
    if rng.random() < 0.25:
        item["menu.unitprice"] = price(rng)
    if rng.random() < 0.12:
        item["menu.num"] = str(rng.randint(100, 999999))
    if rng.random() < 0.08:
        item["menu.discountprice"] = "-" + price(rng)
    if rng.random() < 0.08:
        item["menu.itemsubtotal"] = price(rng)
    if rng.random() < 0.05:
        item["menu.vatyn"] = rng.choice(["Y", "N", "*"])
    if rng.random() < 0.05:
        item["menu.etc"] = rng.choice(["TAKE AWAY", "dine in", "#12"])
    if rng.random() < 0.25:
        subs = [(rng.choice(SUB_NAMES), rng.choice(["1", "2", EMPTY]), rng.choice([price(rng), EMPTY, "0"]))
                for _ in range(rng.randint(1, 3))]
        item["menu.sub_nm"] = SEP.join(s[0] for s in subs)
        if rng.random() < 0.6:
            item["menu.sub_cnt"] = SEP.join(s[1] for s in subs if s[1] != EMPTY) or EMPTY
        if rng.random() < 0.7:
            item["menu.sub_price"] = SEP.join(s[2] for s in subs if s[2] != EMPTY) or EMPTY
        if rng.random() < 0.1:
            item["menu.sub_unitprice"] = price(rng)
        if rng.random() < 0.05:
            item["menu.sub_etc"] = "+"
    return item


def receipt(rng):
    """A CORD-like `gt_parse`, each category's items flat: class → value (`||` between values)."""
    sample = {"menu": [menu_item(rng) for _ in range(rng.choice([1, 1, 1, 2, 2, 2, 3, 3, 4, 5, 6]))]}
    if rng.random() < 0.75:
        st = {"sub_total.subtotal_price": price(rng)}
        for k, p in [("tax_price", 0.5), ("service_price", 0.25), ("discount_price", 0.15),
                     ("othersvc_price", 0.05), ("etc", 0.05)]:
            if rng.random() < p:
                st["sub_total." + k] = price(rng)
        sample["sub_total"] = [st]
    t = {"total.total_price": price(rng)}
    if rng.random() < 0.1:
        del t["total.total_price"]
    for k, p in [(rng.choice(PAYMENT), 0.6), ("changeprice", 0.35), ("menuqty_cnt", 0.3),
                 ("menutype_cnt", 0.15), ("total_etc", 0.05)]:
        if rng.random() < p:
            t["total." + k] = count(rng) if k.endswith("_cnt") else price(rng)
    if rng.random() < 0.9:
        sample["total"] = [t]
    if rng.random() < 0.06:
        sample["void_menu"] = [{"void_menu.nm": rng.choice(NAMES), "void_menu.price": price(rng)}
                               for _ in range(rng.randint(1, 2))]
    if rng.random() < 0.3:  # gt_parse's category order varies
        cats = list(sample)
        rng.shuffle(cats)
        sample = {c: sample[c] for c in cats}
    return sample


# ---------------------------------------------------------------------------------------------
# Perturbing a receipt's values and items (what a model gets wrong).

def mutate(rng, v):
    """Another value for `v`, near it or not."""
    r = rng.random()
    if r < 0.15 and v:
        at = rng.randrange(len(v))
        return v[:at] + rng.choice("0123456789oOlI.,- ") + v[at + 1:]
    if r < 0.25:
        return v.replace(".", ",") if "." in v else v + ".00"
    if r < 0.33:
        return rng.choice([" " + v, v + " ", v.replace(" ", "  "), v.replace(" ", "")])
    if r < 0.41:
        return v.upper() if v != v.upper() else v.lower()
    if r < 0.47:
        return unicodedata.normalize(rng.choice(["NFD", "NFC", "NFKC"]), v)
    if r < 0.52:
        return v.translate(FULLWIDTH)
    if r < 0.6:
        return EMPTY
    if r < 0.64:
        return ""
    if r < 0.72 and SEP in v:
        parts = v.split(SEP)
        rng.shuffle(parts)
        return SEP.join(parts)
    if r < 0.78 and SEP in v:
        parts = v.split(SEP)
        return rng.choice([SEP.join(parts[:-1]), " ".join(parts), parts[0] + SEP + EMPTY,
                           EMPTY + SEP + SEP.join(parts), v + SEP, v.replace(SEP, "|")])
    if r < 0.82:
        return rng.choice([v + SEP + v, v + SEP + EMPTY, EMPTY + SEP + v, v + SEP, SEP + v,
                           v + SEP + rng.choice(SUB_NAMES)])
    if r < 0.9:
        return price(rng)
    return rng.choice(NAMES + SUB_NAMES)


def perturb_receipt(rng, gold):
    pred = copy.deepcopy(gold)
    for _ in range(rng.choice([0, 0, 1, 1, 2, 2, 3, 4, 6, 9])):
        cat = rng.choice(list(pred)) if pred else None
        if cat is None:
            break
        items = pred[cat]
        op = rng.random()
        if op < 0.3 and items:  # a value changed
            it = rng.choice(items)
            if it:
                k = rng.choice(list(it))
                it[k] = mutate(rng, it[k])
        elif op < 0.38 and items:  # a value deleted
            it = rng.choice(items)
            if it:
                del it[rng.choice(list(it))]
        elif op < 0.46 and items:  # a value added
            it = rng.choice(items)
            k = rng.choice(GROUP[cat][1]) if cat in GROUP else "x"
            it[k] = mutate(rng, it.get(k, price(rng)))
        elif op < 0.53 and items:  # an item dropped
            items.pop(rng.randrange(len(items)))
        elif op < 0.6:  # an item added
            if cat == "menu" or not items:
                items.insert(rng.randint(0, len(items)), menu_item(rng) if cat == "menu"
                             else {k: price(rng) for k in rng.sample(GROUP[cat][1], 2)})
            else:
                items.append(copy.deepcopy(items[0]))
        elif op < 0.68:  # items reordered
            rng.shuffle(items)
        elif op < 0.73 and items:  # an item duplicated
            i = rng.randrange(len(items))
            items.insert(i, copy.deepcopy(items[i]))
        elif op < 0.8 and items:  # a key outside CORD's ontology
            it = rng.choice(items)
            it[rng.choice([f"{cat}.bogus", f"{cat}.nm_2", "total.foo", "menu.name", "store.nm",
                           "menu.sub_nm "])] = rng.choice([price(rng), rng.choice(NAMES), EMPTY])
        elif op < 0.85 and items:  # a value moved to another key
            it = rng.choice(items)
            if len(it) >= 2:
                a, b = rng.sample(list(it), 2)
                it[a], it[b] = it[b], it[a]
        elif op < 0.9 and cat == "menu" and items:  # an item read as a voided one
            it = items.pop(rng.randrange(len(items)))
            pred.setdefault("void_menu", []).append(
                {"void_menu.nm": it.get("menu.nm", EMPTY), "void_menu.price": it.get("menu.price", EMPTY)})
        elif op < 0.94:  # a whole category missed
            del pred[cat]
        else:  # items' sub-values merged into one item
            if cat == "menu" and len(items) >= 2:
                a = items.pop()
                b = items[-1]
                for k, v in a.items():
                    b[k] = b[k] + SEP + v if k in b and rng.random() < 0.7 else v
    return pred


# ---------------------------------------------------------------------------------------------
# Laying a receipt out as blocks: ("g", heading, keys, rows) or ("e", heading, [(key, value)]).

def cord_groups(sample, full, rng):
    """`write_csv_for_cord`'s layout: per category, its number, its classes, one row per item."""
    blocks = []
    for cat, items in sample.items():
        if cat in GROUP:
            idx, keys = GROUP[cat]
        else:
            idx, keys = rng.randint(4, 9), []
        used = [k for k in keys if any(k in it for it in items)]
        extra = [k for it in items for k in it if k not in keys]
        extra = list(dict.fromkeys(extra))
        if full:
            header = keys + extra  # write_csv_for_cord drops keys outside the ontology; a model's own writer may not
            if extra and rng.random() < 0.5:
                header = keys
        else:
            header = used + extra
            if rng.random() < 0.4:
                rng.shuffle(header)
        rows = [[it.get(k, EMPTY) for k in header] for it in items]
        if not items and rng.random() < 0.5:
            continue
        blocks.append(["g", str(idx), header, rows])
    return blocks


def entity_lines(items, merged, rng):
    lines = []
    for it in items:
        for k, v in it.items():
            lines.append([k, v])
    if merged:  # the values of one key merged into one line
        keys = list(dict.fromkeys(k for k, _ in lines))
        lines = [[k, SEP.join(v for kk, v in lines if kk == k)] for k in keys]
    return lines


def layout(sample, rng, kind):
    if kind == "full":
        return cord_groups(sample, True, rng)
    if kind == "compact":
        return cord_groups(sample, False, rng)
    if kind == "mixed":  # menus as groups, totals as entities outside groups
        groups = {c: v for c, v in sample.items() if c in ("menu", "void_menu")}
        blocks = cord_groups(groups, rng.random() < 0.5, rng)
        lines = []
        for c, items in sample.items():
            if c not in groups:
                lines += entity_lines(items, False, rng)
        if rng.random() < 0.3:
            lines.insert(0, ["store.nm", rng.choice(["TOKO MAJU", "Kafe Ñandú", "カフェ"])])
        if rng.random() < 0.2:
            lines.append(["date", rng.choice(["2019-03-12", "12/03/19 14:02"])])
        if lines or rng.random() < 0.3:
            blocks.append(["e", rng.choice(HEADINGS), lines])
        if rng.random() < 0.4:
            rng.shuffle(blocks)
        return blocks
    if kind == "flat":  # no groups at all
        merged = rng.random() < 0.4
        blocks = []
        if rng.random() < 0.5:
            lines = []
            for items in sample.values():
                lines += entity_lines(items, merged, rng)
            return [["e", rng.choice(HEADINGS), lines]]
        for c, items in sample.items():
            blocks.append(["e", c, entity_lines(items, merged, rng)])
        return blocks
    raise ValueError(kind)


SHORT = {"menu.nm": "nm", "menu.price": "price", "menu.cnt": "cnt"}


def short_keys(sample, rng):
    """The layout of the example in KIEval's README and goldgate's fixtures: short keys."""
    blocks = []
    items = [{SHORT.get(k, k.split(".")[-1]): v for k, v in it.items() if k in SHORT}
             for it in sample.get("menu", [])]
    header = ["nm", "price", "cnt"]
    blocks.append(["g", "0", header, [[it.get(k, EMPTY) for k in header] for it in items]])
    lines = [["date", rng.choice(["1/2", "1/3", "2019-03-12"])]]
    if rng.random() < 0.7:
        lines.append(["tel", rng.choice(["1||2", "021-555", "1", "2", EMPTY])])
    if sample.get("total"):
        lines.append(["total", sample["total"][0].get("total.total_price", EMPTY)])
    blocks.append(["e", "info", lines])
    return blocks


# ---------------------------------------------------------------------------------------------
# Perturbing the blocks (how a file is written).

def other_script(rng, digit_char):
    d = int(digit_char)
    return chr(rng.choice(ZEROS) + d)


def perturb_blocks(rng, blocks, n):
    for _ in range(n):
        op = rng.random()
        groups = [b for b in blocks if b[0] == "g"]
        ents = [b for b in blocks if b[0] == "e"]
        if op < 0.12 and groups:  # a group numbered in another script, or followed by text
            b = rng.choice(groups)
            h = b[1]
            if h[0].isascii():
                b[1] = rng.choice([other_script(rng, h[0]) + h[1:], h + " menu", h + "0",
                                   other_script(rng, h[0]) + h[1:], h + "\tkeys"])
        elif op < 0.18 and groups:  # a group renumbered
            b = rng.choice(groups)
            b[1] = str(rng.randint(0, 9))
        elif op < 0.24:  # a group gold lacks
            keys = rng.sample(["menu.nm", "menu.price", "total.foo", "x", "menu.bogus", "sub_total.tax_price"],
                              rng.randint(1, 3))
            rows = [[rng.choice([price(rng), EMPTY, rng.choice(NAMES), "a||b"]) for _ in keys]
                    for _ in range(rng.randint(0, 3))]
            blocks.insert(rng.randint(0, len(blocks)), ["g", str(rng.choice([4, 5, 7, 9])), keys, rows])
        elif op < 0.32 and groups:  # columns reordered
            b = rng.choice(groups)
            order = list(range(len(b[2])))
            rng.shuffle(order)
            b[2] = [b[2][i] for i in order]
            b[3] = [[r[i] for i in order if i < len(r)] + r[len(order):] if len(r) >= len(order) else
                    [r[i] for i in order if i < len(r)] for r in b[3]]
        elif op < 0.42 and groups:  # a row shorter or longer than its line of keys
            b = rng.choice(groups)
            if b[3]:
                r = rng.choice(b[3])
                if rng.random() < 0.55 and len(r) > 1:
                    del r[rng.randint(1, len(r) - 1):]
                else:
                    r += rng.choice([[EMPTY], ["extra"], ["", "x"], [price(rng)]])
        elif op < 0.47 and groups:  # a key outside CORD's ontology in a line of keys
            b = rng.choice(groups)
            k = rng.choice(["menu.bogus", "total.foo", "menu.nm2", "NOTE", "", "menu.sub_nm "])
            if k not in b[2]:
                at = rng.randint(0, len(b[2]))
                b[2].insert(at, k)
                for r in b[3]:
                    if at <= len(r):
                        r.insert(at, rng.choice([EMPTY, "1", rng.choice(NAMES)]))
        elif op < 0.52 and groups:  # an empty cell (not the marker)
            b = rng.choice(groups)
            if b[3] and b[3][0]:
                r = rng.choice(b[3])
                if r:
                    r[rng.randrange(len(r))] = rng.choice(["", " ", EMPTY + " ", "<EMPTY>", "None"])
        elif op < 0.56 and groups:  # a row all empty
            b = rng.choice(groups)
            b[3].insert(rng.randint(0, len(b[3])), [EMPTY] * len(b[2]))
        elif op < 0.6 and groups:  # one group written as two blocks
            b = rng.choice(groups)
            if len(b[3]) >= 2:
                cut = rng.randint(1, len(b[3]) - 1)
                i = blocks.index(b)
                blocks.insert(i + 1, ["g", b[1], list(b[2]), b[3][cut:]])
                b[3] = b[3][:cut]
        elif op < 0.66 and groups:  # a single-item group written as entities
            b = rng.choice(groups)
            if len(b[3]) == 1:
                i = blocks.index(b)
                blocks[i] = ["e", rng.choice(HEADINGS), [[k, v] for k, v in zip(b[2], b[3][0])]]
        elif op < 0.72:  # an entity outside groups added, or a key outside the ontology
            lines = rng.choice(ents)[2] if ents else None
            if lines is None:
                lines = []
                blocks.append(["e", rng.choice(HEADINGS), lines])
            lines.insert(rng.randint(0, len(lines)), [rng.choice(
                ["total.foo", "menu.bogus", "store.nm", "total.total_price", "total.cashprice",
                 "menu.nm", "date", "tel", "k e y", "NOTE"]),
                rng.choice([price(rng), "a||b", EMPTY + SEP + "1", EMPTY, "", "x\ty", rng.choice(NAMES)])])
        elif op < 0.78 and ents:  # entity values changed, merged, split
            lines = rng.choice(ents)[2]
            if lines:
                i = rng.randrange(len(lines))
                k, v = lines[i]
                r = rng.random()
                if r < 0.4:
                    lines[i] = [k, mutate(rng, v)]
                elif r < 0.6 and SEP in v:
                    lines[i:i + 1] = [[k, p] for p in v.split(SEP)]
                elif r < 0.8:
                    same = [j for j, (kk, _) in enumerate(lines) if kk == k]
                    vals = [lines[j][1] for j in same]
                    for j in reversed(same):
                        del lines[j]
                    lines.insert(min(i, len(lines)), [k, SEP.join(vals[::-1] if rng.random() < 0.5 else vals)])
                else:
                    del lines[i]
        elif op < 0.83 and blocks:  # a block dropped
            blocks.pop(rng.randrange(len(blocks)))
        elif op < 0.88:  # blocks reordered
            rng.shuffle(blocks)
        elif op < 0.92 and groups:  # a group numbered by a block that reads as one
            b = rng.choice(groups)
            b[1] = rng.choice(["0 menu", "1st", "2\ttotal", "٠", "۰", "०", "০", "๐", "０", "𝟎", "𝟘"]
                              ) if b[1] == "0" else b[1]
        elif ents:  # an entity block whose heading starts with a digit: it is a group
            b = rng.choice(ents)
            b[1] = rng.choice(["2019-03-12 14:02", "1 receipt", "3"]) + b[1]
    return blocks


def csv_row(row, quoting):
    if not quoting:
        return "\t".join(row)
    buf = io.StringIO()
    csv.writer(buf, delimiter="\t", lineterminator="\n").writerow(row)
    return buf.getvalue()[:-1]


def render(blocks, rng, quoting=None):
    """The text of the blocks, `\\n` line ends, blocks apart by a blank line."""
    if quoting is None:
        quoting = rng.random() < 0.6
    texts = []
    for b in blocks:
        if b[0] == "g":
            lines = [b[1], csv_row(b[2], quoting)] + [csv_row(r, quoting) for r in b[3]]
        else:
            lines = [b[1]] + [csv_row([k, v], quoting) for k, v in b[2]]
        texts.append("\n".join(lines))
    text = ""
    for i, t in enumerate(texts):
        if i:
            r = rng.random()
            text += "\n\n\n\n" if r < 0.04 else "\n\n\n" if r < 0.045 else "\n\n"
        text += t
    r = rng.random()
    return text + ("\n\n" if r < 0.7 else "\n" if r < 0.85 else "" if r < 0.95 else "\n\n\n")


# ---------------------------------------------------------------------------------------------
# Generic small documents: few keys, few values, so that alignments tie.

SMALL_VALUES = ["1", "2", "3", "a", "b", EMPTY, EMPTY, "1||2", "2||1", "a||<empty>", "", " 1", "1 ",
                "a||a", "<empty>||b"]
SMALL_KEYS = ["a", "b", "c", "menu.nm", "menu.price", "menu.cnt", "menu.bogus", "total.total_price",
              "k", "total.foo", "nm"]


def generic(rng):
    blocks = []
    for _ in range(rng.choice([0, 1, 1, 2, 2, 3])):
        if rng.random() < 0.65:
            keys = rng.sample(SMALL_KEYS, rng.randint(1, 4))
            rows = [[rng.choice(SMALL_VALUES) for _ in keys] for _ in range(rng.randint(0, 5))]
            blocks.append(["g", rng.choice("0001123"), keys, rows])
        else:
            lines = [[rng.choice(SMALL_KEYS), rng.choice(SMALL_VALUES)] for _ in range(rng.randint(0, 5))]
            blocks.append(["e", rng.choice(HEADINGS), lines])
    return blocks


def perturb_generic(rng, blocks):
    pred = copy.deepcopy(blocks)
    for _ in range(rng.randint(0, 4)):
        groups = [b for b in pred if b[0] == "g"]
        r = rng.random()
        if r < 0.4 and groups:
            b = rng.choice(groups)
            if b[3]:
                row = rng.choice(b[3])
                if row:
                    row[rng.randrange(len(row))] = rng.choice(SMALL_VALUES)
        elif r < 0.55 and groups:
            b = rng.choice(groups)
            b[3].insert(rng.randint(0, len(b[3])), [rng.choice(SMALL_VALUES) for _ in b[2]])
        elif r < 0.65 and groups:
            b = rng.choice(groups)
            if b[3]:
                b[3].pop(rng.randrange(len(b[3])))
        elif r < 0.75 and groups:
            rng.shuffle(rng.choice(groups)[3])
        else:
            pred = perturb_blocks(rng, pred, 1)
    return pred


# ---------------------------------------------------------------------------------------------

def document(rng):
    """A gold text and a predicted text."""
    r = rng.random()
    if r < 0.2:
        gold = generic(rng)
        pred = perturb_generic(rng, gold)
        g, p = render(gold, rng), render(pred, rng)
    else:
        sample = receipt(rng)
        pred_sample = perturb_receipt(rng, sample)
        if r < 0.27:
            gold, pred = short_keys(sample, rng), short_keys(pred_sample, rng)
        else:
            kind = rng.choices(["full", "compact", "mixed", "flat"], [0.2, 0.4, 0.25, 0.15])[0]
            gold = layout(sample, rng, kind)
            other = kind if rng.random() < 0.75 else rng.choice(["full", "compact", "mixed", "flat"])
            pred = layout(pred_sample, rng, other)
        if rng.random() < 0.15:
            gold = perturb_blocks(rng, gold, rng.randint(1, 2))
        pred = perturb_blocks(rng, pred, rng.choice([0, 0, 0, 1, 1, 2, 3]))
        quoting = rng.random() < 0.7
        g = render(gold, rng, quoting)
        p = render(pred, rng, quoting if rng.random() < 0.9 else not quoting)
    r = rng.random()
    if r < 0.02:
        p = rng.choice(["", "\n", "\n\n", "info\n"])  # an empty prediction
    elif r < 0.025:
        g = rng.choice(["", "\n"])  # nothing in gold
    return g, p


def refused(text):
    """Why goldgate refuses this text by design (KIEval's reader reads it otherwise), or None."""
    groups, entities = set(), set()
    for chunk in text.split("\n\n"):
        if not chunk:
            continue
        lines = chunk.split("\n")
        if chunk[0].isdigit():
            try:
                groups.add(str(int(chunk[0])))
            except ValueError:
                return "a block starts with a digit int() cannot read"
            keys = lines[1].split("\t") if len(lines) > 1 else []
            if len(set(keys)) != len(keys):
                return "a line of keys names a key twice"
        else:
            for line in lines[1:]:
                if "\t" in line:
                    entities.add(line.split("\t", 1)[0])
    if groups & entities:
        return "a key names both a group's digit and an entity"
    return None


def keys_named(text):
    """Every key a file names, as KIEval's reader finds them: a group's line of keys, an
    entity line's key."""
    keys = set()
    for chunk in text.split("\n\n"):
        if not chunk:
            continue
        lines = chunk.split("\n")
        if chunk[0].isdigit():
            keys.update(lines[1].split("\t") if len(lines) > 1 else [""])
        else:
            for line in lines[1:]:
                if line:
                    keys.add(line.split("\t", 1)[0])
    return keys


# ---------------------------------------------------------------------------------------------
# The scorer.

def load_kieval(source):
    """Copies KIEval's package out of `source` (a clone, bare or not, or a folder holding
    `KIEval/`) into a temporary folder and imports it from there."""
    src = Path(source)
    dest = Path(tempfile.mkdtemp(prefix="kieval-")) / "KIEval"
    dest.mkdir()
    commit = None
    for name in ["__init__.py", "kieval.py", "utils.py"]:
        if (src / "KIEval" / name).is_file():
            (dest / name).write_bytes((src / "KIEval" / name).read_bytes())
        else:
            git = ["git", f"--git-dir={src if (src / 'HEAD').is_file() else src / '.git'}"]
            (dest / name).write_bytes(subprocess.run(git + ["show", f"HEAD:KIEval/{name}"],
                                                     check=True, capture_output=True).stdout)
            commit = subprocess.run(git + ["rev-parse", "HEAD"], check=True, capture_output=True,
                                    text=True).stdout.strip()
    sys.path.insert(0, str(dest.parent))
    import KIEval.kieval as module
    return module, commit, dest.parent


class Raised(Exception):
    """KIEval raised on a document."""


class Spy:
    """Records what KIEval's `kieval` computes: the confusion matrix it sums, and the counts
    it gives each total (its own functions, called as it calls them)."""

    def __init__(self, module):
        self.module = module
        self.matrix = None
        self.totals = {}
        get_kieval = module.get_kieval
        metrics = module.get_f1_recall_precision_accuracy_kieval

        def spy_get_kieval(confusion_matrix):
            self.matrix = {k: dict(v) for k, v in confusion_matrix.items()}
            return get_kieval(confusion_matrix)

        def spy_metrics(**kw):
            if kw["key"].startswith("total."):
                self.totals[kw["key"]] = {f: kw.get(f, 0) for f in
                                          ["label", "TP", "FP", "FN", "wrong_match", "no_match"]}
            return metrics(**kw)

        module.get_kieval = spy_get_kieval
        module.get_f1_recall_precision_accuracy_kieval = spy_metrics

    def score(self, gold_files, pred_files, shortlist):
        self.matrix, self.totals = None, {}
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                _, _, total = self.module.kieval(
                    gold_files, pred_files, shortlist, empty_token=EMPTY, grouping_strategy="hungarian",
                    value_delimiter=SEP, entity_type_delimiter="\t", split_merged_value=True,
                    include_empty_token_in_score_calculation=False, print_score=False)
        except Exception as e:  # noqa: BLE001 - KIEval raising: the document is left out
            raise Raised(f"{type(e).__name__}: {e}") from e
        return result(self.matrix, self.totals, total)


FIELDS = [("labels", "label"), ("exact", "TP"), ("false_positives", "FP"),
          ("false_negatives", "FN"), ("wrong", "wrong_match"), ("missing", "no_match")]


def tally(sums):
    return {ours: sums[theirs] for ours, theirs in FIELDS}


def result(matrix, totals, total):
    """goldgate's counts and scores of what KIEval computed."""
    parts = {p: {f: 0 for _, f in FIELDS} for p in ["ungrouped", "grouped", "items"]}
    for key, conf in matrix.items():  # as get_kieval sorts the keys of its confusion matrix
        part = "grouped" if key.endswith(".group") else "items" if key.endswith(".grouping") else "ungrouped"
        for _, f in FIELDS:
            parts[part][f] += conf.get(f, 0)
    for part, theirs in [("ungrouped", "total.non_group"), ("grouped", "total.group"),
                         ("items", "total.grouping")]:
        if theirs in totals:
            assert totals[theirs] == parts[part], (part, totals[theirs], parts[part])
    whole = {f: 0 for _, f in FIELDS}
    for part in ["ungrouped", "grouped"]:
        if parts[part]["label"] > 0:
            for f in whole:
                whole[f] += parts[part][f]
    assert totals["total.kieval"] == whole, (totals["total.kieval"], whole)
    k = total["total.kieval"]
    assert (k["label"], k["exact_match"], k["wrong_match"], k["no_match"]) == (
        whole["label"], whole["TP"], whole["wrong_match"], whole["no_match"])
    counts = {"total": tally(whole)} | {p: tally(parts[p]) for p in parts}

    def num(x):  # KIEval guards its divisions; NaN would be written null
        return None if x != x else x

    return {"counts": counts, "precision": num(k["precision"]), "recall": num(k["recall"]),
            "f1": num(k["kieval_entity_f1"]), "aligned": num(k["kieval_aligned"])}


class Everything:
    """A shortlist holding every key: the check that `"all"` drops nothing."""

    def __contains__(self, key):
        return True


def write(folder, name, text):
    path = folder / f"{name}.csv"
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(text)
    return str(path)


def tally_of(labels, exact, fp, fn, wrong, missing):
    return dict(zip([ours for ours, _ in FIELDS], [labels, exact, fp, fn, wrong, missing]))


def check_worked_examples(spy, work):
    """KIEval gives the counts `tests/kieval.rs` asserts on its fixtures (worked out by hand
    there): the check that the fields are mapped onto goldgate's tallies right."""
    fixtures = Path(__file__).resolve().parents[1] / "fixtures" / "kieval"
    gt, pred = fixtures / "gt", fixtures / "pred"
    every = sorted(keys_named((gt / "a.csv").read_text(encoding="utf-8")) | keys_named((pred / "a.csv").read_text(encoding="utf-8"))
                   | keys_named((gt / "b.csv").read_text(encoding="utf-8")) | keys_named((pred / "b.csv").read_text(encoding="utf-8")))
    a = spy.score([str(gt / "a.csv")], [str(pred / "a.csv")], every)
    assert a["counts"] == {"total": tally_of(8, 5, 4, 3, 2, 3), "ungrouped": tally_of(3, 1, 2, 2, 1, 2),
                           "grouped": tally_of(5, 4, 2, 1, 1, 1), "items": tally_of(2, 1, 2, 1, 1, 1)}, a
    assert (a["precision"], a["recall"], a["f1"], a["aligned"]) == (5 / 9, 5 / 8, 2 * (5 / 9 * 5 / 8) / (5 / 9 + 5 / 8), 0.5), a
    b = spy.score([str(gt / "b.csv")], [str(pred / "b.csv")], every)
    assert b["counts"]["total"] == tally_of(2, 2, 1, 0, 0, 1), b
    assert b["counts"]["items"] == tally_of(1, 1, 1, 0, 0, 1), b
    assert (b["precision"], b["recall"], b["aligned"]) == (2 / 3, 1.0, 2 / 3) and abs(b["f1"] - 0.8) < 1e-15, b
    both = spy.score([str(gt / "a.csv"), str(gt / "b.csv")], [str(pred / "a.csv"), str(pred / "b.csv")], every)
    assert both["counts"]["total"] == tally_of(10, 7, 5, 3, 2, 4), both
    assert both["counts"]["items"] == tally_of(3, 2, 3, 1, 1, 2), both
    assert abs(both["f1"] - 7 / 11) < 1e-15 and both["aligned"] == 7 / 13, both
    # A group numbered `٣` is group 3 (a_group_numbered_in_another_script_is_that_group).
    g = write(work / "gt", "worked", "3\nnm\tprice\ntea\t3\n\ninfo\ndate\t1/2\n")
    p = write(work / "pred", "worked", "\u0663\nnm\tprice\ntea\t3\n\ninfo\ndate\t1/2\n")
    c = spy.score([g], [p], ["nm", "price", "date"])["counts"]
    assert c["total"] == tally_of(3, 3, 0, 0, 0, 0) and c["items"] == tally_of(1, 1, 0, 0, 0, 0), c
    os.remove(g)
    os.remove(p)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    source = sys.argv[1]
    out = Path(sys.argv[2]) if len(sys.argv) > 2 else Path(__file__).with_name("kieval.jsonl")
    module, commit, copied = load_kieval(source)
    spy = Spy(module)
    rng = random.Random(SEED)
    work = Path(tempfile.mkdtemp(prefix="kieval-docs-"))
    (work / "gt").mkdir()
    (work / "pred").mkdir()
    check_worked_examples(spy, work)
    docs, lines = [], []
    refusals, raised, raised_docs = {}, {}, {}
    for _ in range(CANDIDATES):
        gold, pred = document(rng)
        why = refused(gold) or refused(pred)
        if why:
            refusals[why] = refusals.get(why, 0) + 1
            continue
        doc_id = f"k{len(docs) + 1:04d}"
        g, p = write(work / "gt", doc_id, gold), write(work / "pred", doc_id, pred)
        scored = {}
        for keys, shortlist in [("all", sorted(keys_named(gold) | keys_named(pred))), ("cord", CORD_KEYS)]:
            try:
                scored[keys] = spy.score([g], [p], shortlist)
            except Raised as e:
                name = f"{keys}: {str(e).split(':')[0]}"
                raised[name] = raised.get(name, 0) + 1
                raised_docs.setdefault(name, []).append((gold, pred, str(e)))
                continue
            if keys == "all":
                assert spy.score([g], [p], Everything()) == scored["all"], doc_id
        if not scored:
            os.remove(g)
            os.remove(p)
            continue
        docs.append((doc_id, set(scored)))
        for keys, r in scored.items():
            lines.append({"kind": "document", "id": doc_id, "gold": gold, "pred": pred, "keys": keys} | r)
    both = [d for d, keys in docs if len(keys) == 2]
    for s in range(SETS):
        chosen = sorted(rng.sample(both, rng.randint(40, 120)))
        for keys, shortlist in [("all", None), ("cord", CORD_KEYS)]:
            if shortlist is None:
                named = set()
                for d in chosen:
                    named |= keys_named((work / "gt" / f"{d}.csv").read_text(encoding="utf-8"))
                    named |= keys_named((work / "pred" / f"{d}.csv").read_text(encoding="utf-8"))
                shortlist = sorted(named)
            r = spy.score([str(work / "gt" / f"{d}.csv") for d in chosen],
                          [str(work / "pred" / f"{d}.csv") for d in chosen], shortlist)
            lines.append({"kind": "set", "id": f"s{s + 1:02d}", "documents": chosen, "keys": keys} | r)
    if os.environ.get("KIEVAL_RAISED"):  # where the documents KIEval raised on go, to read them
        Path(os.environ["KIEVAL_RAISED"]).write_text(json.dumps(raised_docs, ensure_ascii=False, indent=1))
    with open(out, "w", encoding="utf-8", newline="\n") as f:
        for line in lines:
            f.write(json.dumps(line, ensure_ascii=False, sort_keys=True) + "\n")
    shutil.rmtree(work)
    shutil.rmtree(copied)
    import numpy
    import scipy
    per_keys = {k: sum(1 for l in lines if l["kind"] == "document" and l["keys"] == k) for k in ["all", "cord"]}
    print(f"{out}: {len(lines)} lines, {len(docs)} documents ({per_keys}), {SETS} sets per shortlist")
    print(f"refused by design, not emitted: {refusals}")
    print(f"KIEval raised, not emitted: {raised}")
    print(f"KIEval {commit or source}, Python {sys.version.split()[0]}, NumPy {numpy.__version__}, "
          f"SciPy {scipy.__version__}")


if __name__ == "__main__":
    main()
