"""benchmarks/run.py explains its own output: a legend of the columns
(ratio: lower is better), progress notes while a long row runs, and chart
labels that name sot's backends (not to be read as eager NumPy)."""
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "benchmarks"))
import run as bench  # noqa: E402


def test_the_table_has_a_legend_and_long_rows_report_progress(monkeypatch, capsys):
    def one_row(quick):
        yield "tiny", lambda x: (x * 2).sum(), (np.ones(4, np.float32),), {}

    def slow_measure(*args, **kwargs):
        import time
        time.sleep(0.3)          # a "long" row, with progress notes every 0.05 s
        return real_measure(*args, **kwargs)

    real_measure = bench.measure
    monkeypatch.setattr(bench, "workloads", one_row)
    monkeypatch.setattr(bench, "measure", slow_measure)
    monkeypatch.setattr(bench, "PROGRESS_SECONDS", 0.05)
    bench.main(["--quick", "--repeat", "1", "--chart", ""])
    out, err = capsys.readouterr()
    legend, table = out.split("\nworkload ", 1)
    table = "workload " + table
    assert "LOWER IS BETTER" in legend
    for column in ("eager", "sot:numpy", "sot:ort", "sot:auto", "ratio", "chose", "first call", "graphs",
                   "breaks"):
        assert f"  {column}" in legend and column in table.splitlines()[0]
    assert "\ntiny " in table and "lower is better" in table
    assert "... still measuring tiny (" in err


def test_the_chart_labels_the_backends_as_sot(tmp_path):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    row = bench.Row(1.0, 0.5, 0.25, 0.25, "ort", 0.1, 1, 0)
    seen = []
    real = plt.Axes.legend

    def legend(self, *a, **k):
        seen.extend(t for t in self.get_legend_handles_labels()[1])
        return real(self, *a, **k)
    plt.Axes.legend = legend
    try:
        bench.write_chart([("w", row)], str(tmp_path / "c.png"), "test")
    finally:
        plt.Axes.legend = real
    assert seen == ["sot (numpy backend)", "sot (onnxruntime backend)", "sot (auto backend)"]
