// Charts of the swarmwage dashboard: inline SVG built through the DOM (no
// innerHTML, no inline styles, so the strict Content-Security-Policy holds).
// Colours come from the stylesheet's classes.
(function () {
  'use strict';
  const NS = 'http://www.w3.org/2000/svg';

  function el(tag, attrs, text) {
    const e = document.createElementNS(NS, tag);
    // Labels can be peers' text (capability IDs): shown through app.js's safe.
    const safe = window.swarmwageSafe || String;
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, safe(v));
    if (text !== undefined) e.textContent = safe(text);
    return e;
  }

  // niceMax rounds a maximum up to 1, 2 or 5 times a power of ten, so the
  // axis gets round ticks.
  function niceMax(v) {
    if (!(v > 0)) return 1;
    const p = Math.pow(10, Math.floor(Math.log10(v)));
    for (const m of [1, 2, 5, 10]) if (v <= m * p) return m * p;
    return 10 * p;
  }

  function fmt(v) {
    if (v === 0) return '0';
    if (Math.abs(v) >= 100) return v.toFixed(0);
    if (Math.abs(v) >= 1) return String(Math.round(v * 100) / 100);
    return String(Math.round(v * 1e6) / 1e6);
  }

  // groupedBars draws one pair of bars (earned, spent) per day.
  // days: [{day: 'YYYY-MM-DD', earned: '0.1', spent: '0'}]
  function groupedBars(days, opts) {
    const W = 720, H = 260, L = 54, R = 12, T = 16, B = 38;
    const svg = el('svg', { viewBox: `0 0 ${W} ${H}`, class: 'chart', role: 'img', 'aria-label': opts.label });
    const pw = W - L - R, ph = H - T - B;
    const vals = days.map(d => [parseFloat(d.earned) || 0, parseFloat(d.spent) || 0]);
    const top = niceMax(Math.max(0, ...vals.flat()));
    const y = v => T + ph - (v / top) * ph;
    for (let i = 0; i <= 4; i++) {
      const v = (top * i) / 4;
      svg.appendChild(el('line', { x1: L, x2: W - R, y1: y(v), y2: y(v), class: 'grid' }));
      svg.appendChild(el('text', { x: L - 6, y: y(v) + 4, 'text-anchor': 'end' }, fmt(v)));
    }
    svg.appendChild(el('line', { x1: L, x2: W - R, y1: y(0), y2: y(0), class: 'axis' }));
    const slot = pw / Math.max(1, days.length);
    const bw = Math.max(2, Math.min(18, slot * 0.36));
    const every = Math.ceil(days.length / 14);
    days.forEach((d, i) => {
      const cx = L + slot * i + slot / 2;
      [['earned', vals[i][0], -1], ['spent', vals[i][1], 0]].forEach(([cls, v, off]) => {
        if (v <= 0) return;
        const h = Math.max(1, (v / top) * ph);
        const r = el('rect', { x: cx + off * bw, y: y(0) - h, width: bw, height: h, class: cls, 'data-day': d.day, 'data-kind': cls });
        r.appendChild(el('title', {}, `${d.day} ${cls} ${d[cls]}`));
        svg.appendChild(r);
      });
      if (i % every === 0) svg.appendChild(el('text', { x: cx, y: H - B + 16, 'text-anchor': 'middle' }, d.day.slice(5)));
    });
    if (vals.every(([e, s]) => e === 0 && s === 0)) {
      svg.appendChild(el('text', { x: L + pw / 2, y: T + ph / 2, 'text-anchor': 'middle', class: 'empty' }, opts.empty));
    }
    svg.appendChild(el('text', { x: L, y: H - 4 }, opts.unit));
    return svg;
  }

  // horizontalBars draws, per capability, a bar of what was earned and one
  // of what was spent. rows: [{capability, earned, spent}]
  function horizontalBars(rows, opts) {
    const W = 720, L = 230, R = 70, T = 8, rowH = 34, bh = 11;
    const H = T * 2 + Math.max(1, rows.length) * rowH;
    const svg = el('svg', { viewBox: `0 0 ${W} ${H}`, class: 'chart', role: 'img', 'aria-label': opts.label });
    const vals = rows.map(r => [parseFloat(r.earned) || 0, parseFloat(r.spent) || 0]);
    const top = niceMax(Math.max(0, ...vals.flat()));
    const pw = W - L - R;
    if (rows.length === 0) {
      svg.appendChild(el('text', { x: W / 2, y: T + rowH / 2 + 4, 'text-anchor': 'middle', class: 'empty' }, opts.empty));
      return svg;
    }
    rows.forEach((r, i) => {
      const y0 = T + i * rowH;
      const name = r.capability.length > 34 ? r.capability.slice(0, 33) + '\u2026' : r.capability;
      const t = el('text', { x: L - 8, y: y0 + rowH / 2 + 4, 'text-anchor': 'end' }, name);
      t.appendChild(el('title', {}, r.capability));
      svg.appendChild(t);
      [['earned', vals[i][0], 0], ['spent', vals[i][1], 1]].forEach(([cls, v, k]) => {
        const yy = y0 + 5 + k * (bh + 2);
        const w = v > 0 ? Math.max(1, (v / top) * pw) : 0;
        if (w > 0) svg.appendChild(el('rect', { x: L, y: yy, width: w, height: bh, class: cls, 'data-capability': r.capability, 'data-kind': cls }));
        if (v > 0) svg.appendChild(el('text', { x: L + w + 5, y: yy + bh - 2, class: 'value' }, r[cls]));
      });
    });
    svg.appendChild(el('line', { x1: L, x2: L, y1: T, y2: H - T, class: 'axis' }));
    return svg;
  }

  window.swarmwageCharts = { groupedBars, horizontalBars };
})();
