#!/usr/bin/python3
"""OSU-style collective sweep: offload against host software, the LogGP model
beside both, on several networks (tori by node count, plus any --topology:
fat trees, topology files); writes CSV, JSON, a Markdown report and PNG plots
(docs/REPORTS.md describes every file and column).

It drives `isvp bench collectives --json` once or twice per node count (the
per-rank-block collectives — scatter, gather, allgather, reduce_scatter — hold
P x size bytes, so their sizes stop at --max-buffer / P; skipped sizes are
listed in the report). Node counts in --nodes run with payload (and --check
when asked) on a torus; those in --timing-only-nodes run with --timing-only;
each --topology (torus:XxYxZ, fattree:radix=R,hosts=N[,oversubscription=S],
file:PATH) runs with payload, each --timing-only-topology timing-only. Every
run is keyed by (nodes, topology); where several topologies share a node
count the report sets them side by side.

Default: the full sweep of issue 6 — {8, 32, 64, 128} nodes with payload,
{512, 1024} timing-only, every collective, 4 B ... 4 MiB, offload on and off.
"""

import argparse
import concurrent.futures
import csv
import datetime
import json
import math
import os
import re
import signal
import subprocess
import sys
import threading
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ALL_COLLECTIVES = ["bcast", "reduce", "allreduce", "scatter", "gather", "allgather", "reduce_scatter", "barrier"]
PER_RANK_BLOCKS = {"scatter", "gather", "allgather", "reduce_scatter"}
# Node count -> torus shape (x >= y >= z, powers of two).
SHAPES = {8: "2x2x2", 16: "4x2x2", 32: "4x4x2", 64: "4x4x4", 128: "8x4x4", 256: "8x8x4", 512: "8x8x8",
          1024: "16x8x8"}
DIFF_THRESHOLD = 0.25
RUNNING = set()  # bench processes in flight, ended if one fails or the sweep is interrupted


def parse_size(text):
    match = re.fullmatch(r"(\d+)([KMG]?)", text.strip())
    if not match:
        raise argparse.ArgumentTypeError(f"bad size '{text}' (digits with an optional K, M or G suffix)")
    return int(match.group(1)) << {"": 0, "K": 10, "M": 20, "G": 30}[match.group(2)]


def parse_sizes(text):
    """A:B (powers of two from A to B) or a,b,c — as `isvp bench --sizes`, which refuses the same."""
    if ":" in text:
        low, high = (parse_size(t) for t in text.split(":", 1))
        if low > high:
            raise argparse.ArgumentTypeError(f"range '{text}' runs backwards")
        sizes, size = [0] if low == 0 else [], 1
        while size <= high:
            if size >= low:
                sizes.append(size)
            size *= 2
    else:
        items = text.split(",")
        if items and items[-1] == "":
            items.pop()  # a trailing comma, as isvp bench takes it
        sizes = [parse_size(t) for t in items]
    if not sizes:
        raise argparse.ArgumentTypeError(f"'{text}' gives no sizes (a power of two between A and B, or a list)")
    return sizes


def counting(least):
    """An argparse type: a whole number of at least `least`."""
    def parse(text):
        if not text.strip().isdigit() or int(text) < least:
            raise argparse.ArgumentTypeError(f"'{text}' is not a whole number of at least {least}")
        return int(text)
    parse.__name__ = f"number >= {least}"
    return parse


def parse_nodes(text):
    """Comma-separated node counts or XxYxZ shapes -> [(nodes, shape)]."""
    result = []
    for item in (t.strip() for t in text.split(",") if t.strip()):
        if "x" in item:
            dims = item.split("x")
            if len(dims) != 3 or not all(d.isdigit() and int(d) > 0 for d in dims):
                raise argparse.ArgumentTypeError(f"'{item}' is not a torus shape XxYxZ of three positive numbers")
            result.append((math.prod(int(d) for d in dims), item))
        elif not item.isdigit():
            raise argparse.ArgumentTypeError(f"'{item}' is neither a node count nor a torus shape XxYxZ")
        elif int(item) in SHAPES:
            result.append((int(item), SHAPES[int(item)]))
        else:
            raise argparse.ArgumentTypeError(f"no default torus for {item} nodes (known: {sorted(SHAPES)}); "
                                             "give the shape, e.g. 6x4x2")
    return result


def parse_topology(text):
    """torus:XxYxZ, fattree:radix=R,hosts=N[,oversubscription=S] or file:PATH
    -> (nodes, spec); the spec goes to `isvp bench collectives --topology`
    unchanged (isvp checks it in full), the node count is read from it here."""
    kind, _, rest = text.strip().partition(":")
    if kind == "torus":
        dims = rest.split("x")
        if len(dims) != 3 or not all(d.isdigit() and int(d) > 0 for d in dims):
            raise argparse.ArgumentTypeError(f"bad --topology '{text}': torus:XxYxZ needs 3 positive sizes")
        return math.prod(int(d) for d in dims), text.strip()
    if kind == "fattree":
        fields = dict(item.partition("=")[::2] for item in rest.split(","))
        if not fields.get("hosts", "").isdigit() or int(fields["hosts"]) == 0:
            raise argparse.ArgumentTypeError(f"bad --topology '{text}': fattree:radix=R,hosts=N[,oversubscription=S] "
                                             "needs hosts=N, a positive integer")
        return int(fields["hosts"]), text.strip()
    if kind == "file":
        try:
            with open(rest) as f:
                hosts = json.load(f)["hosts"]
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise argparse.ArgumentTypeError(f"bad --topology '{text}': cannot read its hosts ({error})")
        return len(hosts), text.strip()
    raise argparse.ArgumentTypeError(f"bad --topology '{text}' (torus:XxYxZ, fattree:radix=R,hosts=N"
                                     "[,oversubscription=S] or file:PATH)")


def canonical_spec(spec):
    """The same network however it is spelled: fat-tree fields in a fixed
    order with the default over-subscription, file paths normalised."""
    kind, _, rest = spec.partition(":")
    if kind == "fattree":
        fields = {"oversubscription": "3", **dict(item.partition("=")[::2] for item in rest.split(","))}
        return "fattree:" + ",".join(f"{k}={fields[k]}" for k in sorted(fields))
    if kind == "file":
        return "file:" + os.path.realpath(rest)
    return spec


def slug(spec):
    """A file-name-safe form of a --topology spec: fattree-radix8-hosts32-oversubscription3."""
    kind, _, rest = spec.partition(":")
    if kind == "file":
        rest = os.path.splitext(os.path.basename(rest))[0]
    return kind + "-" + re.sub(r"[^A-Za-z0-9]+", "-", rest.replace("=", "")).strip("-")


def topology_label(kind, description):
    """"torus 4x4x2", "fattree radix=8,hosts=32,oversubscription=3", "file PATH":
    the bench's --json `topology_kind` and `topology` in words."""
    prefix = kind + ":"
    return f"{kind} {description[len(prefix):] if description.startswith(prefix) else description}"


def short_label(kind, description):
    """A column header or plot legend: "torus 4x4x2", "fattree radix 8 3:1", "file irregular.json"."""
    if kind == "fattree":
        fields = dict(item.partition("=")[::2] for item in description.partition(":")[2].split(","))
        return f"fattree radix {fields.get('radix', '?')} {fields.get('oversubscription', '3')}:1"
    if kind == "file":
        return f"file {os.path.basename(description.partition(':')[2] or description)}"
    return topology_label(kind, description)


def human_size(size):
    for unit, shift in (("M", 20), ("K", 10)):
        if size >= 1 << shift and size % (1 << shift) == 0:
            return f"{size >> shift} {unit}iB"
    return f"{size} B"


def human_seconds(seconds):
    seconds = int(round(seconds))
    return f"{seconds // 60} min {seconds % 60:02d} s" if seconds >= 60 else f"{seconds} s"


class Progress:
    """One line on stderr: what is running, and an estimate of the whole
    sweep's time left from the wall time per unit of work so far. Benches run
    concurrently with --jobs: each reports its own fraction done; the total
    counts finished runs whole and running ones by their fraction."""

    def __init__(self, total_weight):
        self.total = total_weight
        self.done = 0.0
        self.running = {}  # label -> (weight, fraction done, the bench's own estimate of its time left)
        self.start = time.monotonic()
        self.tty = sys.stderr.isatty()
        self.lock = threading.Lock()

    def show(self, label, current_weight=0.0, current_fraction=0.0, current_left=None, detail=""):
        with self.lock:
            self.running[label] = (current_weight, current_fraction, current_left)
            self._print(label + detail)

    def finished(self, label, weight):
        with self.lock:
            self.running.pop(label, None)
            self.done += weight

    def _print(self, label):
        elapsed = time.monotonic() - self.start
        done = self.done + sum(w * f for w, f, _ in self.running.values())
        left = "?"
        if done > 0 and elapsed > 1:
            estimate = elapsed * (self.total - done) / done
            own = [l for _, _, l in self.running.values() if l is not None]
            if own:  # a bench knows its own run best
                estimate = max(estimate, max(own))
            left = "~" + human_seconds(estimate)
        others = len(self.running) - 1
        line = (f"sweep: {label}{f' (+{others} running)' if others > 0 else ''}; "
                f"{100 * done / self.total:.0f} % done, {human_seconds(elapsed)} elapsed, {left} left")
        sys.stderr.write(("\r\033[K" + line) if self.tty else line + "\n")
        sys.stderr.flush()

    def finish(self):
        if self.tty:
            sys.stderr.write("\n")


class BenchFailed(Exception):
    pass


def run_weight(nodes, collectives, sizes, passes):
    """Relative cost of a bench run: bytes moved per rank times ranks."""
    weight = 0.0
    for c in collectives:
        for s in ([0] if c == "barrier" else sizes):
            weight += (16384 + s * (nodes if c in PER_RANK_BLOCKS else 1)) * nodes
    return weight * passes


def run_bench(args, tag, spec, collectives, sizes, timing_only, out_dir, progress, label, weight):
    json_path = os.path.join(out_dir, "raw", f"bench_{tag}_{'timing' if timing_only else 'payload'}_"
                                                f"{collectives[0]}.json")
    command = [args.isvp, "bench", "collectives", "--topology", spec, "--collectives",
               ",".join(collectives), "--sizes", ",".join(str(s) for s in sizes), "--iterations",
               str(args.iterations), "--warmup", str(args.warmup), "--offload", args.offload, "--json", json_path,
               "--progress", "--progress-every", "0"]  # row lines only: the sweep's own line shows progress
    if args.aglu:
        command += ["--aglu", args.aglu]
    if timing_only:
        command.append("--timing-only")
    elif args.check:
        command.append("--check")
    for assignment in args.set or []:
        command += ["--set", assignment]
    if args.partitions:
        command += ["--partitions", args.partitions]
    started = time.monotonic()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True)
    RUNNING.add(process)
    errors = []
    for line in process.stderr:
        match = re.match(r"bench collectives: (\S+) (\d+) of (\d+), ([\d.]+) s elapsed, ~([\d.]+) s left", line)
        if match:
            fraction = int(match.group(2)) / int(match.group(3))
            progress.show(label, weight, fraction, float(match.group(5)),
                          detail=f" {match.group(1)} ({match.group(2)}/{match.group(3)})")
        else:
            errors.append(line)
    stdout = process.stdout.read()
    status = process.wait()
    RUNNING.discard(process)
    if status != 0:
        raise BenchFailed(f"sweep: {' '.join(command)} failed with status {status}\n{stdout}{''.join(errors)}")
    progress.finished(label, weight)
    with open(json_path) as f:
        result = json.load(f)
    result["command"] = " ".join(os.path.relpath(c) if c == args.isvp else c for c in command)
    result["sweep_wall_seconds"] = time.monotonic() - started
    result["stdout"] = stdout
    with open(os.path.join(out_dir, "raw", os.path.basename(json_path).replace(".json", ".txt")), "w") as f:
        f.write(stdout)
    return result


def collect(runs):
    """Flat rows: one per (nodes, topology, collective, size)."""
    rows = []
    for run in runs:
        for row in run["rows"]:
            rows.append({"nodes": run["ranks"], "topology": run["topology"], "topology_kind": run["topology_kind"],
                         "timing_only": run["timing_only"], **row})
    return rows


def network_keys(rows):
    """The (nodes, topology) pairs of the rows, by node count, then in the order
    they were given (rows are sorted that way)."""
    keys = []
    for r in rows:
        if (r["nodes"], r["topology"]) not in keys:
            keys.append((r["nodes"], r["topology"]))
    return keys


def plain_tori(rows):
    """True when every network is a torus and no node count has two: labels
    then name the node count only, as before --topology existed."""
    keys = network_keys(rows)
    return all(r["topology_kind"] == "torus" for r in rows) and len({n for n, _ in keys}) == len(keys)


CSV_COLUMNS = ["nodes", "topology", "topology_kind", "timing_only", "collective", "size", "offload_us", "software_us",
               "speedup", "loggp_offload_us", "loggp_software_us", "loggp_offload_store_and_forward_us", "diff_offload",
               "diff_software", "offload_release_skew_us", "software_release_skew_us", "note_offload",
               "note_software"]


def write_csv(path, rows):
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=CSV_COLUMNS, extrasaction="ignore")
        writer.writeheader()
        for row in rows:
            writer.writerow(row)


def fmt(value, digits=2):
    return "—" if value is None else f"{value:,.{digits}f}"


def pct(value):
    return "—" if value is None else f"{value * 100:+.0f} %"


def build_stamp(args, runs):
    """Which build produced the figures: the commit the binary says it was
    built from ("+": with uncommitted changes), not the checkout's, which may
    have moved on since the build."""
    commits = sorted({run.get("build_commit") for run in runs if run.get("build_commit")})
    if not commits:  # no runs: ask the binary
        words = subprocess.run([args.isvp, "--version"], capture_output=True, text=True).stdout.split()
        commits = [words[-1] if words else "unknown"]
    text = ", ".join(c.rstrip("+") for c in commits)
    return f"built from commit {text}{' (with uncommitted changes)' if any(c.endswith('+') for c in commits) else ''}"


def host_path(runs):
    """The driver's send and completion paths the runs used, from the
    driver.* parameters each bench run records in its JSON
    (docs/PERFORMANCE.md, Send and completion paths)."""
    paths = set()
    for run in runs:
        driver = run.get("parameters", {}).get("driver", {})
        if not driver:
            continue
        text = f"driver.send_path={driver.get('send_path')}"
        if driver.get("send_path") in ("pio", "auto"):
            text += f" (pio up to {driver.get('pio_max_bytes')} B)"
        text += f", driver.completion={driver.get('completion')}"
        if driver.get("completion") == "hybrid":
            text += f" (poll {driver.get('poll_us')} µs)"
        paths.add(text)
    return "; ".join(sorted(paths)) if paths else "not recorded by the runs"


def network_section(args, nodes, subset, skipped):
    """One network's table: offload, software, speed-up and the model per row."""
    lines = [f"## {nodes} nodes ({topology_label(subset[0]['topology_kind'], subset[0]['topology'])}"
             f"{', timing only' if subset[0]['timing_only'] else ''})", ""]
    lines.append("| collective | size | offload µs | software µs | speed-up | LogGP offload µs | "
                 "LogGP software µs | diff offload | diff software | notes |")
    lines.append("|---|---|---|---|---|---|---|---|---|---|")
    notes, skews = [], {}
    for r in subset:
        refs = []
        for kind in ("offload", "software"):
            text = r.get(f"note_{kind}")
            if text:
                if text not in notes:
                    notes.append(text)
                skews.setdefault(text, []).append(r.get(f"{kind}_release_skew_us"))
                refs.append(f"{kind} [{notes.index(text) + 1}]")
        lines.append(f"| {r['collective']} | {human_size(r['size']) if r['collective'] != 'barrier' else '—'} | "
                     f"{fmt(r.get('offload_us'))} | {fmt(r.get('software_us'))} | "
                     f"{fmt(r.get('speedup'))}{'×' if r.get('speedup') else ''} | "
                     f"{fmt(r.get('loggp_offload_us'))} | {fmt(r.get('loggp_software_us'))} | "
                     f"{pct(r.get('diff_offload'))} | {pct(r.get('diff_software'))} | {', '.join(refs)} |")
    lines.append("")
    if notes:
        lines.append("Where model and simulation differ by more than 25 %:")
        lines.append("")
        for i, text in enumerate(notes, 1):
            measured = [v for v in skews[text] if v is not None]
            spread = ""
            if "measured" in text and measured:
                spread = f" Measured release skew in these rows: {min(measured):.2f}–{max(measured):.2f} µs."
            lines.append(f"{i}. {text}.{spread}")
        lines.append("")
    skips = [s for s in skipped if s[0] == nodes]
    if skips:
        lines.append("Not run (the collective buffer, P × size, exceeds --max-buffer "
                     f"{human_size(args.max_buffer)}): " +
                     "; ".join(f"{c} {', '.join(human_size(s) for s in sizes)}" for _, c, sizes in skips) + ".")
        lines.append("")
    return lines


def side_by_side_section(nodes, subsets):
    """Several networks of one node count: per (collective, size) one offload and
    one software column per network, and the first network's latency over each
    other's (above 1: the other is faster)."""
    names = [short_label(s[0]["topology_kind"], s[0]["topology"]) for s in subsets]
    by_point = [{(r["collective"], r["size"]): r for r in s} for s in subsets]
    order = {c: i for i, c in enumerate(ALL_COLLECTIVES)}
    points = sorted({p for b in by_point for p in b}, key=lambda p: (order[p[0]], p[1]))
    lines = [f"## {nodes} nodes side by side: {' vs '.join(names)}", ""]
    lines.append(f"Simulated latency (µs) of the same collectives on each network; {names[0]} ÷ other = the first "
                 "network's latency over the other's (above 1: the other is faster).")
    lines.append("")
    header = ["collective", "size"] + [f"offload {n}" for n in names] + [f"software {n}" for n in names]
    header += [f"offload {names[0]} ÷ {n}" for n in names[1:]] + [f"software {names[0]} ÷ {n}" for n in names[1:]]
    lines.append("| " + " | ".join(header) + " |")
    lines.append("|" + "---|" * len(header))
    for collective, size in points:
        found = [b.get((collective, size), {}) for b in by_point]
        cells = [collective, human_size(size) if collective != "barrier" else "—"]
        for key in ("offload_us", "software_us"):
            cells += [fmt(f.get(key)) for f in found]
        for key in ("offload_us", "software_us"):
            for f in found[1:]:
                first, other = found[0].get(key), f.get(key)
                cells.append(f"{first / other:.2f}×" if first and other else "—")
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    return lines


def write_report(path, args, runs, rows, skipped, total_wall, plots):
    lines = ["# Collective sweep: in-switch offload against host software, with the LogGP model", ""]
    lines.append(f"Generated {datetime.datetime.now().strftime('%Y-%m-%d %H:%M')} by an isvp "
                 f"{build_stamp(args, runs)}, with `{' '.join(sys.argv)}`; "
                 f"total wall time {human_seconds(total_wall)} ({len(runs)} bench runs, "
                 f"{human_seconds(sum(r['sweep_wall_seconds'] for r in runs))} of wall time between them, "
                 f"up to {args.jobs} at once"
                 + (f", each in --partitions {args.partitions}" if args.partitions else "") + ").")
    lines.append("")
    lines.append(f"Host path: {host_path(runs)}.")
    lines.append("")
    lines.append("Latency: every call after a barrier; per iteration the maximum over ranks of each rank's time "
                 f"in the call; averaged over {args.iterations} timed iterations after {args.warmup} warm-up "
                 "(OSU method). int32 SUM for reductions; size = bytes per rank (per rank block for scatter, "
                 "gather, allgather, reduce_scatter). Speed-up = software / offload. LogGP: models/loggp "
                 "(docs/REPORTS.md); diff = (simulated − model) / model. Where |diff| > 25 % the note says which "
                 "of the model's assumptions the row breaks.")
    lines.append("")
    params = runs[0].get("loggp", {}) if runs else {}
    if params:
        lines.append(f"LogGP parameters derived from the platform: o_s = {params['o_s_us']:.3f} µs, "
                     f"o_r = {params['o_r_us']:.3f} µs, g = {params['g_us']:.3f} µs, "
                     f"L(h) = {params['L_router_us']:.3f} + h × {params['hop_us']:.4f} µs, "
                     f"G = {params['G_us_per_byte'] * 1e3:.4f} ns/B ({8 / params['G_us_per_byte'] / 1e3:.1f} Gb/s), "
                     f"G_aglu = {params['G_aglu_us_per_byte'] * 1e3:.3f} ns/B, "
                     f"G_engine = {params['G_engine_us_per_byte'] * 1e3:.4f} ns/B.")
        lines.append("")
    all_tori = all(run["topology_kind"] == "torus" for run in runs)
    lines.append(f"| nodes | {'torus' if all_tori else 'topology'} | payload | wall time | command |")
    lines.append("|---|---|---|---|---|")
    for run in runs:
        network = run["topology"] if all_tori else topology_label(run["topology_kind"], run["topology"])
        lines.append(f"| {run['ranks']} | {network} | {'timing only' if run['timing_only'] else 'yes'}"
                     f"{' (checked)' if run.get('check') else ''} | {human_seconds(run['sweep_wall_seconds'])} | "
                     f"`{run['command']}` |")
    lines.append("")
    keys = network_keys(rows)
    for nodes in sorted({n for n, _ in keys}):
        topologies = [t for n, t in keys if n == nodes]
        for topology in topologies:
            subset = [r for r in rows if r["nodes"] == nodes and r["topology"] == topology]
            lines += network_section(args, nodes, subset, skipped)
        if len(topologies) > 1:
            lines += side_by_side_section(nodes, [[r for r in rows if r["nodes"] == nodes and r["topology"] == t]
                                                  for t in topologies])
    if plots:
        lines.append("## Plots")
        lines.append("")
        for plot in plots:
            lines.append(f"![{plot}]({plot})")
        lines.append("")
    else:
        lines.append("Plots: not made (matplotlib is not importable; `scripts/setup.sh` installs "
                     "python3-matplotlib).")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def make_plots(out_dir, rows):
    """PNG plots; returns their file names, or [] when matplotlib is missing."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.stderr.write("sweep: plots skipped: matplotlib is not importable (install python3-matplotlib)\n")
        return []
    made = []
    keys = network_keys(rows)
    plain = plain_tori(rows)

    def name_of(key):
        subset = [r for r in rows if (r["nodes"], r["topology"]) == key]
        return f"{key[0]} nodes" + ("" if plain else f" {short_label(subset[0]['topology_kind'], key[1])}")

    def of(key, collective):
        return sorted((r for r in rows if (r["nodes"], r["topology"]) == key and r["collective"] == collective),
                      key=lambda r: r["size"])

    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    plotted = [c for c in ALL_COLLECTIVES if c != "barrier" and any(r["collective"] == c for r in rows)]
    for collective in plotted:
        figure, axes = plt.subplots(figsize=(7, 5))
        for i, key in enumerate(keys):
            subset = of(key, collective)
            colour = colours[i % len(colours)]
            for value, style, name in (("offload_us", "-o", "offload"), ("software_us", "--s", "software")):
                points = [(r["size"], r[value]) for r in subset if r.get(value)]
                if points:
                    axes.plot(*zip(*points), style, color=colour, markersize=3, label=f"{name_of(key)}, {name}")
        axes.set_xscale("log", base=2)
        axes.set_yscale("log")
        axes.set_xlabel("bytes per rank")
        axes.set_ylabel("latency (µs, max over ranks)")
        axes.set_title(f"{collective}: offload (solid) vs software (dashed)")
        axes.grid(True, which="both", alpha=0.3)
        axes.legend(fontsize=7)
        name = f"latency_{collective}.png"
        figure.tight_layout()
        figure.savefig(os.path.join(out_dir, name), dpi=110)
        plt.close(figure)
        made.append(name)
    # Speed-up of offload over software, one panel per network.
    with_speedup = [k for k in keys if any(r.get("speedup") for r in rows if (r["nodes"], r["topology"]) == k)]
    if with_speedup:
        columns = min(len(with_speedup), 3)
        grid_rows = math.ceil(len(with_speedup) / columns)
        figure, panels = plt.subplots(grid_rows, columns, figsize=(5 * columns, 4 * grid_rows), squeeze=False)
        for index, key in enumerate(with_speedup):
            axes = panels[index // columns][index % columns]
            for i, collective in enumerate(ALL_COLLECTIVES):
                subset = [r for r in of(key, collective) if r.get("speedup")]
                if not subset:
                    continue
                if collective == "barrier":
                    axes.axhline(subset[0]["speedup"], color=colours[i % len(colours)], linestyle=":",
                                 label="barrier")
                else:
                    axes.plot([r["size"] for r in subset], [r["speedup"] for r in subset], "-o", markersize=3,
                              color=colours[i % len(colours)], label=collective)
            axes.axhline(1.0, color="black", linewidth=0.8)
            axes.set_xscale("log", base=2)
            axes.set_xlabel("bytes per rank")
            axes.set_ylabel("speed-up (software / offload)")
            axes.set_title(name_of(key))
            axes.grid(True, which="both", alpha=0.3)
            axes.legend(fontsize=7)
        for index in range(len(with_speedup), grid_rows * columns):
            panels[index // columns][index % columns].axis("off")
        figure.tight_layout()
        figure.savefig(os.path.join(out_dir, "speedup.png"), dpi=110)
        plt.close(figure)
        made.append("speedup.png")
    # Networks side by side: a panel per (collective, node count with several
    # topologies), one colour per topology, offload solid, software dashed.
    shared = [n for n in sorted({n for n, _ in keys}) if sum(1 for m, _ in keys if m == n) > 1]
    if shared and plotted:
        figure, panels = plt.subplots(len(plotted), len(shared), figsize=(4.2 * len(shared), 3.3 * len(plotted)),
                                      squeeze=False)
        for row, collective in enumerate(plotted):
            for column, nodes in enumerate(shared):
                axes = panels[row][column]
                for i, key in enumerate(k for k in keys if k[0] == nodes):
                    subset = of(key, collective)
                    label = short_label(subset[0]["topology_kind"], key[1]) if subset else key[1]
                    for value, style, name in (("offload_us", "-o", "offload"), ("software_us", "--s", "software")):
                        points = [(r["size"], r[value]) for r in subset if r.get(value)]
                        if points:
                            axes.plot(*zip(*points), style, color=colours[i % len(colours)], markersize=3,
                                      label=f"{label}, {name}")
                axes.set_xscale("log", base=2)
                axes.set_yscale("log")
                axes.set_xlabel("bytes per rank", fontsize=8)
                axes.set_ylabel("latency (µs)", fontsize=8)
                axes.set_title(f"{collective}, {nodes} nodes", fontsize=9)
                axes.tick_params(labelsize=7)
                axes.grid(True, which="both", alpha=0.3)
                axes.legend(fontsize=6)
        figure.tight_layout()
        figure.savefig(os.path.join(out_dir, "topologies.png"), dpi=80)
        plt.close(figure)
        made.append("topologies.png")
    return made


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--isvp", default=os.path.join(REPO, "build", "platform", "isvp"), help="the isvp binary")
    parser.add_argument("--out", help="output folder (default: results/<date-time>)")
    parser.add_argument("--nodes", type=parse_nodes, default=parse_nodes("8,32,64,128"),
                        help="torus node counts (or XxYxZ shapes) run with payload; default 8,32,64,128; '' for none")
    parser.add_argument("--timing-only-nodes", type=parse_nodes, default=parse_nodes("512,1024"),
                        help="node counts run with --timing-only; default 512,1024; '' for none")
    parser.add_argument("--topology", type=parse_topology, action="append", default=[],
                        help="a network run with payload beside --nodes (repeatable): torus:XxYxZ, "
                             "fattree:radix=R,hosts=N[,oversubscription=S] or file:PATH")
    parser.add_argument("--timing-only-topology", type=parse_topology, action="append", default=[],
                        help="a network run with --timing-only beside --timing-only-nodes (repeatable)")
    parser.add_argument("--collectives", default="all", help="comma-separated list, or all")
    parser.add_argument("--sizes", type=parse_sizes, default=parse_sizes("4:4M"),
                        help="bytes per rank: A:B (powers of two) or a,b,c; default 4:4M")
    parser.add_argument("--max-buffer", type=parse_size, default=parse_size("4M"),
                        help="largest collective buffer (P x size for per-rank-block collectives); default 4M")
    parser.add_argument("--iterations", type=counting(1), default=2, help="timed iterations per row; default 2")
    parser.add_argument("--warmup", type=counting(0), default=1, help="warm-up iterations per row; default 1")
    parser.add_argument("--offload", default="both", choices=["on", "off", "both"], help="default both")
    parser.add_argument("--check", action="store_true", help="check every result of the payload runs")
    parser.add_argument("--aglu", choices=["tlm", "rtl"], help="AgLU implementation in the switches")
    parser.add_argument("--set", action="append", help="platform parameter key=value (repeatable)")
    parser.add_argument("--jobs", type=int,
                        help="bench runs at once (each is one simulator process); default: the machine's cores "
                             "(divided by --partitions)")
    parser.add_argument("--partitions", metavar="P|auto",
                        help="simulate each point in P processes (isvp's --partitions; auto: one per CPU, at most one "
                             "per 32 ranks, so a nightly sweep of large networks uses the cores within a point)")
    args = parser.parse_args()
    if args.partitions is not None and args.partitions != "auto" and not (args.partitions.isdigit()
                                                                          and int(args.partitions) >= 1):
        parser.error(f"--partitions takes a number of partitions or 'auto', got {args.partitions!r}")
    if args.jobs is None:
        cores = len(os.sched_getaffinity(0))
        per_point = 1 if args.partitions is None else cores if args.partitions == "auto" else int(args.partitions)
        args.jobs = max(1, cores // per_point)
    if args.jobs < 1:
        parser.error(f"--jobs must be at least 1, got {args.jobs}")

    collectives = ALL_COLLECTIVES if args.collectives == "all" else args.collectives.split(",")
    for c in collectives:
        if c not in ALL_COLLECTIVES:
            parser.error(f"unknown collective '{c}' (known: {', '.join(ALL_COLLECTIVES)})")
    if not os.access(args.isvp, os.X_OK):
        parser.error(f"{args.isvp} is not an executable; build first (scripts/build.sh) or pass --isvp")
    # Networks: (nodes, --topology spec, timing only), --nodes as tori first.
    networks = [(n, f"torus:{shape}", False) for n, shape in args.nodes]
    networks += [(n, spec, False) for n, spec in args.topology]
    networks += [(n, f"torus:{shape}", True) for n, shape in args.timing_only_nodes]
    networks += [(n, spec, True) for n, spec in args.timing_only_topology]
    seen = set()
    for nodes, spec, _ in networks:
        if canonical_spec(spec) in seen:
            parser.error(f"the network {spec} ({nodes} nodes) is given twice (--nodes, --topology, "
                         "--timing-only-nodes, --timing-only-topology)")
        seen.add(canonical_spec(spec))
    # Raw file names: bench_<nodes>_... for a torus alone at its node count (as
    # before --topology), bench_<nodes>_<topology>_... otherwise.
    tags = {}
    for nodes, spec, _ in networks:
        alone = sum(1 for n, _, _ in networks if n == nodes) == 1
        tags[spec] = str(nodes) if alone and spec.startswith("torus:") else f"{nodes}_{slug(spec)}"
    if len(set(tags.values())) != len(tags):
        parser.error("two --topology networks give the same raw file name: " + ", ".join(sorted(tags)))

    out_dir = args.out or os.path.join(REPO, "results", datetime.datetime.now().strftime("%Y%m%d-%H%M%S"))
    try:
        os.makedirs(os.path.join(out_dir, "raw"), exist_ok=True)
    except OSError as error:
        parser.error(f"--out {out_dir}: cannot create the folder: {error.strerror}")

    # Plan: per network, up to two bench runs (whole-vector collectives with
    # every size; per-rank-block ones with the sizes that fit).
    plan, skipped = [], []
    passes = 2 if args.offload == "both" else 1
    for nodes, spec, timing_only in networks:
        whole = [c for c in collectives if c not in PER_RANK_BLOCKS]
        blocks = [c for c in collectives if c in PER_RANK_BLOCKS]
        fitting = [s for s in args.sizes if s * nodes <= args.max_buffer]
        for c in blocks:
            too_big = [s for s in args.sizes if s * nodes > args.max_buffer]
            if too_big and (nodes, c, too_big) not in skipped:
                skipped.append((nodes, c, too_big))
        for group, sizes in ((whole, args.sizes), (blocks, fitting)):
            if group and sizes:
                plan.append((nodes, spec, group, sizes, timing_only))
    if not plan:
        parser.error("nothing to run: no network (--nodes, --topology, --timing-only-nodes, --timing-only-topology)"
                     if not networks else f"nothing to run: no size fits --max-buffer {args.max_buffer} bytes")
    total = sum(run_weight(n, g, s, passes) for n, _, g, s, _ in plan)
    progress = Progress(total)
    started = time.monotonic()
    named = not all(spec.startswith("torus:") for _, spec, _ in networks) or \
        len({n for n, _, _ in networks}) != len(networks)

    stop = threading.Event()  # set when a bench failed or the sweep is interrupted: start no more

    def run_point(indexed):
        index, (nodes, spec, group, sizes, timing_only) = indexed
        if stop.is_set():
            return None
        weight = run_weight(nodes, group, sizes, passes)
        label = (f"run {index}/{len(plan)}: {nodes} nodes{' ' + spec if named else ''}"
                 f"{' timing-only' if timing_only else ''}")
        progress.show(label, weight)
        return run_bench(args, tags[spec], spec, group, sizes, timing_only, out_dir, progress, label, weight)

    # Points are independent simulator runs: run --jobs of them at once; their
    # tables are printed in plan order, each as soon as it and all before it
    # are done, so the output does not depend on --jobs. A failure ends the
    # sweep at once, whichever point it was.
    results, printed = {}, 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = {pool.submit(run_point, item): item[0] for item in enumerate(plan, 1)}
        try:
            for future in concurrent.futures.as_completed(futures):
                results[futures[future]] = future.result()
                while printed + 1 in results:
                    printed += 1
                    if progress.tty:
                        sys.stderr.write("\r\033[K")
                    sys.stdout.write(results[printed].pop("stdout"))
                    sys.stdout.flush()
        except (BenchFailed, KeyboardInterrupt) as failure:
            stop.set()
            for process in list(RUNNING):
                try:
                    os.killpg(process.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass  # ended meanwhile
            pool.shutdown(wait=True, cancel_futures=True)
            progress.finish()
            if isinstance(failure, KeyboardInterrupt):
                sys.exit(130)
            sys.stderr.write(str(failure))
            sys.exit(1)
    runs = [results[index] for index in sorted(results)]
    total_wall = time.monotonic() - started
    progress.finish()

    rows = collect(runs)
    order = {c: i for i, c in enumerate(ALL_COLLECTIVES)}
    given = {}  # (nodes, topology description) -> the order the networks were given
    for run in runs:
        given.setdefault((run["ranks"], run["topology"]), len(given))
    rows.sort(key=lambda r: (r["nodes"], given[(r["nodes"], r["topology"])], order[r["collective"]], r["size"]))
    write_csv(os.path.join(out_dir, "results.csv"), rows)
    with open(os.path.join(out_dir, "results.json"), "w") as f:
        json.dump({"command": sys.argv, "wall_seconds": total_wall, "runs": runs, "rows": rows,
                   "skipped": [{"nodes": n, "collective": c, "sizes": s} for n, c, s in skipped]}, f, indent=1)
    plots = make_plots(out_dir, rows)
    write_report(os.path.join(out_dir, "report.md"), args, runs, rows, skipped, total_wall, plots)
    print(f"sweep: {len(rows)} rows from {len(runs)} runs in {human_seconds(total_wall)}; report, CSV, JSON "
          f"and {len(plots)} plots in {out_dir}")
    print(out_dir)


if __name__ == "__main__":
    main()
