// layout_probe.js -- appended to an atomgrind-trace HTML picture by
// tests/test_explain_browser.py: what the browser drew (boxes in CSS pixels),
// written as JSON into <pre id="ag-layout"> for --dump-dom to print.
(function () {
  const r = e => { const b = e.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; };
  const out = {svg: r(document.querySelector('svg')), txns: {}, events: {}, edges: []};
  document.querySelectorAll('g.txn').forEach(g => {
    out.txns[g.dataset.name] = {thread: g.dataset.thread, box: r(g.querySelector('rect'))};
  });
  document.querySelectorAll('text.event').forEach(t => {
    out.events[t.dataset.index] = {txn: t.closest('g.txn').dataset.name, box: r(t), text: t.textContent};
  });
  document.querySelectorAll('line.edge').forEach(l => {
    const m = l.getScreenCTM();
    const p = (x, y) => { const q = new DOMPoint(x, y).matrixTransform(m); return [q.x, q.y]; };
    out.edges.push({src: l.dataset.src, dst: l.dataset.dst, from: +l.dataset.from, to: +l.dataset.to,
                    start: p(l.x1.baseVal.value, l.y1.baseVal.value),
                    end: p(l.x2.baseVal.value, l.y2.baseVal.value),
                    stroke: getComputedStyle(l).stroke, marker: l.getAttribute('marker-end')});
  });
  // an HTML page gets a <pre>, a bare SVG document an SVG <desc>
  const pre = document.body ? document.createElement('pre')
                            : document.createElementNS('http://www.w3.org/2000/svg', 'desc');
  pre.id = 'ag-layout';
  pre.textContent = JSON.stringify(out);
  (document.body || document.documentElement).appendChild(pre);
})();
