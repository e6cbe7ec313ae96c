#!/usr/bin/env python3
"""Extract the raw vmlinux BTF blob from a kernel image that is not an ELF file.

Debian's arm64 /boot/vmlinuz-* is a raw arm64 "Image" (gzip-compressed in
the unsigned builds, a plain EFI-signed PE/Image in the signed ones), so the
.BTF section cannot be looked up by name.  This script (optionally)
decompresses the image and scans it for a BTF header:

    struct btf_header {
        __u16 magic;     /* 0xeB9F, little endian: bytes 9f eb */
        __u8  version;   /* 1 */
        __u8  flags;     /* 0 */
        __u32 hdr_len;   /* 24 */
        __u32 type_off;  /* offsets relative to the end of the header */
        __u32 type_len;
        __u32 str_off;
        __u32 str_len;
    };

Every candidate is validated (sections inside the buffer, non-overlapping,
type section 4-byte aligned, string section starting and ending with NUL);
the largest valid blob is written out.  Only the Python standard library is
used.

Usage: extract-btf.py IMAGE OUTPUT
"""

import bz2
import gzip
import lzma
import struct
import sys

BTF_MAGIC = b"\x9f\xeb"
HDR = struct.Struct("<HBBIIIII")  # little endian, 24 bytes
HDR_PREFIX = BTF_MAGIC + b"\x01\x00" + struct.pack("<I", HDR.size)


def decompress(data):
    """Return the kernel image bytes, decompressing gzip/xz/bzip2 if needed."""
    if data[:2] == b"\x1f\x8b":
        return gzip.decompress(data)
    if data[:6] == b"\xfd7zXZ\x00":
        return lzma.decompress(data)
    if data[:3] == b"BZh":
        return bz2.decompress(data)
    # EFI zboot image (CONFIG_EFI_ZBOOT): "MZ" .. "zimg" header with the
    # payload offset/size and the compression type name.
    if data[:2] == b"MZ" and data[4:8] == b"zimg":
        off, size = struct.unpack_from("<II", data, 8)
        comp = data[24:56].split(b"\x00", 1)[0].decode("ascii", "replace")
        payload = data[off:off + size]
        if comp == "gzip":
            return gzip.decompress(payload)
        if comp in ("xz", "lzma"):
            return lzma.decompress(payload)
        sys.exit("extract-btf: unsupported EFI zboot compression %r" % comp)
    return data  # already a raw Image (or an uncompressed PE/Image)


def candidates(img):
    """Yield (offset, total_len) of every self-consistent BTF header."""
    pos = img.find(HDR_PREFIX)
    while pos >= 0:
        blob = check(img, pos)
        if blob:
            yield pos, blob
        pos = img.find(HDR_PREFIX, pos + 1)


def check(img, pos):
    if pos + HDR.size > len(img):
        return 0
    (magic, version, flags, hdr_len,
     type_off, type_len, str_off, str_len) = HDR.unpack_from(img, pos)
    if magic != 0xEB9F or version != 1 or flags != 0 or hdr_len != HDR.size:
        return 0
    if type_len == 0 or str_len == 0:
        return 0
    if type_off % 4 or type_len % 4:
        return 0
    type_end = type_off + type_len
    str_end = str_off + str_len
    # sections must not overlap (types normally precede strings)
    if not (type_end <= str_off or str_end <= type_off):
        return 0
    total = hdr_len + max(type_end, str_end)
    if pos + total > len(img):
        return 0
    strs = pos + hdr_len + str_off
    if img[strs] != 0 or img[strs + str_len - 1] != 0:
        return 0
    return total


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__.strip().splitlines()[-1])
    with open(argv[1], "rb") as f:
        img = decompress(f.read())
    found = list(candidates(img))
    if not found:
        sys.exit("extract-btf: no valid BTF header found in %s" % argv[1])
    off, size = max(found, key=lambda c: c[1])
    with open(argv[2], "wb") as f:
        f.write(img[off:off + size])
    print("extract-btf: %d candidate(s); wrote %d bytes from image offset "
          "0x%x to %s" % (len(found), size, off, argv[2]), file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv)
