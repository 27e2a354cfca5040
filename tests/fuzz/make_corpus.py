#!/usr/bin/env python3
"""Writes the committed seed corpus of the libFuzzer harnesses, tests/fuzz/corpus/<harness>/.

usage: tests/fuzz/make_corpus.py   (from the tree root; rewrites the four folders)
The seeds are small and deterministic: valid .npy files of every dtype, version and rank; the
shipped CNN model; command lines of every command; command-stream programs, among them the
window-narrowed-mid-IDENTIFY race of docs/spec.md section 5 (fuzz_stream.c decodes them)."""
import os
import random
import shutil
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
from atomicio import atomic_open  # noqa: E402

OUT = os.path.join("tests", "fuzz", "corpus")


def put(harness, name, data):
    d = os.path.join(OUT, harness)
    os.makedirs(d, exist_ok=True)
    with atomic_open(os.path.join(d, name), "wb") as f:
        f.write(data)


def npy(descr, shape, payload, major=1):
    dic = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (
        descr, "(%s)" % (", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "")))
    pre = 10 if major == 1 else 12
    total = (pre + len(dic) + 1 + 63) // 64 * 64
    hdr = dic.ljust(total - pre - 1) + "\n"
    size = struct.pack("<H", len(hdr)) if major == 1 else struct.pack("<I", len(hdr))
    return b"\x93NUMPY" + bytes([major, 0]) + size + hdr.encode() + payload


def corpus_npy():
    put("npy", "i1_2x3", npy("|i1", (2, 3), bytes([1, 255, 3, 4, 128, 127])))
    put("npy", "u1_3", npy("|u1", (3,), bytes([0, 7, 255])))
    put("npy", "i4_4_v2", npy("<i4", (4,), struct.pack("<4i", 1, -1, 2**31 - 1, -2**31), 2))
    put("npy", "f4_1x2x2_v3", npy("<f4", (1, 2, 2), struct.pack("<4f", 0.5, -1, 3e38, 0), 3))
    put("npy", "u1_1x1x2x2", npy("|u1", (1, 1, 2, 2), bytes(4)))
    put("npy", "empty_0x4", npy("|i1", (0, 4), b""))
    put("npy", "truncated", npy("<i4", (8,), bytes(5)))


def corpus_model():
    shutil.copyfile(os.path.join("models", "digits-cnn.tpum"), os.path.join(OUT, "model", "cnn"))
    with open(os.path.join("models", "digits-cnn.tpum"), "rb") as f:
        m = bytearray(f.read())
    m[40] ^= 0x5A  # a corrupt copy: the CRC check refuses it
    put("model", "cnn_corrupt", bytes(m))


def corpus_cli():
    lines = [
        ["--help"], ["--version"], ["info"], ["--device", "golden:n=0", "info"],
        ["--device", "uart:/nonexistent", "info"], ["help", "matmul"],
        ["matmul", "A.npy", "B.npy", "-o", "OUT.npy"],
        ["matmul", "A.npy", "B.npy", "-o", "OUT.npy", "--bias", "bias.npy", "--multiplier",
         "M.npy", "--shift", "S.npy", "--in-zero-point", "-3", "--out-zero-point", "5",
         "--clamp", "-100,100", "--lut", "L.npy"],
        ["matmul", "A.npy", "B.npy", "-o", "O.npy", "--in-zero-point", "\n5"],
        ["run", "model.tpum", "X.npy", "--labels", "Y.npy", "--compare", "golden", "-o", "P.npy"],
        ["bench", "gemm", "--m", "8", "--k", "16", "--n", "4", "--json", "--raw", "--seed", "7"],
        ["bench", "model", "model.tpum", "X.npy", "--batch", "2", "--link-bpc", "1.5"],
        ["selftest", "--seed", "0x10"],
    ]
    for i, args in enumerate(lines):
        put("cli", "args%02d" % i, b"\0".join(a.encode() for a in args))


def corpus_stream():
    # push IDENTIFY page-aligned into buffer 0, ring, let the device start, narrow window 0 to
    # buffer 1 read-only: the race of docs/spec.md section 5
    identify = bytes([0, 8, 0x04, 0]) + bytes(4) + bytes(6)
    race = identify + bytes([3, 5, 30, 4, 0, 1]) + bytes(8) + bytes([0x07])
    put("stream", "identify_window_race", race)
    put("stream", "identify_window_race_late", identify + bytes([3, 5, 120, 4, 0, 1]) +
        bytes(8) + bytes([0x07]))
    rng = random.Random(20260)
    for i in range(6):
        put("stream", "random%d" % i, bytes(rng.randrange(256) for _ in range(160)))


if __name__ == "__main__":
    for h in ("npy", "model", "cli", "stream"):
        shutil.rmtree(os.path.join(OUT, h), ignore_errors=True)
        os.makedirs(os.path.join(OUT, h))
    corpus_npy()
    corpus_model()
    corpus_cli()
    corpus_stream()
