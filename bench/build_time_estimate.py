#!/usr/bin/env python3
"""Estimates how long a finished ninja build would take on a machine with more cores.

Reads the build's dependency graph (`ninja -t graph TARGETS`) and each step's measured
duration (`.ninja_log`, the latest entry per output), then replays the build on N cores:
a step starts when all its inputs are built and a core is free, longest remaining path first
(critical-path list scheduling, which ninja approaches). It also prints the two bounds every
schedule obeys: the sum of step times / N, and the longest chain of dependent steps.

The estimate assumes the other machine's cores are as fast as this one's and that its memory
and disk never make a step wait; it ignores ninja's own start-up and CMake's configure.

Usage: bench/build_time_estimate.py BUILD_DIR --cores 2,16 [--target T ...]
"""
import argparse
import heapq
import os
import re
import subprocess
import sys


def read_durations(build_dir):
    """Seconds per output path (relative to build_dir), latest log entry wins."""
    log = os.path.join(build_dir, ".ninja_log")
    try:
        lines = open(log, encoding="utf-8").read().splitlines()
    except OSError as err:
        sys.exit(f"build_time_estimate: cannot read {log}: {err.strerror}")
    if not lines or not lines[0].startswith("# ninja log v"):
        sys.exit(f"build_time_estimate: {log} is not a ninja log")
    prefix = os.path.realpath(build_dir) + os.sep
    durations = {}
    for line in lines[1:]:
        fields = line.split("\t")
        if len(fields) != 5:
            continue
        start_ms, end_ms, _, path, _ = fields
        if path.startswith(prefix):
            path = path[len(prefix):]
        durations[path] = (int(end_ms) - int(start_ms)) / 1000.0
    return durations


NODE = re.compile(r'^"(0x[0-9a-f]+)" \[label="(.*)"(, shape=ellipse)?\]$')
ARC = re.compile(r'^"(0x[0-9a-f]+)" -> "(0x[0-9a-f]+)"( \[(arrowhead=none|label="[^"]*")\])?$')


def read_graph(build_dir, targets):
    """Build steps as {step: (inputs, outputs)} over file labels."""
    try:
        dot = subprocess.run(["ninja", "-C", build_dir, "-t", "graph", *targets], check=True,
                             capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError) as err:
        sys.exit(f"build_time_estimate: ninja -t graph failed: {getattr(err, 'stderr', err)}".strip())
    labels, steps = {}, {}
    for line in dot.splitlines():
        node = NODE.match(line)
        if node:
            if node.group(3):
                steps[node.group(1)] = (set(), set())
            else:
                labels[node.group(1)] = node.group(2)
            continue
        arc = ARC.match(line)
        if not arc:
            continue
        source, sink, _, attribute = arc.groups()
        if sink in steps:
            steps[sink][0].add(source)
        elif source in steps:
            steps[source][1].add(sink)
        else:  # a step with one input and one output is drawn as one labelled arc
            steps[f"{source}->{sink}"] = ({source}, {sink})
    return {name: ({labels[i] for i in ins if i in labels}, {labels[o] for o in outs if o in labels})
            for name, (ins, outs) in steps.items()}


def schedule(steps, durations, cores):
    """Makespan of critical-path list scheduling on `cores` cores."""
    producer = {out: name for name, (_, outs) in steps.items() for out in outs}
    cost = {name: max((durations.get(o, 0.0) for o in outs), default=0.0)
            for name, (_, outs) in steps.items()}
    needs = {name: {producer[i] for i in ins if i in producer} for name, (ins, _) in steps.items()}
    users = {name: [] for name in steps}
    for name, deps in needs.items():
        for dep in deps:
            users[dep].append(name)
    # Longest path from each step to the end (its priority), in reverse topological order.
    order, waiting = [], {name: len(deps) for name, deps in needs.items()}
    ready = [name for name, count in waiting.items() if count == 0]
    while ready:
        name = ready.pop()
        order.append(name)
        for user in users[name]:
            waiting[user] -= 1
            if waiting[user] == 0:
                ready.append(user)
    if len(order) != len(steps):
        sys.exit("build_time_estimate: the graph has a cycle")
    tail = {}
    for name in reversed(order):
        tail[name] = cost[name] + max((tail[u] for u in users[name]), default=0.0)
    waiting = {name: len(deps) for name, deps in needs.items()}
    ready = [(-tail[name], name) for name, count in waiting.items() if count == 0]
    heapq.heapify(ready)
    running, now, free = [], 0.0, cores
    while ready or running:
        while ready and free:
            _, name = heapq.heappop(ready)
            heapq.heappush(running, (now + cost[name], name))
            free -= 1
        now, name = heapq.heappop(running)
        free += 1
        for user in users[name]:
            waiting[user] -= 1
            if waiting[user] == 0:
                heapq.heappush(ready, (-tail[user], user))
    total = sum(cost.values())
    longest_chain = max(tail.values(), default=0.0)
    return now, total, longest_chain


def critical_path(steps, durations):
    """The longest chain of dependent steps, first to last, as (output, seconds)."""
    producer = {out: name for name, (_, outs) in steps.items() for out in outs}
    cost = {name: max((durations.get(o, 0.0) for o in outs), default=0.0) for name, (_, outs) in steps.items()}
    memo = {}

    def longest_to(name):  # the longest chain ending with `name`
        if name not in memo:
            before = [longest_to(producer[i]) for i in steps[name][0] if i in producer]
            best = max(before, key=lambda chain: chain[0], default=(0.0, []))
            memo[name] = (best[0] + cost[name], best[1] + [name])
        return memo[name]

    sys.setrecursionlimit(max(10000, 4 * len(steps)))
    _, chain = max((longest_to(name) for name in steps), key=lambda c: c[0], default=(0.0, []))
    return [(sorted(steps[name][1])[0] if steps[name][1] else name, cost[name]) for name in chain if cost[name] > 0]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("build_dir")
    parser.add_argument("--cores", default="2,16", help="comma-separated core counts")
    parser.add_argument("--target", action="append", default=[], help="targets (default: all)")
    args = parser.parse_args()
    try:
        cores = [int(c) for c in args.cores.split(",")]
        if min(cores) < 1:
            raise ValueError
    except ValueError:
        sys.exit(f"build_time_estimate: --cores needs positive integers, not '{args.cores}'")
    durations = read_durations(args.build_dir)
    steps = read_graph(args.build_dir, args.target or ["all"])
    timed = sum(1 for _, outs in steps.values() if any(o in durations for o in outs))
    print(f"{len(steps)} steps in the graph, {timed} with a measured time")
    for output, seconds in critical_path(steps, durations):
        print(f"  longest chain: {seconds:6.1f} s  {output}")
    for n in cores:
        makespan, total, chain = schedule(steps, durations, n)
        print(f"{n:3d} cores: {makespan / 60:5.1f} min  (bounds: total/{n} {total / n / 60:.1f} min, "
              f"longest chain {chain / 60:.1f} min; total {total / 60:.1f} min of steps)")


if __name__ == "__main__":
    main()
