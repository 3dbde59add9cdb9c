"""Summarises encode_columns_callgrind.sh's lines (JSON Lines) as a JSON
report and a Markdown table of instructions per encode, each label against
the first.

    python3 crates/xbf/examples/encode_columns_summary.py RAW.jsonl OUT.json "what was measured"
"""
import json
import sys


def main(raw_path, out_path, what):
    lines = [json.loads(line) for line in open(raw_path) if line.strip()]
    labels = list(dict.fromkeys(r["label"] for r in lines))
    files = {}
    for r in lines:
        files.setdefault(r["file"], {})[r["label"]] = {k: r[k] for k in ("ir_per_round", "floats", "strings", "ints")}
    base = labels[0]
    for by in files.values():
        for label in labels[1:]:
            if base in by and label in by:
                by[f"{label}/{base}"] = round(by[label]["ir_per_round"] / by[base]["ir_per_round"], 3)
    json.dump({"what": what, "labels": labels, "files": files, "raw": lines}, open(out_path, "w"), indent=1)
    print("| file | " + " | ".join(f"{lab} (Ir/encode)" for lab in labels)
          + "".join(f" | {lab}/{base}" for lab in labels[1:]) + " | parts " + labels[-1] + " (floats / strings / ints) |")
    print("|---|" + "---:|" * (2 * len(labels) - 1) + "---|")
    for f, by in files.items():
        cells = [f"{by[lab]['ir_per_round'] / 1e6:.3f} M" if lab in by else "" for lab in labels]
        ratios = [f"{by.get(f'{lab}/{base}', '')}" for lab in labels[1:]]
        last = by.get(labels[-1], {})
        parts = " / ".join(f"{last.get(k, 0) / 1e6:.2f} M" for k in ("floats", "strings", "ints"))
        print(f"| {f} | " + " | ".join(cells + ratios) + f" | {parts} |")


if __name__ == "__main__":
    main(*sys.argv[1:4])
