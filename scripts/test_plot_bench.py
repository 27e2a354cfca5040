#!/usr/bin/env python3
"""Unit tests of scripts/plot_bench.py's parsing and data files (stdlib unittest, < 1 s; run by
`make test-plot-bench`). Expected values are worked out by hand from the fixtures below."""
import io, json, os, sys, tempfile, unittest
from contextlib import redirect_stderr, redirect_stdout

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plot_bench as pb  # noqa: E402
import plot_train as pt  # noqa: E402

GEMM = {"device": "sim:n=16,bw=8", "output": "int8", "results": [
    {"m": 128, "k": 128, "n": 128, "array": 16, "cycles": 20000, "utilization": 0.4096,
     "correct": True},
    {"m": 64, "k": 64, "n": 64, "array": 16, "cycles": 9000, "utilization": 0.1138,
     "correct": True},
    {"m": 64, "k": 512, "n": 64, "array": 16, "cycles": 40000, "utilization": 0.2048,
     "correct": False}]}

# layer 0: 1000 MACs, max(400, 250) = 400 bytes -> intensity 2.5, 1000 / 50 = 20 MACs/cycle,
# bound max(10, 25) = 25 cycles -> 40 MACs/cycle; layer 1 (host max-pool) has no MACs.
MODEL = {"device": "sim:n=16", "model": "tiny", "batch": 4, "array": 16,
         "link_bytes_per_cycle": 16.0, "layers": [
             {"index": 0, "type": "dense", "cycles": 50, "macs": 1000, "utilization": 0.078,
              "dma_read_bytes": 400, "dma_write_bytes": 250, "compute_bound_cycles": 10,
              "link_bound_cycles": 25},
             {"index": 1, "type": "maxpool", "cycles": 0, "macs": 0, "utilization": 0.0,
              "dma_read_bytes": 0, "dma_write_bytes": 0, "compute_bound_cycles": 0,
              "link_bound_cycles": 0}]}


class PlotBenchTest(unittest.TestCase):
    def test_uri_bpc(self):
        self.assertEqual(pb.uri_bpc("sim:n=16"), 16.0)
        self.assertEqual(pb.uri_bpc("sim:n=16,bw=8,clock=500"), 16.0)
        self.assertEqual(pb.uri_bpc("sim:bw=4"), 4.0)
        self.assertEqual(pb.uri_bpc("golden"), 16.0)

    def test_gemm_rows(self):
        rows, bpc = pb.gemm_rows(GEMM, "x")
        self.assertEqual(bpc, 8.0)
        self.assertEqual([r["shape"] for r in rows], ["64x64x64", "64x512x64", "128x128x128"])
        self.assertEqual([r["macs"] for r in rows], [262144, 2097152, 2097152])
        self.assertEqual([r["square"] for r in rows], [True, False, True])
        self.assertFalse(rows[1]["correct"])
        # the compute bound is m x KT x NT MXU rows whatever the link
        self.assertEqual([r["compute"] for r in rows], [64 * 4 * 4, 64 * 32 * 4, 128 * 8 * 8])
        for r in rows:
            self.assertGreater(r["bound"], 0.0)
            self.assertLessEqual(r["bound"], 1.0)

    def test_model_points(self):
        m = pb.model_points(MODEL, "x")
        self.assertEqual((m["name"], m["array"], m["bpc"], m["batch"]), ("tiny", 16, 16.0, 4))
        self.assertEqual(len(m["points"]), 1)
        p = m["points"][0]
        self.assertEqual(p["label"], "tiny:0 dense")
        self.assertAlmostEqual(p["intensity"], 2.5)
        self.assertAlmostEqual(p["perf"], 20.0)
        self.assertAlmostEqual(p["bound_perf"], 40.0)

    def test_bad_json(self):
        with self.assertRaises(pb.BenchError):
            pb.gemm_rows({"results": [{"m": 1, "k": "2", "n": 3}]}, "x")
        with self.assertRaises(pb.BenchError):
            pb.model_points({"model": "x"}, "x")
        with self.assertRaises(pb.BenchError):
            pb.model_points(dict(MODEL, layers=[{"index": 0, "macs": True}]), "x")

    def test_main_writes_data_without_gnuplot(self):
        with tempfile.TemporaryDirectory() as d:
            for name, doc in (("sim_gemm.json", GEMM), ("model_tiny.json", MODEL)):
                with open(os.path.join(d, name), "w") as f:
                    json.dump(doc, f)
            out = io.StringIO()
            with redirect_stdout(out):
                rc = pb.main(["--dir", d, "--gnuplot", "no-such-gnuplot-xyz"])
            self.assertEqual(rc, 0)
            self.assertIn("not found", out.getvalue())
            for f in ("gemm_utilization.dat", "gemm_utilization.gp", "model_roofline.dat",
                      "model_roofline.gp"):
                self.assertTrue(os.path.getsize(os.path.join(d, f)) > 0, f)
            with open(os.path.join(d, "model_roofline.dat")) as f:
                rows = [ln for ln in f if ln.strip() and not ln.startswith("#")]
            self.assertEqual(rows, ['"tiny:0 dense" 2.5 20 40 0.078000\n'])
            with open(os.path.join(d, "gemm_utilization.gp")) as f:
                self.assertIn("WRONG OUTPUT: 64x512x64", f.read())
            with open(os.path.join(d, "bad.json"), "w") as f:
                f.write("{")
            os.rename(os.path.join(d, "bad.json"), os.path.join(d, "model_bad.json"))
            with redirect_stdout(io.StringIO()), \
                    open(os.devnull, "w") as null, redirect_stderr(null):
                self.assertEqual(pb.main(["--dir", d, "--no-gnuplot"]), 1)

    def test_main_without_inputs(self):
        with tempfile.TemporaryDirectory() as d:
            out = io.StringIO()
            with redirect_stdout(out):
                self.assertEqual(pb.main(["--dir", d]), 0)
            self.assertIn("missing", out.getvalue())
            self.assertEqual(os.listdir(d), [])


# one step of 1000 cycles: forward 400, backward 600; one layer, dW 1.5x its forward
STEP = {"device": "golden:bf16=1", "model": "tiny", "array": 16, "batch": 8, "steps": 2,
        "step_cycles": 1000.0, "forward_cycles": 400.0, "backward_cycles": 600.0,
        "update_cycles": 0.0, "mxu_utilization": 0.1, "images_per_second": 8e6,
        "layers": [{"layer": 0, "kind": "dense", "forward": {"cycles": 200}, "dw": {},
                    "dx": None, "dw_ratio": 1.5, "dx_ratio": None}]}
CURVE = ('{"epoch": 1, "loss": 2.0, "train_accuracy": 0.5, "val_accuracy": 0.25}\n'
         '{"checkpoint": "c.npz", "sha256": "00"}\n'
         '{"epoch": 2, "loss": 1.0, "train_accuracy": 0.75, "val_accuracy": 0.5}\n')


class PlotTrainTest(unittest.TestCase):
    def test_step_figures(self):
        s = pt.step_figures(STEP, "x")
        self.assertEqual((s["model"], s["forward_cycles"], s["backward_cycles"]),
                         ("tiny", 400.0, 600.0))
        self.assertEqual(s["layers"], [dict(layer=0, kind="dense", forward_cycles=200,
                                            dw_ratio=1.5, dx_ratio=None)])
        with self.assertRaises(pb.BenchError):
            pt.step_figures(dict(STEP, layers=[{"layer": 0}]), "x")

    def test_curve_and_outputs(self):
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "train_step_tiny.json"), "w") as f:
                json.dump(STEP, f)
            with open(os.path.join(d, "train_curve_tiny.jsonl"), "w") as f:
                f.write(CURVE)
            self.assertEqual(pt.curve(os.path.join(d, "train_curve_tiny.jsonl")),
                             [(1, 2.0, 0.5, 0.25), (2, 1.0, 0.75, 0.5)])
            out = io.StringIO()
            with redirect_stdout(out):
                self.assertEqual(pt.main(["--dir", d, "--no-gnuplot"]), 0)
            self.assertIn("forward 400 (40 %)", out.getvalue())
            with open(os.path.join(d, "train_curves.dat")) as f:
                rows = [ln for ln in f if ln.strip() and not ln.startswith("#")]
            self.assertEqual(rows, ["1 2 50.000 25.000\n", "2 1 75.000 50.000\n"])
            with open(os.path.join(d, "train_summary.json")) as f:
                self.assertEqual(json.load(f)["final_epochs"]["tiny"]["val_accuracy"], 0.5)
            with open(os.path.join(d, "train_curve_tiny.jsonl"), "w") as f:
                f.write('{"epoch": 2, "loss": 1.0, "train_accuracy": 1, "val_accuracy": 1}\n'
                        '{"epoch": 1, "loss": 1.0, "train_accuracy": 1, "val_accuracy": 1}\n')
            with redirect_stdout(io.StringIO()), \
                    open(os.devnull, "w") as null, redirect_stderr(null):
                self.assertEqual(pt.main(["--dir", d, "--no-gnuplot"]), 1)


if __name__ == "__main__":
    unittest.main()
