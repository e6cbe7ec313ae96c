#!/usr/bin/env python3
"""Rewrites an uncompressed trace.dat version 7 (`trace-cmd record
--compression none`) as a zlib-compressed one, per trace-cmd.dat.v7(5): every
metadata section and the first options section as one zlib block, each CPU's
data as zlib chunks of CHUNK_PAGES pages. Debian's trace-cmd compresses with
zstd only, so this is how the tests get a zlib file whose truth is known: the
events are the uncompressed original's, read by `trace-cmd report`.

The new sections and options are appended and the header points at them; the
old ones stay behind as unreferenced bytes, which the format allows.

Usage: dat_zlib.py IN.dat OUT.dat
"""
import struct
import sys
import zlib

CHUNK_PAGES = 3
META = range(16, 22)  # HEADER_INFO .. CMDLINES: an 8-byte offset each
BUFFER, DONE = 3, 0


def main(src, dst):
    data = bytearray(open(src, "rb").read())
    assert data[:10] == b"\x17\x08\x44tracing" and data[10:12] == b"7\0", "not a v7 trace.dat"
    order = ">" if data[12] == 1 else "<"
    page = struct.unpack_from(order + "I", data, 14)[0]
    assert data[18:24] == b"none\0\0", "not an uncompressed v7 file"
    first_at = 24
    def num(fmt, o):
        return struct.unpack_from(order + fmt, data, o)[0]

    pack = lambda f, *v: struct.pack(order + f, *v)
    out = bytearray(data)
    out[18:24] = b"zlib\0\0"

    def block(raw):  # a compressed block: <csize> <usize> <data>
        z = zlib.compress(bytes(raw), 9)
        return pack("II", len(z), len(raw)) + z

    def section(sid, desc, payload, compressed):  # appended; returns its offset
        at = len(out)
        body = block(payload) if compressed else payload
        out.extend(pack("HHIQ", sid, 1 if compressed else 0, desc, len(body)) + body)
        return at

    # the options chain of the original
    chain, off = [], num("Q", first_at)
    while off:
        sid, flags, desc, size = struct.unpack_from(order + "HHIQ", data, off)
        assert sid == 0 and not flags, "options section not plain"
        p, opts = off + 16, []
        while True:
            oid, osize = num("H", p), num("I", p + 2)
            opts.append((oid, bytes(data[p + 6:p + 6 + osize])))
            p += 6 + osize
            if oid == DONE:
                break
        chain.append((desc, opts))
        off = struct.unpack_from(order + "Q", opts[-1][1])[0]

    def meta(oid, raw):  # a metadata section recompressed; the option's new data
        at = struct.unpack_from(order + "Q", raw)[0]
        sid, flags, desc, size = struct.unpack_from(order + "HHIQ", data, at)
        assert sid == oid and not flags
        return pack("Q", section(sid, desc, data[at + 16:at + 16 + size], True))

    def buffer(raw):  # a BUFFER option: its CPUs' data as chunks
        at = struct.unpack_from(order + "Q", raw)[0]
        name_end = raw.index(b"\0", 8)
        clock_end = raw.index(b"\0", name_end + 1)
        head = raw[8:clock_end + 1]
        psize, ncpu = struct.unpack_from(order + "II", raw, clock_end + 1)
        desc = num("I", at + 4)
        new_at = len(out)
        out.extend(pack("HHIQ", BUFFER, 1, desc, 0))
        cpus, q = [], clock_end + 9
        for _ in range(ncpu):
            cpu, coff, csize = struct.unpack_from(order + "IQQ", raw, q)
            q += 20
            raw_cpu = data[coff:coff + csize]
            step = CHUNK_PAGES * (psize or page)
            chunks = [raw_cpu[i:i + step] for i in range(0, len(raw_cpu), step)]
            start = len(out)
            out.extend(pack("I", len(chunks)))
            for c in chunks:
                out.extend(block(c))
            cpus.append(pack("IQQ", cpu, start, len(out) - start))
        struct.pack_into(order + "Q", out, new_at + 8, len(out) - new_at - 16)
        return pack("Q", new_at) + head + pack("II", psize, ncpu) + b"".join(cpus)

    # new options sections, chained back to front; the first one compressed
    nxt = 0
    for i in reversed(range(len(chain))):
        desc, opts = chain[i]
        body = bytearray()
        for oid, raw in opts:
            if oid in META:
                raw = meta(oid, raw)
            elif oid == BUFFER:
                raw = buffer(raw)
            elif oid == DONE:
                raw = pack("Q", nxt)
            body.extend(pack("HI", oid, len(raw)) + raw)
        nxt = section(0, desc, body, i == 0)
    struct.pack_into(order + "Q", out, first_at, nxt)
    open(dst, "wb").write(out)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
