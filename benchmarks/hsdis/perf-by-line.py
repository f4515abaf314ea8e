#!/usr/bin/env python3
"""Attributes perf's CPU samples of the busiest thread to the JIT's instructions and source lines.

Joins two outputs of one JVM run: the code it printed through hsdis (-XX:CompileCommand=print
with -XX:+DebugNonSafepoints, so that most instructions carry their bytecode position) and
perf's samples (perf record -e cpu-clock). Prints the samples per compiled method, then, for the
methods whose header contains METHOD, per source line (the innermost inlined frame) and the
hottest instructions. See docs/PERFORMANCE.md ("The split parser at the old speed").

usage: perf-by-line.py PRINTED.txt PERF.data METHOD [LINES] [INSTRUCTIONS]
"""
import bisect
import collections
import re
import subprocess
import sys

printed, data, wanted = sys.argv[1], sys.argv[2], sys.argv[3]
top_lines = int(sys.argv[4]) if len(sys.argv) > 4 else 30
top_insns = int(sys.argv[5]) if len(sys.argv) > 5 else 0

INSN = re.compile(r'^\s+0x([0-9a-f]+):\s+(.*)$')
SCOPE = re.compile(r'- ([\w.$]+::[\w<>$]+)@\d+ \(line (\d+)\)')

# Each compiled method: its header and its instructions as [address, text, annotation lines].
methods = []
current = None
for line in open(printed, errors='replace'):
    if line.startswith('Compiled method'):
        current = (line.strip(), [])
        methods.append(current)
    elif current is not None:
        m = INSN.match(line)
        if m and '|' not in m.group(2):  # '|' marks a hex dump, not an instruction
            current[1].append([int(m.group(1), 16), m.group(2).split(';')[0].strip(), [m.group(2)]])
        elif current[1] and line.strip().startswith(';'):
            current[1][-1][2].append(line.strip())

index = sorted((insn[0], mi, k) for mi, (_, insns) in enumerate(methods)
               for k, insn in enumerate(insns))
addresses = [a for a, _, _ in index]

samples = subprocess.run(['perf', 'script', '-i', data, '-F', 'tid,ip'],
                         capture_output=True, text=True, check=True).stdout.split('\n')
pairs = [s.split() for s in samples if s.strip()]
busiest = collections.Counter(p[0] for p in pairs).most_common(1)[0][0]

per_method = collections.Counter()
per_line = collections.Counter()
per_insn = collections.Counter()
total = 0


def source_line(insns, k):
    """The innermost source position printed at or before instruction k."""
    for j in range(k, -1, -1):
        for note in insns[j][2]:
            m = SCOPE.search(note)
            if m:
                return m.group(1).split('.')[-1] + ':' + m.group(2)
    return '?'


for tid, ip in pairs:
    if tid != busiest:
        continue
    total += 1
    ip = int(ip, 16)
    i = bisect.bisect_right(addresses, ip) - 1
    if i < 0 or ip - addresses[i] > 16:
        per_method['(not in a printed method: stubs, interpreter, VM)'] += 1
        continue
    _, mi, k = index[i]
    header, insns = methods[mi]
    per_method[header.split()[-3] if header.startswith('Compiled') else header] += 1
    if wanted in header:
        per_line[source_line(insns, k)] += 1
        per_insn[(mi, k)] += 1

print('samples of thread', busiest, total)
for name, n in per_method.most_common(20):
    print(f'{n:7d}  {name}')
print('--- per source line in', wanted)
for name, n in per_line.most_common(top_lines):
    print(f'{n:7d}  {name}')
if top_insns:
    print('--- hottest instructions')
    for (mi, k), n in per_insn.most_common(top_insns):
        a, text, _ = methods[mi][1][k]
        print(f'{n:7d}  {a:x}  {text[:70]}')
