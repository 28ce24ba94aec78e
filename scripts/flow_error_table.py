#!/usr/bin/python3
"""Per-row error of the flow model against the packet model: reads two `isvp bench collectives`
outputs of the same command (one with --set network.model=flow) and prints a Markdown table of
every latency column, flow vs packet, with (flow - packet) / packet.

    scripts/flow_error_table.py packet.txt flow.txt
    cat packet-small.txt packet-large.txt > packet.txt   # sizes run apart: concatenate either side
"""

import sys


def rows(path):
    header, table = None, {}
    for line in open(path):
        fields = line.split()
        if line.startswith("# collective"):
            header = fields[1:]
        elif fields and not line.startswith("#") and len(fields) >= 3 and fields[1].isdigit():
            table[(fields[0], int(fields[1]))] = fields
    return header, table


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: scripts/flow_error_table.py PACKET.txt FLOW.txt (two isvp bench collectives outputs)")
    try:
        header, packet = rows(sys.argv[1])
        _, flow = rows(sys.argv[2])
    except OSError as error:
        sys.exit(f"flow_error_table: {error.filename}: {error.strerror}")
    if header is None:
        sys.exit(f"flow_error_table: {sys.argv[1]} has no '# collective' header: not an isvp bench collectives output")
    columns = [i for i, name in enumerate(header) if name in ("latency_us", "offload_us", "software_us")]
    titles = []
    for i in columns:
        titles += [f"{header[i]} packet", "flow", "error"]
    print("| collective | size | " + " | ".join(titles) + " |")
    print("|---|---:|" + "---:|" * len(titles))
    worst = []
    # Several packet outputs may be concatenated (sizes run apart): rows by
    # collective in order of first appearance, then by size.
    order = {}
    for name, _ in packet:
        order.setdefault(name, len(order))
    for key in sorted(packet, key=lambda k: (order[k[0]], k[1])):
        if key not in flow:
            continue
        cells = []
        for i in columns:
            p, f = float(packet[key][i]), float(flow[key][i])
            error = (f - p) / p * 100 if p > 0 else 0.0
            worst.append(abs(error))
            cells += [f"{p:.3f}", f"{f:.3f}", f"{error:+.1f}%"]
        print(f"| {key[0]} | {key[1]} | " + " | ".join(cells) + " |")
    if worst:
        worst.sort()
        print(f"\n{len(worst)} figures: median |error| {worst[len(worst) // 2]:.1f}%, largest {worst[-1]:.1f}%")


if __name__ == "__main__":
    main()
