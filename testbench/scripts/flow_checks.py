#!/usr/bin/python3
"""Checks of the flow network, network.model=flow (testbench/cmake/flow.cmake runs them):

  latency ISVP TOPOLOGY HOPS TOLERANCE_US   bench pingpong between host 0 and a host HOPS switch hops away,
                                            packet model and flow model: every row's latency (one message
                                            in flight, the network uncontended) agrees within TOLERANCE_US
                                            (0: printed digits identical)
  refused ISVP TEXT ARGS...                 bench collectives with ARGS is refused with a message containing TEXT
  solves ISVP PER ARGS...                   bench collectives with ARGS (flow model) needs at most one max-min
                                            solve per PER packets
  wakeups ISVP ARGS...                      bench collectives with ARGS (flow model): the NIC engines were woken
                                            by the platform's wake-up scheduler, not by timed events of their own
  collective ISVP PERCENT ARGS...           bench collectives with ARGS under both models: every row's latency
                                            agrees within PERCENT % (contended: concurrent steps share ports)
  trains ISVP N FEWER PERCENT ARGS...       bench collectives with ARGS (flow model) with and without
                                            network.flow_train_packets=N: the flow network carried at least
                                            FEWER times fewer packets and every row agrees within PERCENT %
  short ISVP N ARGS...                      bench collectives with ARGS (flow model; short offloaded messages)
                                            with and without network.flow_train_packets=N: the engines kept
                                            hardware packets (the flow network carried at least 95 % as many)
  header-only ISVP DIR ARGS...              bench collectives with ARGS (offload on or both): with payload and
                                            timing only under the flow model, timing only under the packet model.
                                            and with reliable.mode=on. Timing only, the NIC engines' packets
                                            whose payload nobody reads carry their headers only
                                            (PacketInfo::header_only): every step and result packet on the flow
                                            network, only the result packets on the packet network or with the
                                            reliable layer (it copies step packets); with payload none.
                                            Simulated times identical with and without payload
"""

import json
import os
import subprocess
import sys


def fail(message):
    print(f"FAIL: {message}")
    sys.exit(1)


def run(command, expect_success=True):
    print("$ " + " ".join(command), flush=True)
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    print(done.stdout + done.stderr, flush=True)
    if expect_success and done.returncode != 0:
        fail(f"exit status {done.returncode}")
    return done


def latencies(isvp, topology, hops, model):
    """size -> latency_us rows of one bench pingpong run."""
    out = run([isvp, "bench", "pingpong", "--topology", topology, "--hops", hops, "--sizes", "8,256,1K,4K,64K",
               "--iterations", "2", "--set", f"network.model={model}"]).stdout
    rows = {}
    for line in out.splitlines():
        fields = line.split()
        if len(fields) == 3 and fields[0].isdigit():
            rows[int(fields[0])] = float(fields[1])
    if len(rows) != 5:
        fail(f"{model}: expected 5 rows, got {sorted(rows)}")
    return rows


def latency(isvp, topology, hops, tolerance):
    packet = latencies(isvp, topology, hops, "packet")
    flow = latencies(isvp, topology, hops, "flow")
    worst = 0.0
    for size in sorted(packet):
        difference = abs(flow[size] - packet[size])
        worst = max(worst, difference)
        print(f"{size:>8} B  packet {packet[size]:.3f} us  flow {flow[size]:.3f} us  difference {difference:.3f} us")
        if difference > float(tolerance) + 1e-9:
            fail(f"{size} B: flow latency {flow[size]} us differs from the packet model's {packet[size]} us "
                 f"by more than {tolerance} us")
    print(f"ok: {len(packet)} sizes, largest difference {worst:.3f} us (tolerance {tolerance} us)")


def refused(isvp, text, args):
    done = run([isvp, "bench", "collectives"] + args, expect_success=False)
    if done.returncode == 0:
        fail("the run was not refused")
    if text not in done.stdout + done.stderr:
        fail(f"the refusal does not say '{text}'")
    print("ok: refused")


def solves(isvp, per, args):
    done = run([isvp, "bench", "collectives"] + args + ["--set", "network.model=flow"])
    line = next((l for l in done.stdout.splitlines() if l.startswith("# flow network:")), None)
    if line is None:
        fail("no '# flow network:' summary line")
    fields = line.split()
    packets, count = int(fields[3]), int(fields[fields.index("max-min") - 1])
    print(line)
    if packets == 0 or count * int(per) > packets:
        fail(f"{count} solves for {packets} packets: more than one per {per} packets")
    print("ok: solves")


def wakeups(isvp, args):
    done = run([isvp, "bench", "collectives"] + args + ["--set", "network.model=flow"])
    line = next((l for l in done.stdout.splitlines() if l.startswith("# flow network:")), None)
    if line is None or "engine wake-ups" not in line:
        fail("no '# flow network: ... engine wake-ups' summary line")
    fields = line.split()
    count = int(fields[fields.index("wake-ups") - 2])
    print(line)
    if count == 0:
        fail("the NIC engines were never woken by the scheduler: they are back on timed events of their own "
             "(each an entry in SystemC's timed queue, 35 % of a large flow run)")
    print(f"ok: {count} engine wake-ups on the scheduler")


def collective_rows(isvp, args, model):
    """(collective, size) -> latency_us of one bench collectives run."""
    out = run([isvp, "bench", "collectives"] + args + ["--set", f"network.model={model}"]).stdout
    rows = {}
    for line in out.splitlines():
        fields = line.split()
        if len(fields) >= 3 and not line.startswith("#") and fields[1].isdigit():
            rows[(fields[0], int(fields[1]))] = float(fields[2])
    if not rows:
        fail(f"{model}: no rows")
    return rows


def collective(isvp, percent, args):
    packet = collective_rows(isvp, args, "packet")
    flow = collective_rows(isvp, args, "flow")
    if sorted(packet) != sorted(flow):
        fail(f"the models printed different rows: {sorted(packet)} and {sorted(flow)}")
    for key in sorted(packet):
        error = (flow[key] - packet[key]) / packet[key] * 100.0
        print(f"{key[0]} {key[1]} B  packet {packet[key]:.3f} us  flow {flow[key]:.3f} us  error {error:+.1f} %")
        if abs(error) > float(percent):
            fail(f"{key[0]} {key[1]} B: the flow model is {error:+.1f} % off the packet model (limit {percent} %)")
    print(f"ok: {len(packet)} rows within {percent} %")


def flow_run(isvp, args):
    """(rows, packets) of one flow-model bench collectives run."""
    out = run([isvp, "bench", "collectives"] + args + ["--set", "network.model=flow"]).stdout
    rows = {}
    for line in out.splitlines():
        fields = line.split()
        if len(fields) >= 3 and not line.startswith("#") and fields[1].isdigit():
            rows[(fields[0], int(fields[1]))] = float(fields[2])
    line = next((l for l in out.splitlines() if l.startswith("# flow network:")), None)
    if not rows or line is None:
        fail("no rows or no '# flow network:' summary line")
    return rows, int(line.split()[3])


def trains(isvp, n, fewer, percent, args):
    hardware, packets = flow_run(isvp, args)
    trained, train_packets = flow_run(isvp, args + ["--set", f"network.flow_train_packets={n}"])
    if sorted(hardware) != sorted(trained):
        fail(f"the runs printed different rows: {sorted(hardware)} and {sorted(trained)}")
    for key in sorted(hardware):
        error = (trained[key] - hardware[key]) / hardware[key] * 100.0
        print(f"{key[0]} {key[1]} B  packets {hardware[key]:.3f} us  trains of {n} {trained[key]:.3f} us  "
              f"{error:+.1f} %")
        if abs(error) > float(percent):
            fail(f"{key[0]} {key[1]} B: trains of {n} are {error:+.1f} % off hardware packets (limit {percent} %)")
    print(f"flow network packets: {packets} without trains, {train_packets} with trains of {n}")
    if train_packets * float(fewer) > packets:
        fail(f"trains of {n} carried {train_packets} packets against {packets}: fewer than {fewer} times fewer")
    print(f"ok: {packets / train_packets:.1f} times fewer packets, {len(hardware)} rows within {percent} %")


def short(isvp, n, args):
    _, packets = flow_run(isvp, args)
    _, train_packets = flow_run(isvp, args + ["--set", f"network.flow_train_packets={n}"])
    print(f"flow network packets: {packets} without trains, {train_packets} with trains of {n}")
    if train_packets < 0.95 * packets:
        fail(f"trains of {n} cut a short message's {packets} packets to {train_packets}: its blocks are too short "
             "for trains (CollectiveEngine::chunk_bytes_for), the engines should keep hardware packets")
    print("ok: short messages keep hardware packets")


def header_only(isvp, directory, args):
    os.makedirs(directory, exist_ok=True)
    runs = {}
    for name, extra in (("flow_payload", ["--set", "network.model=flow"]),
                        ("flow_timing_only", ["--set", "network.model=flow", "--timing-only"]),
                        ("packet_timing_only", ["--timing-only"]),
                        ("flow_reliable_timing_only", ["--set", "network.model=flow", "--set", "reliable.mode=on",
                                                       "--timing-only"])):
        path = os.path.join(directory, name + ".json")
        run([isvp, "bench", "collectives"] + args + extra + ["--json", path])
        runs[name] = json.load(open(path))
    engines = {name: r["engine"] for name, r in runs.items()}
    pools = {name: r["engine_packet_pool_bytes"] for name, r in runs.items()}
    for name, e in engines.items():
        print(f"{name}: {e['header_only_packets']} header-only of {e['step_packets_sent']} step and "
              f"{e['result_packets']} result packets; packet pool {pools[name]} B (max over nodes)")
    # What header-only packets are for: the engines' packet storage.
    if pools["flow_timing_only"] * 8 > pools["flow_payload"]:
        fail(f"timing only, an engine's packet pool holds {pools['flow_timing_only']} B against "
             f"{pools['flow_payload']} B with payload: header-only packets should keep it 8 times smaller")
    if engines["flow_payload"]["header_only_packets"] != 0:
        fail("a run with payload sent header-only packets")
    flow = engines["flow_timing_only"]
    if flow["result_packets"] == 0 or flow["step_packets_sent"] == 0:
        fail("the arguments should offload a collective with steps")
    if flow["header_only_packets"] != flow["step_packets_sent"] + flow["result_packets"]:
        fail("timing only on the flow network, every step and result packet should be header-only")
    packet = engines["packet_timing_only"]
    if packet["header_only_packets"] != packet["result_packets"]:
        fail("timing only on the packet network, the result packets (and only they: the links copy step "
             "packets) should be header-only")
    reliable = engines["flow_reliable_timing_only"]
    if reliable["header_only_packets"] != reliable["result_packets"]:
        fail("timing only on the flow network with reliable.mode=on, the result packets (and only they: the "
             "reliable layer keeps a copy of every step packet) should be header-only")
    rows = [runs[name]["rows"] for name in ("flow_payload", "flow_timing_only")]
    if len(rows[0]) != len(rows[1]) or not rows[0]:
        fail(f"the runs with and without payload printed {len(rows[0])} and {len(rows[1])} rows")
    for a, b in zip(*rows):
        for key in ("offload_us", "software_us"):
            if a.get(key) != b.get(key):
                fail(f"{a['collective']} {a['size']} {key}: {a.get(key)} with payload, {b.get(key)} timing only")
    print(f"ok: {flow['header_only_packets']} header-only packets on the flow network, "
          f"{packet['header_only_packets']} on the packet network; simulated times identical")


def main():
    what = sys.argv[1]
    if what == "latency":
        latency(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5])
    elif what == "solves":
        solves(sys.argv[2], sys.argv[3], sys.argv[4:])
    elif what == "wakeups":
        wakeups(sys.argv[2], sys.argv[3:])
    elif what == "collective":
        collective(sys.argv[2], sys.argv[3], sys.argv[4:])
    elif what == "trains":
        trains(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6:])
    elif what == "short":
        short(sys.argv[2], sys.argv[3], sys.argv[4:])
    elif what == "header-only":
        header_only(sys.argv[2], sys.argv[3], sys.argv[4:])
    elif what == "refused":
        refused(sys.argv[2], sys.argv[3], sys.argv[4:])
    else:
        fail(f"unknown check {what}")


if __name__ == "__main__":
    main()
