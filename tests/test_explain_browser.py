"""atomgrind-trace --explain=1 --format=html|svg, opened in a real headless
browser (Debian's Chromium, installed by setup.sh): what is drawn for the
papers' traces rho2-rho4 and a lock-closed one.  tests/browser/layout_probe.js
is added to the picture and reports the boxes the browser laid out; the
test checks that each transaction of the cycle is drawn in its thread's
lane, each event inside its transaction in trace order, and each conflict
edge as a red arrow from its source event to its target event."""
import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest

from agtest import HERE
from test_explain_trace import CYCLES, explain
import test_explain_trace

PROBE = os.path.join(HERE, "browser", "layout_probe.js")
SLACK = 2.0     # CSS pixels of rounding


def browser():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    raise AssertionError("no Chromium on PATH: ./setup.sh installs Debian's chromium")


def setUpModule():
    test_explain_trace.setUpModule()


def layout(picture, fmt):
    """The probe's JSON for the picture, as the browser drew it."""
    script = open(PROBE).read()
    if fmt == "svg":
        page = picture.replace("</svg>", "<script><![CDATA[%s]]></script></svg>" % script)
    else:
        page = picture.replace("</body>", "<script>%s</script></body>" % script)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "cycle." + fmt)
        with open(path, "w") as f:
            f.write(page)
        p = subprocess.run([browser(), "--headless", "--no-sandbox", "--disable-gpu",
                            "--user-data-dir=" + os.path.join(d, "profile"),
                            "--dump-dom", "file://" + path],
                           capture_output=True, text=True, timeout=120)
    m = re.search(r'id="ag-layout">(\{.*?\})</', p.stdout, re.S)
    if not m:
        raise AssertionError("the browser did not run the probe: rc=%d\n%s" % (p.returncode, p.stderr[-2000:]))
    return json.loads(m.group(1))


def inside(inner, outer):
    return (inner[0] >= outer[0] - SLACK and inner[1] >= outer[1] - SLACK
            and inner[2] <= outer[2] + SLACK and inner[3] <= outer[3] + SLACK)


def near_row(point, box):
    """point lies on the row of an event drawn in box (vertically)."""
    return box[1] - 8 <= point[1] <= box[3] + 8


class ExplainInBrowser(unittest.TestCase):

    def check(self, name, lay, cycle=None):
        """cycle: ({name: (thread, first, last)}, [(src, dst, from, to)]),
        by default the trace's in test_explain_trace.CYCLES."""
        txns, edges = cycle or CYCLES[name]
        # the cycle's transactions, each in its thread's lane
        self.assertEqual({t: v["thread"] for t, v in lay["txns"].items()},
                         {t: v[0] for t, v in txns.items()})
        for t, v in lay["txns"].items():
            box = v["box"]
            self.assertTrue(box[2] - box[0] > 20 and box[3] - box[1] > 10, (t, box))
            self.assertTrue(inside(box, lay["svg"]), (t, box, lay["svg"]))
        lanes = {}
        for t, v in lay["txns"].items():
            lanes.setdefault(v["thread"], []).append(v["box"])
        spans = sorted((min(b[0] for b in bs), max(b[2] for b in bs)) for bs in lanes.values())
        for (_, right), (left, _) in zip(spans, spans[1:]):
            self.assertLess(right, left + SLACK, "lanes overlap: %s" % spans)
        # events: visible, inside their transaction, one row each in trace order
        events = {int(i): e for i, e in lay["events"].items()}
        for i, e in events.items():
            self.assertGreater(e["box"][2] - e["box"][0], 5, (i, e))
            self.assertTrue(inside(e["box"], lay["txns"][e["txn"]]["box"]), (i, e))
        for t, (_, first, last) in txns.items():
            self.assertEqual(events[first]["txn"], t)
            self.assertEqual(events[last]["txn"], t)
        order = sorted(events)
        for a, b in zip(order, order[1:]):
            self.assertLess(events[a]["box"][1], events[b]["box"][1], "rows out of order: %d, %d" % (a, b))
        # edges: red arrows from the source event's row to the target's
        got = [(e["src"], e["dst"], e["from"], e["to"]) for e in lay["edges"]]
        self.assertEqual(got, edges)
        for e in lay["edges"]:
            self.assertEqual(e["stroke"], "rgb(204, 0, 0)", e)
            self.assertEqual(e["marker"], "url(#arrow)", e)
            src, dst = lay["txns"][e["src"]]["box"], lay["txns"][e["dst"]]["box"]
            self.assertTrue(src[0] - 8 <= e["start"][0] <= src[2] + 8, (e, src))
            self.assertTrue(dst[0] - 8 <= e["end"][0] <= dst[2] + 8, (e, dst))
            self.assertTrue(near_row(e["start"], events[e["from"]]["box"]), (e, events[e["from"]]))
            self.assertTrue(near_row(e["end"], events[e["to"]]["box"]), (e, events[e["to"]]))

    def test_html_and_svg_drawn(self):
        for name in CYCLES:
            for fmt in ("html", "svg"):
                with self.subTest(trace=name, format=fmt):
                    p = explain(name, "--format=" + fmt)
                    self.assertEqual(p.returncode, 1, p.stderr)
                    self.check(name, layout(p.stdout, fmt))

    def test_probe_sees_a_wrong_picture(self):
        # the checks decide: an edge drawn to the wrong event's row is caught
        p = explain("rho2", "--format=html")
        lay = layout(p.stdout, "html")
        lay["edges"][0]["end"][1] += 60
        with self.assertRaises(AssertionError):
            self.check("rho2", lay)


if __name__ == "__main__":
    unittest.main()
