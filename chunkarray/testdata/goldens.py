"""Writes a golden folder for chunkarray's numpy-parity tests: the part
that every gen_parity*.py shares.

write(out, cases, inputs) evaluates each case (name, input names, numpy
function) on copies of its inputs and writes, into a fresh folder out,
<case>.npy (C order) for each result, in_<input>.npy for each input used,
and cases.json listing the cases in order with their inputs and the
result's dtype and shape, or "error" where numpy raises (the Go side must
fail too). sidecars maps further file names to JSON-able values written
beside them (indented by sidecar_indent). A result of a dtype nd lacks
(float16, complex256) is an error, or with skip_float16 leaves its case
out. Every input must be used, and case names must be distinct.
"""
import json
import os
import shutil

import numpy as np


def write(out, cases, inputs, sidecars=None, sidecar_indent=1, skip_float16=False):
    names = [c[0] for c in cases]
    dups = {n for n in names if names.count(n) > 1}
    assert not dups, dups

    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    used = set()
    manifest = []
    for name, ins, fn in cases:
        entry = {"name": name, "inputs": ins}
        try:
            r = np.asarray(fn(*[inputs[i].copy() for i in ins]))
        except Exception as e:  # numpy refuses: the Go side must fail too
            entry["error"] = f"{type(e).__name__}: {e}"
        else:
            if skip_float16 and (r.dtype == np.float16 or r.dtype == np.complex256):
                continue  # no nd equivalent: the case is left out
            if r.dtype == np.float16 or r.dtype == np.complex256 or r.dtype.kind not in "biufc":
                raise SystemExit(f"case {name}: result dtype {r.dtype} has no nd equivalent")
            entry["dtype"] = r.dtype.name
            entry["shape"] = list(r.shape)
            np.save(os.path.join(out, name + ".npy"), np.array(r, order="C"))
        used.update(ins)
        manifest.append(entry)
    for i in sorted(used):
        np.save(os.path.join(out, "in_" + i + ".npy"), inputs[i])
    unused = set(inputs) - used
    assert not unused, unused
    for fname, value in (sidecars or {}).items():
        with open(os.path.join(out, fname), "w") as f:
            json.dump(value, f, indent=sidecar_indent, sort_keys=True)
            f.write("\n")
    with open(os.path.join(out, "cases.json"), "w") as f:
        json.dump({"numpy": np.__version__, "cases": manifest}, f, indent=1)
        f.write("\n")
    total = sum(os.path.getsize(os.path.join(out, p)) for p in os.listdir(out))
    print(f"{len(manifest)} cases, {len(used)} inputs, {total} bytes in {out}")
