#!/usr/bin/env python3
"""Holds HTTP connections to serve open as a slowloris does, for serve.bats.

Opens N connections from a source address, sends each an unfinished request
(a request line and a Host header, never the empty line), then optionally
one more header byte per connection every --trickle seconds, and keeps them
until --seconds pass or SIGTERM. The status file is rewritten as connections
change: "opened N closed C first_closed I" (I: the index of the first one
the server closed, in the order opened; -1 for none).
"""
import argparse
import os
import select
import signal
import socket
import time

p = argparse.ArgumentParser()
p.add_argument("--source", default="127.0.0.1")
p.add_argument("--target", required=True, help="HOST:PORT")
p.add_argument("-n", type=int, default=1)
p.add_argument("--trickle", type=float, default=0)
p.add_argument("--seconds", type=float, default=60)
p.add_argument("--status", required=True)
a = p.parse_args()
host, port = a.target.rsplit(":", 1)
stop = False


def on_term(*_):
    global stop
    stop = True


signal.signal(signal.SIGTERM, on_term)
signal.signal(signal.SIGINT, on_term)

# non-blocking connects: a server that stopped accepting leaves them pending
socks, pending = [], {}
for i in range(a.n):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind((a.source, 0))
    s.setblocking(False)
    s.connect_ex((host, int(port)))
    pending[s] = i
    socks.append(s)
end = time.monotonic() + 3
while pending and time.monotonic() < end:
    _, w, _ = select.select([], list(pending), [], 0.2)
    for s in w:
        del pending[s]
opened = [s for s in socks if s not in pending and s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == 0]
closed = {}
for i, s in enumerate(opened):
    try:
        s.send(b"GET /metrics HTTP/1.1\r\nHost: idlescope\r\nX-Slow: ")
    except OSError:
        closed[i] = time.monotonic()


def status():
    first = min(closed) if closed else -1
    with open(a.status + ".new", "w") as f:
        f.write("opened %d closed %d first_closed %d\n" % (len(opened), len(closed), first))
    os.replace(a.status + ".new", a.status)


status()
start = time.monotonic()
next_byte = start + a.trickle
while not stop and time.monotonic() < start + a.seconds:
    live = [s for i, s in enumerate(opened) if i not in closed]
    r, _, _ = select.select(live, [], [], 0.2)
    changed = False
    for s in r:
        try:
            data = s.recv(4096)
        except OSError:
            data = b""
        if not data:  # the server closed it (an answer before the close is read and dropped)
            closed[opened.index(s)] = time.monotonic()
            changed = True
    if a.trickle and time.monotonic() >= next_byte:
        next_byte += a.trickle
        for i, s in enumerate(opened):
            if i not in closed:
                try:
                    s.send(b"a")
                except OSError:
                    closed[i] = time.monotonic()
                    changed = True
    if changed:
        status()
status()
