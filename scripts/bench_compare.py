#!/usr/bin/python3
"""Compare two benchmark results, as a nightly regression does.

BASE and NEW are what `isvp bench collectives|pingpong|fused|smi --json FILE`
wrote, or folders `scripts/sweep.py` wrote (their results.json). Rows are
matched by what they measure (nodes, topology, collective or pattern, size,
hops, timing only); every other figure of a row — simulated latencies and
bandwidths, the models' predictions, paths and notes — is compared. The
simulator is deterministic, so by default a figure must be identical: any
difference is a change of the model, its parameters or the guest software.

Printed: the rows only one side has, every figure that changed (base, new,
relative change), the parameters that differ, and the wall time, simulated
time, packet-hops and per-node memory of both (wall time is the machine's,
not the model's: reported, and checked only with --wall-tolerance).

Exit status: 0 when both hold the same rows with the same figures (within
--tolerance) and, with --wall-tolerance, NEW is not slower by more than that;
1 otherwise; 2 when an input cannot be read. Parameters and run options that
differ are printed but decide nothing by themselves: the figures do.

  scripts/bench_compare.py yesterday.json today.json
  scripts/bench_compare.py results/base results/new --tolerance 0.5 --wall-tolerance 20
"""

import argparse
import json
import math
import os
import sys

# Fields that say what a row measures (its identity); the others are its figures.
KEY_FIELDS = ("nodes", "topology", "topology_kind", "timing_only", "pattern", "collective", "size", "hops")
# Figures of a sweep's rows that come from its run, not from the measurement.
RUN_FIELDS = {"wall_seconds"}


class InputError(Exception):
    pass


def load(path):
    """The benchmark's JSON: a file, or a sweep folder's results.json."""
    if os.path.isdir(path):
        path = os.path.join(path, "results.json")
    try:
        with open(path) as f:
            data = json.load(f)
    except OSError as error:
        raise InputError(f"{path}: cannot read it: {error.strerror}")
    except json.JSONDecodeError as error:
        raise InputError(f"{path}: not JSON: {error}")
    if not isinstance(data, dict) or not isinstance(data.get("rows"), list):
        raise InputError(f"{path}: no 'rows' list: not the JSON of `isvp bench ... --json` or of scripts/sweep.py")
    data["_path"] = path
    data["_kind"] = data.get("benchmark") or ("sweep" if "runs" in data else "?")
    return data


def flatten(value, prefix=""):
    """{'a': {'b': 1}} -> {'a.b': 1}"""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            out.update(flatten(v, f"{prefix}{k}."))
        return out
    return {prefix[:-1]: value}


def key_of(row):
    return tuple((k, row[k]) for k in KEY_FIELDS if k in row)


def key_text(key):
    return " ".join(f"{k}={v}" for k, v in key)


def rows_by_key(data):
    rows = {}
    for row in data["rows"]:
        key = key_of(row)
        if key in rows:
            raise InputError(f"{data['_path']}: two rows for {key_text(key) or 'the same key'}")
        rows[key] = {k: v for k, v in flatten(row).items() if k not in KEY_FIELDS and k not in RUN_FIELDS}
    return rows


def differs(base, new, tolerance):
    """True when two figures differ beyond `tolerance` per cent (numbers) or at all (others)."""
    numbers = (int, float)
    if isinstance(base, bool) or isinstance(new, bool) or not (isinstance(base, numbers) and isinstance(new, numbers)):
        return base != new
    if math.isnan(base) or math.isnan(new):
        return not (math.isnan(base) and math.isnan(new))
    if tolerance == 0 or base == 0:
        return base != new
    return abs(new - base) / abs(base) * 100 > tolerance  # relative to the base, as printed


def change_text(base, new):
    if base == new:
        return ""
    if isinstance(base, (int, float)) and isinstance(new, (int, float)) and not isinstance(base, bool) and base:
        return f"{(new - base) / abs(base) * 100:+.3f} %"
    return ""


def number(value):
    return f"{value:.6g}" if isinstance(value, float) else str(value)


def wall_of(data):
    """The wall seconds a regression watches: the timed calls' when the bench gives them."""
    if isinstance(data.get("timed_wall_seconds"), (int, float)):
        return data["timed_wall_seconds"], "timed calls"
    if isinstance(data.get("wall_seconds"), (int, float)):
        return data["wall_seconds"], "run"
    return None, ""


def summary_lines(base, new):
    lines = []
    for field, what in (("simulated_us", "simulated us"), ("packet_hops", "packet-hops"),
                        ("delta_cycles", "delta cycles")):
        if field in base or field in new:
            b, n = base.get(field), new.get(field)
            lines.append(f"  {what}: {number(b)} -> {number(n)} {change_text(b, n)}".rstrip())
    for field, value in flatten(new.get("payload_memory", {})).items():
        b = flatten(base.get("payload_memory", {})).get(field)
        lines.append(f"  memory per node, {field}: {number(b)} -> {number(value)} {change_text(b, value)}".rstrip())
    return lines


def compare(base, new, tolerance, wall_tolerance, out):
    changed = False
    print(f"base: {base['_path']} ({base['_kind']}, commit {base.get('build_commit', '?')})", file=out)
    print(f"new:  {new['_path']} ({new['_kind']}, commit {new.get('build_commit', '?')})", file=out)
    if base["_kind"] != new["_kind"]:
        raise InputError(f"different benchmarks: {base['_kind']} ({base['_path']}) against {new['_kind']} "
                         f"({new['_path']})")
    for field in ("topology", "ranks", "iterations", "warmup", "offload", "timing_only", "partitions"):
        if base.get(field) != new.get(field):
            print(f"runs differ in {field}: {base.get(field)} -> {new.get(field)}", file=out)
    parameters = []
    bp, np_ = flatten(base.get("parameters", {})), flatten(new.get("parameters", {}))
    for name in sorted(set(bp) | set(np_)):
        if bp.get(name) != np_.get(name):
            parameters.append(f"{name} {bp.get(name, '(none)')} -> {np_.get(name, '(none)')}")
    if parameters:
        print(f"parameters that differ ({len(parameters)}): " + "; ".join(parameters), file=out)

    base_rows, new_rows = rows_by_key(base), rows_by_key(new)
    only_base = [k for k in base_rows if k not in new_rows]
    only_new = [k for k in new_rows if k not in base_rows]
    both = [k for k in base_rows if k in new_rows]
    for key in only_base:
        print(f"only in base: {key_text(key)}", file=out)
    for key in only_new:
        print(f"only in new:  {key_text(key)}", file=out)
    changed_rows = 0
    for key in both:
        b, n = base_rows[key], new_rows[key]
        fields = [f for f in sorted(set(b) | set(n)) if differs(b.get(f), n.get(f), tolerance)]
        if not fields:
            continue
        changed_rows += 1
        for f in fields:
            print(f"changed: {key_text(key)}: {f} {number(b.get(f, '(none)'))} -> {number(n.get(f, '(none)'))} "
                  f"{change_text(b.get(f), n.get(f))}".rstrip(), file=out)
    exact = "identical" if tolerance == 0 else f"within {tolerance} %"
    print(f"rows: {len(both)} in both, {len(both) - changed_rows} {exact}, {changed_rows} changed, "
          f"{len(only_base)} only in base, {len(only_new)} only in new", file=out)
    changed = bool(changed_rows or only_base or only_new)

    for line in summary_lines(base, new):
        print(line, file=out)
    (bw, what), (nw, _) = wall_of(base), wall_of(new)
    if bw is not None and nw is not None:
        print(f"  wall seconds ({what}): {bw:.4g} -> {nw:.4g} {change_text(bw, nw)}".rstrip(), file=out)
        if wall_tolerance is not None and bw > 0 and (nw - bw) / bw * 100 > wall_tolerance:
            print(f"slower: wall time up {(nw - bw) / bw * 100:.1f} % (--wall-tolerance {wall_tolerance} %)",
                  file=out)
            changed = True
    print("verdict: " + ("CHANGED" if changed else "SAME"), file=out)
    return changed


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    parser.add_argument("base", help="the reference: a bench --json file or a sweep folder")
    parser.add_argument("new", help="the run to check, of the same kind")
    parser.add_argument("--tolerance", type=float, default=0.0, metavar="PCT",
                        help="change of a figure relative to BASE still counted as the same, in per cent "
                             "(default 0: exact)")
    parser.add_argument("--wall-tolerance", type=float, default=None, metavar="PCT",
                        help="also fail when NEW's wall time is more than PCT per cent above BASE's")
    args = parser.parse_args()
    for name, value in (("--tolerance", args.tolerance), ("--wall-tolerance", args.wall_tolerance)):
        if value is not None and (math.isnan(value) or value < 0):
            parser.error(f"{name} must be a non-negative number of per cent, not {value}")
    try:
        base, new = load(args.base), load(args.new)
        changed = compare(base, new, args.tolerance, args.wall_tolerance, sys.stdout)
    except InputError as error:
        print(f"bench_compare: {error}", file=sys.stderr)
        sys.exit(2)
    sys.exit(1 if changed else 0)


if __name__ == "__main__":
    main()
