// backfill report: charts (Apache ECharts, embedded) and the Gantt chart
// (our own canvas raster). The data is the JSON in #report-data, built by
// package report (Go); see docs/report.md.
(function () {
  'use strict';
  var t0 = performance.now();
  var D = JSON.parse(document.getElementById('report-data').textContent);
  // timings (ms): page load up to this script, JSON parse, then each part
  var state = { ready: false, firstRenderMs: null, charts: 0, errors: [], timings: { loaded: t0, parse: performance.now() - t0 } };
  window.backfillReport = state;

  // ---------- formatting ----------
  function pad2(x) { return (x < 10 ? '0' : '') + x; }
  // dur formats seconds as "45 s", "12m 30s", "3h 05m", "2d 04h".
  function dur(s) {
    s = Math.round(s);
    var neg = s < 0 ? '-' : '';
    s = Math.abs(s);
    if (s < 60) return neg + s + ' s';
    if (s < 3600) return neg + Math.floor(s / 60) + 'm ' + pad2(s % 60) + 's';
    if (s < 86400) return neg + Math.floor(s / 3600) + 'h ' + pad2(Math.floor(s / 60) % 60) + 'm';
    return neg + Math.floor(s / 86400) + 'd ' + pad2(Math.floor(s / 3600) % 24) + 'h';
  }
  // clock formats a time relative to the first submission as "d12 06:30".
  function clock(t, withSec) {
    t = Math.round(t);
    var d = Math.floor(t / 86400), r = t - d * 86400;
    var s = 'd' + d + ' ' + pad2(Math.floor(r / 3600)) + ':' + pad2(Math.floor(r / 60) % 60);
    if (withSec) s += ':' + pad2(r % 60);
    return s;
  }
  function num(x, digits) {
    return x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
  }
  function esc(s) {
    return String(s).replace(/[&<>"]/g, function (c) { return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]; });
  }

  // ---------- colours ----------
  // A categorical palette (20 colours) and sequential ramps.
  var CAT = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#bab0ac',
    '#1f77b4', '#aec7e8', '#ffbb78', '#98df8a', '#ff9896', '#c5b0d5', '#c49c94', '#f7b6d2', '#dbdb8d', '#9edae5'];
  var VIRIDIS = ['#440154', '#482878', '#3e4989', '#31688e', '#26828e', '#1f9e89', '#35b779', '#6ece58', '#b5de2b', '#fde725'];
  var WAIT = ['#1a9850', '#66bd63', '#a6d96a', '#d9ef8b', '#fee08b', '#fdae61', '#f46d43', '#d73027'];
  var WAIT_BOUNDS = [0, 60, 600, 3600, 4 * 3600, 12 * 3600, 86400]; // upper bounds of all but the last bin
  var WAIT_LABELS = ['0', '≤ 1 min', '≤ 10 min', '≤ 1 h', '≤ 4 h', '≤ 12 h', '≤ 1 day', '> 1 day'];

  function hex(c) { return [parseInt(c.slice(1, 3), 16), parseInt(c.slice(3, 5), 16), parseInt(c.slice(5, 7), 16)]; }
  // rgba packs a colour for a little-endian Uint32 view of ImageData.
  function packed(rgb, f) {
    f = f || 1;
    return (255 << 24 | Math.round(rgb[2] * f) << 16 | Math.round(rgb[1] * f) << 8 | Math.round(rgb[0] * f)) >>> 0;
  }
  function ramp(stops, x) { // x in [0,1]
    var p = Math.max(0, Math.min(1, x)) * (stops.length - 1), i = Math.min(stops.length - 2, Math.floor(p)), f = p - i;
    var a = hex(stops[i]), b = hex(stops[i + 1]);
    return [a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f, a[2] + (b[2] - a[2]) * f];
  }
  function userColour(u) {
    if (u < 0) return [150, 150, 150];
    var h = Math.imul(u + 1, 2654435761) >>> 0;
    return hex(CAT[h % CAT.length]);
  }
  function waitBin(w) {
    for (var i = 0; i < WAIT_BOUNDS.length; i++) if (w <= WAIT_BOUNDS[i]) return i;
    return WAIT_BOUNDS.length;
  }

  // ---------- ECharts ----------
  var charts = [];
  function chart(id, option) {
    var el = document.getElementById(id);
    if (!el) return null;
    var c = echarts.init(el, null, { renderer: 'canvas' });
    option.animation = false;
    option.color = option.color || CAT;
    c.setOption(option);
    charts.push(c);
    state.charts++;
    return c;
  }
  window.addEventListener('resize', function () { charts.forEach(function (c) { c.resize(); }); });
  var grid = { left: 64, right: 20, top: 36, bottom: 40, containLabel: false };

  function colIndex(key) {
    for (var i = 0; i < D.summary.columns.length; i++) if (D.summary.columns[i].key === key) return i;
    return -1;
  }
  var labels = D.runs.map(function (r) { return r.label; });

  function compareCharts() {
    [['mean_wait', 'chart-mean-wait', 'Mean wait (s)'], ['mean_bsld', 'chart-mean-bsld', 'Mean bounded slowdown'],
      ['utilization', 'chart-util-bar', 'Utilization (%)']].forEach(function (m) {
      var ci = colIndex(m[0]);
      var best = D.summary.best[ci] || [];
      chart(m[1], {
        title: { text: m[2], left: 'center', textStyle: { fontSize: 13 } },
        tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' } },
        grid: { left: 64, right: 16, top: 36, bottom: labels.length > 4 ? 90 : 40 },
        xAxis: { type: 'category', data: labels, axisLabel: { interval: 0, rotate: labels.length > 4 ? 30 : 0 } },
        yAxis: { type: 'value', max: m[0] === 'utilization' ? 100 : null },
        series: [{
          type: 'bar', data: D.summary.rows.map(function (row, i) {
            return { value: row[ci], itemStyle: { color: best.indexOf(i) >= 0 ? '#1a7f37' : '#4e79a7' } };
          }), label: { show: labels.length <= 8, position: 'top', formatter: function (p) { return num(p.value, D.summary.columns[ci].digits); } }
        }]
      });
    });
  }

  // error bars as a custom series: a vertical segment with caps at mean ± ci95
  function errorBars(name, pts, colour) {
    return {
      type: 'custom', name: name, z: 3, silent: true,
      data: pts.filter(function (p) { return p[2] > 0; }).map(function (p) { return [p[0], p[1] - p[2], p[1] + p[2]]; }),
      renderItem: function (params, api) {
        var lo = api.coord([api.value(0), api.value(1)]), hi = api.coord([api.value(0), api.value(2)]), w = 4;
        var st = { stroke: colour, lineWidth: 1.2 };
        return { type: 'group', children: [
          { type: 'line', shape: { x1: lo[0], y1: lo[1], x2: hi[0], y2: hi[1] }, style: st },
          { type: 'line', shape: { x1: lo[0] - w, y1: lo[1], x2: lo[0] + w, y2: lo[1] }, style: st },
          { type: 'line', shape: { x1: hi[0] - w, y1: hi[1], x2: hi[0] + w, y2: hi[1] }, style: st }] };
      }
    };
  }

  function paramCharts() {
    D.params.forEach(function (p, k) {
      [['mean_wait', 'Mean wait (s)'], ['mean_bsld', 'Mean bounded slowdown'], ['utilization', 'Utilization (%)']].forEach(function (m) {
        var series = [];
        p.lines.forEach(function (l, i) {
          var colour = CAT[i % CAT.length];
          var pts = l.x.map(function (x, j) { return [x, l[m[0]][j].mean, l[m[0]][j].ci95]; });
          series.push({ type: 'line', name: l.name, data: pts.map(function (q) { return [q[0], q[1]]; }), symbolSize: 6, itemStyle: { color: colour } });
          series.push(errorBars(l.name, pts, colour));
        });
        chart('chart-param-' + k + '-' + m[0], {
          title: { text: m[1] + ' by ' + p.x, left: 'center', textStyle: { fontSize: 13 } },
          tooltip: { trigger: 'axis' }, legend: { bottom: 0, type: 'scroll' },
          grid: { left: 64, right: 20, top: 36, bottom: 56 },
          xAxis: { type: 'value', name: p.x, nameLocation: 'middle', nameGap: 24, scale: true },
          yAxis: { type: 'value', scale: m[0] === 'utilization' }, series: series
        });
      });
    });
  }

  function cdfChart() {
    if (!D.cdf.length) return;
    chart('chart-cdf', {
      title: { text: 'Wait time CDF (waits under 1 s drawn at 1 s)', left: 'center', textStyle: { fontSize: 13 } },
      tooltip: { trigger: 'axis', valueFormatter: function (v) { return (100 * v).toFixed(1) + ' %'; } },
      legend: { bottom: 0, type: 'scroll' },
      grid: { left: 64, right: 24, top: 36, bottom: 60 },
      xAxis: { type: 'log', name: 'wait (s)', nameLocation: 'middle', nameGap: 26, min: 1, axisLabel: { formatter: function (v) { return dur(v); } } },
      yAxis: { type: 'value', min: 0, max: 1, name: 'fraction of jobs' },
      series: D.cdf.map(function (c) {
        return { type: 'line', name: c.run, showSymbol: false, step: 'end', data: c.points.map(function (p) { return [Math.max(1, p[0]), p[1]]; }) };
      })
    });
  }

  function timeCharts() {
    var T = D.time;
    if (!T || !T.runs.length) return;
    var mk = function (field, scale) {
      return T.runs.map(function (r) {
        return { type: 'line', name: r.run, showSymbol: false, sampling: 'lttb', lineStyle: { width: 1 },
          data: r[field].map(function (v, i) { return [(i + 0.5) * T.step / 86400, v * scale]; }) };
      });
    };
    var common = function (title, yname, series, ymax) {
      return {
        title: { text: title, left: 'center', textStyle: { fontSize: 13 } },
        tooltip: { trigger: 'axis', valueFormatter: function (v) { return v.toFixed(2); } },
        legend: { top: 22, type: 'scroll' },
        grid: { left: 64, right: 24, top: 56, bottom: 70 },
        xAxis: { type: 'value', name: 'days since first submission', nameLocation: 'middle', nameGap: 24, min: 0, max: T.runs[0].util.length * T.step / 86400,
          axisLabel: { formatter: function (v) { return String(+v.toFixed(1)); } } },
        yAxis: { type: 'value', name: yname, min: 0, max: ymax },
        dataZoom: [{ type: 'inside', xAxisIndex: 0, filterMode: 'none' }, { type: 'slider', xAxisIndex: 0, height: 18, bottom: 8, filterMode: 'none' }],
        series: series
      };
    };
    var u = chart('chart-util-time', common('Utilization over time (mean per bin of ' + dur(T.step) + ')', 'busy %', mk('util', 100), 100));
    var q = chart('chart-queue-time', common('Queue length over time (mean waiting jobs per bin)', 'jobs', mk('queue', 1)));
    if (u && q) echarts.connect([u, q]);
    // a click on either curve shows that moment in the Gantt chart (a one-day
    // window, or the current window when already zoomed in)
    [u, q].forEach(function (c) {
      if (!c) return;
      c.getZr().on('click', function (e) {
        if (!G.g || !c.containPixel('grid', [e.offsetX, e.offsetY])) return;
        var day = c.convertFromPixel({ gridIndex: 0 }, [e.offsetX, e.offsetY])[0];
        var t = T.start + day * 86400 - G.g.t0, v = G.view;
        var span = v.t1 - v.t0 >= G.g.span ? 86400 : v.t1 - v.t0;
        G.view = clampView({ t0: t - span / 2, t1: t + span / 2, p0: v.p0, p1: v.p1 });
        draw();
        document.getElementById('gantt').scrollIntoView();
      });
    });
  }

  function classCharts() {
    D.classes.forEach(function (c, k) {
      [['mean_wait', 'Mean wait (s)'], ['mean_bsld', 'Mean bounded slowdown']].forEach(function (m) {
        chart('chart-class-' + k + '-' + m[0], {
          title: { text: m[1] + ' by ' + c.rule.split(':')[0], left: 'center', textStyle: { fontSize: 13 } },
          tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' } }, legend: { bottom: 0, type: 'scroll' },
          grid: { left: 64, right: 16, top: 36, bottom: 56 },
          xAxis: { type: 'category', data: c.labels }, yAxis: { type: 'value' },
          series: c.runs.map(function (r, i) {
            return { type: 'bar', name: r, data: c.stats[i].map(function (s) { return s[m[0]]; }) };
          })
        });
      });
    });
  }

  // ---------- Gantt chart ----------
  var G = {
    canvas: document.getElementById('gantt-canvas'), tip: document.getElementById('gantt-tip'),
    overlay: document.getElementById('gantt-overlay'), highlighted: -1,
    g: null, idx: null, view: null, colour: 'user', marks: true,
    drawn: 0, frames: 0, lastDrawMs: 0, img: null, stamp: null, frame: 0
  };
  var M = { l: 64, r: 12, t: 8, b: 34 }; // plot margins, CSS pixels
  var MIN_SPAN = 60;

  // index buckets the rectangles by time so that a view visits only the
  // rectangles that overlap it: rectangle r is listed in every bucket its
  // job's [start, end) overlaps (CSR layout). Buckets are at least as wide
  // as the mean job, so a job is listed in about two buckets on average and
  // the index stays O(rectangles).
  function buildIndex(g) {
    var R = g.rects.job.length, st = g.jobs.start, en = g.jobs.end, rj = g.rects.job;
    var n = st.length, total = 0, r, j, b;
    for (j = 0; j < n; j++) total += en[j] - st[j];
    var nb = Math.max(1, Math.min(8192, Math.ceil(R / 4)));
    var bw = Math.max(1, Math.ceil((g.span + 1) / nb), Math.ceil(total / Math.max(1, n)));
    nb = Math.ceil((g.span + 1) / bw);
    var cnt = new Int32Array(nb + 1);
    for (r = 0; r < R; r++) {
      j = rj[r];
      var b1 = Math.min(nb - 1, Math.floor((en[j] - 1) / bw));
      for (b = Math.floor(st[j] / bw); b <= b1; b++) cnt[b + 1]++;
    }
    for (b = 0; b < nb; b++) cnt[b + 1] += cnt[b];
    var fill = Int32Array.from(cnt.subarray(0, nb)), list = new Int32Array(cnt[nb]);
    for (r = 0; r < R; r++) {
      j = rj[r];
      var e1 = Math.min(nb - 1, Math.floor((en[j] - 1) / bw));
      for (b = Math.floor(st[j] / bw); b <= e1; b++) list[fill[b]++] = r;
    }
    return { nb: nb, bw: bw, off: cnt, list: list, all: Int32Array.from({ length: R }, function (_, i) { return i; }) };
  }

  function computeColours() {
    var g = G.g, n = g.jobs.id.length, col = new Uint32Array(n), dark = new Uint32Array(n), i, rgb;
    var maxLog = Math.max(1, Math.ceil(Math.log2(Math.max(2, g.procs))));
    for (i = 0; i < n; i++) {
      switch (G.colour) {
        case 'size': rgb = ramp(VIRIDIS, Math.log2(g.jobs.procs[i]) / maxLog); break;
        case 'wait': rgb = hex(WAIT[waitBin(g.jobs.start[i] - g.jobs.submit[i])]); break;
        case 'killed': rgb = g.jobs.killed[i] ? [215, 48, 39] : [120, 150, 190]; break;
        default: rgb = userColour(g.jobs.user[i]);
      }
      col[i] = packed(rgb); dark[i] = packed(rgb, 0.6);
    }
    G.col = col; G.dark = dark;
    legend(maxLog);
  }

  function legend(maxLog) {
    var el = document.getElementById('gantt-legend'), h = [];
    var sw = function (c, label) { return '<span><span class="sw" style="background:' + c + '"></span>' + esc(label) + '</span>'; };
    if (G.colour === 'size') {
      for (var k = 0; k <= maxLog; k++) {
        var c = ramp(VIRIDIS, k / maxLog);
        h.push(sw('rgb(' + c.map(Math.round).join(',') + ')', (k === 0 ? '' : '≤ ') + Math.pow(2, k) + ' procs'));
      }
    } else if (G.colour === 'wait') {
      WAIT.forEach(function (c, i) { h.push(sw(c, 'wait ' + WAIT_LABELS[i])); });
    } else if (G.colour === 'killed') {
      h.push(sw('#7896be', 'completed'), sw('#d73027', 'killed at its estimate'));
    } else {
      // the ten users with the most processor-seconds in this schedule
      var g = G.g, area = {};
      for (var i = 0; i < g.jobs.id.length; i++) {
        var u = g.jobs.user[i];
        area[u] = (area[u] || 0) + g.jobs.procs[i] * (g.jobs.end[i] - g.jobs.start[i]);
      }
      Object.keys(area).map(Number).sort(function (a, b) { return area[b] - area[a] || a - b; }).slice(0, 10).forEach(function (u) {
        h.push(sw('rgb(' + userColour(u).join(',') + ')', u < 0 ? 'user unknown' : 'user ' + u));
      });
      h.push('<span class="note">(top users by processor-time; colours repeat every 20 users)</span>');
    }
    if (G.g.bounds > 0) h.push('<span><span class="sw" style="background:#111"></span>reservation: promised start bound (line from the actual start)</span>');
    el.innerHTML = h.join('');
  }

  function select(i) {
    G.g = D.gantt[i];
    G.sel = i;
    G.idx = buildIndex(G.g);
    G.stamp = new Uint32Array(G.g.jobs.id.length);
    G.frame = 0;
    var mk = document.getElementById('gantt-marks');
    mk.disabled = G.g.bounds === 0;
    document.getElementById('gantt-marks-note').textContent = G.g.bounds === 0 ? '(this policy promises no start bound)' : '(' + G.g.bounds.toLocaleString('en-US') + ' jobs with a bound)';
    computeColours();
    reset();
  }

  function fullView() { return { t0: 0, t1: Math.max(G.g.span, MIN_SPAN), p0: 0, p1: G.g.rows }; }
  function reset() { G.view = fullView(); draw(); }

  function clampView(v) {
    var f = fullView(), span = Math.min(Math.max(v.t1 - v.t0, MIN_SPAN), f.t1 - f.t0);
    var t0 = Math.min(Math.max(v.t0, f.t0), f.t1 - span);
    var ps = Math.min(Math.max(v.p1 - v.p0, Math.min(1, f.p1)), f.p1);
    var p0 = Math.min(Math.max(v.p0, 0), f.p1 - ps);
    return { t0: t0, t1: t0 + span, p0: p0, p1: p0 + ps };
  }

  function size() {
    var c = G.canvas, dpr = window.devicePixelRatio || 1;
    var w = Math.max(200, c.clientWidth), h = Math.max(120, c.clientHeight);
    if (c.width !== Math.round(w * dpr) || c.height !== Math.round(h * dpr)) {
      c.width = Math.round(w * dpr); c.height = Math.round(h * dpr); G.img = null;
    }
    return { w: w, h: h, dpr: dpr, pw: Math.round((w - M.l - M.r) * dpr), ph: Math.round((h - M.t - M.b) * dpr) };
  }

  function niceStep(raw, steps) {
    for (var i = 0; i < steps.length; i++) if (steps[i] >= raw) return steps[i];
    return steps[steps.length - 1] * Math.ceil(raw / steps[steps.length - 1]);
  }
  var TIME_STEPS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400, 172800, 604800, 1209600, 2592000, 7776000];

  function draw() {
    var t = performance.now();
    G.tip.style.display = 'none'; // the view moved: the hovered job may be elsewhere (the wheel handler re-shows it)
    if (G.highlighted >= 0) highlight(-1);
    var g = G.g, v = G.view, z = size(), W = z.pw, H = z.ph;
    var ctx = G.canvas.getContext('2d');
    if (!G.img || G.img.width !== W || G.img.height !== H) G.img = ctx.createImageData(W, H);
    var buf = new Uint32Array(G.img.data.buffer);
    buf.fill(0xfff8f6f5 >>> 0); // background: rgb(245,246,248)
    var sx = W / (v.t1 - v.t0), sy = H / (v.p1 - v.p0);
    var ix = G.idx, bw = ix.bw, off = ix.off, list = ix.list;
    var st = g.jobs.start, en = g.jobs.end, rj = g.rects.job, rlo = g.rects.lo, rn = g.rects.n;
    var col = G.col, dark = G.dark, stamp = G.stamp;
    var frame = ++G.frame, drawn = 0, marks = [];
    var wantMarks = G.marks && g.bounds > 0;
    var b0 = Math.max(0, Math.floor(v.t0 / bw)), b1 = Math.min(ix.nb - 1, Math.floor(v.t1 / bw));
    var linear = off[b1 + 1] - off[b0] > list.length / 2; // a wide view: scan every rectangle once
    if (linear) { b0 = 0; b1 = 0; list = ix.all; }
    for (var b = b0; b <= b1; b++) {
      for (var k = linear ? 0 : off[b], kend = linear ? list.length : off[b + 1]; k < kend; k++) {
        var r = list[k], j = rj[r], s = st[j], e = en[j];
        if (!linear && Math.max(Math.floor(s / bw), b0) !== b) continue; // listed in an earlier visible bucket
        if (e <= v.t0 || s >= v.t1) continue;
        var lo = rlo[r], hi = lo + rn[r];
        if (hi <= v.p0 || lo >= v.p1) continue;
        var x0 = Math.floor((s - v.t0) * sx), x1 = Math.floor((e - v.t0) * sx);
        if (x1 <= x0) x1 = x0 + 1;
        var y0 = Math.floor(H - (hi - v.p0) * sy), y1 = Math.floor(H - (lo - v.p0) * sy);
        if (y1 <= y0) y1 = y0 + 1;
        if (x0 < 0) x0 = 0; if (x1 > W) x1 = W; if (y0 < 0) y0 = 0; if (y1 > H) y1 = H;
        if (x1 <= x0 || y1 <= y0) continue;
        var c = col[j], y, kend2;
        if (x1 - x0 >= 6 && y1 - y0 >= 6) {
          var d = dark[j];
          buf.fill(d, y0 * W + x0, y0 * W + x1);
          buf.fill(d, (y1 - 1) * W + x0, (y1 - 1) * W + x1);
          for (y = y0 + 1; y < y1 - 1; y++) {
            var o = y * W;
            buf[o + x0] = d; buf[o + x1 - 1] = d;
            buf.fill(c, o + x0 + 1, o + x1 - 1);
          }
        } else if (x1 - x0 === 1) { // the common case when zoomed out: a one-pixel column
          for (y = y0 * W + x0, kend2 = y1 * W + x0; y < kend2; y += W) buf[y] = c;
        } else if (x1 - x0 < 8) {
          for (y = y0; y < y1; y++) for (var x = y * W + x0, xe = y * W + x1; x < xe; x++) buf[x] = c;
        } else {
          for (y = y0; y < y1; y++) buf.fill(c, y * W + x0, y * W + x1);
        }
        if (stamp[j] !== frame) {
          stamp[j] = frame; drawn++;
          if (wantMarks && g.jobs.bound[j] >= 0 && marks.length <= 20000) marks.push(j, (y0 + y1) / 2, y1 - y0);
        }
      }
    }
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, G.canvas.width, G.canvas.height);
    ctx.putImageData(G.img, Math.round(M.l * z.dpr), Math.round(M.t * z.dpr));
    ctx.setTransform(z.dpr, 0, 0, z.dpr, 0, 0);
    var pw = W / z.dpr, ph = H / z.dpr;
    // reservation markers: a tick at the promised bound, a line from the actual start
    G.marksShown = 0;
    if (wantMarks && marks.length <= 20000 * 3) {
      ctx.save();
      ctx.beginPath(); ctx.rect(M.l, M.t, pw, ph); ctx.clip();
      ctx.strokeStyle = '#111'; ctx.lineWidth = 1;
      ctx.beginPath();
      for (var m = 0; m < marks.length; m += 3) {
        var jj = marks[m], ym = M.t + marks[m + 1] / z.dpr, hh = Math.max(3, Math.min(10, marks[m + 2] / z.dpr / 2 + 2));
        var xs = M.l + (st[jj] - v.t0) * sx / z.dpr, xb = M.l + (g.jobs.bound[jj] - v.t0) * sx / z.dpr;
        ctx.moveTo(xs, ym); ctx.lineTo(xb, ym);
        ctx.moveTo(xb, ym - hh); ctx.lineTo(xb, ym + hh);
        G.marksShown++;
      }
      ctx.stroke();
      ctx.restore();
    }
    axes(ctx, v, pw, ph);
    G.drawn = drawn; G.frames++;
    G.lastDrawMs = performance.now() - t;
    var status = drawn.toLocaleString('en-US') + ' jobs drawn · ' + clock(v.t0) + ' – ' + clock(v.t1) + ' (' + dur(v.t1 - v.t0) + ') · processors ' +
      Math.floor(v.p0) + '–' + Math.ceil(v.p1 - 1) + ' · ' + G.lastDrawMs.toFixed(1) + ' ms';
    if (wantMarks && marks.length > 20000 * 3) status += ' · zoom in to see reservation markers';
    document.getElementById('gantt-status').textContent = status;
  }

  function axes(ctx, v, pw, ph) {
    ctx.fillStyle = '#1f2328'; ctx.strokeStyle = '#8c959f'; ctx.lineWidth = 1;
    ctx.font = '11px system-ui, sans-serif';
    ctx.strokeRect(M.l - 0.5, M.t - 0.5, pw + 1, ph + 1);
    // time axis
    var step = niceStep((v.t1 - v.t0) / Math.max(2, pw / 110), TIME_STEPS);
    ctx.textAlign = 'center'; ctx.textBaseline = 'top';
    ctx.beginPath();
    for (var t = Math.ceil(v.t0 / step) * step; t <= v.t1; t += step) {
      var x = M.l + (t - v.t0) / (v.t1 - v.t0) * pw;
      ctx.moveTo(x, M.t + ph); ctx.lineTo(x, M.t + ph + 4);
      ctx.fillText(clock(t, step < 60), x, M.t + ph + 6);
    }
    ctx.stroke();
    ctx.fillText('time since first submission (d = day)', M.l + pw / 2, M.t + ph + 20);
    // processor axis (0 at the bottom)
    var ps = niceStep((v.p1 - v.p0) / Math.max(2, ph / 40), [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 2500, 5000, 10000, 20000, 25000, 50000, 100000]);
    ctx.textAlign = 'right'; ctx.textBaseline = 'middle';
    ctx.beginPath();
    for (var p = Math.ceil(v.p0 / ps) * ps; p <= v.p1; p += ps) {
      var y = M.t + ph - (p - v.p0) / (v.p1 - v.p0) * ph;
      ctx.moveTo(M.l - 4, y); ctx.lineTo(M.l, y);
      ctx.fillText(String(p), M.l - 6, y);
    }
    ctx.stroke();
    ctx.save(); ctx.translate(12, M.t + ph / 2); ctx.rotate(-Math.PI / 2); ctx.textAlign = 'center';
    ctx.fillText('processor', 0, 0); ctx.restore();
    if (G.g.rows > G.g.procs) { // rows beyond the machine (foreign schedules holding more than P)
      var yp = M.t + ph - (G.g.procs - v.p0) / (v.p1 - v.p0) * ph;
      if (yp > M.t && yp < M.t + ph) { ctx.strokeStyle = '#d73027'; ctx.beginPath(); ctx.moveTo(M.l, yp); ctx.lineTo(M.l + pw, yp); ctx.stroke(); }
    }
  }

  // zoom multiplies the visible time span by f around time tc (default the middle)
  function zoom(f, tc, axis) {
    var v = G.view;
    if (axis === 'p') {
      var pc = tc === undefined ? (v.p0 + v.p1) / 2 : tc;
      G.view = clampView({ t0: v.t0, t1: v.t1, p0: pc - (pc - v.p0) * f, p1: pc + (v.p1 - pc) * f });
    } else {
      if (tc === undefined) tc = (v.t0 + v.t1) / 2;
      G.view = clampView({ t0: tc - (tc - v.t0) * f, t1: tc + (v.t1 - tc) * f, p0: v.p0, p1: v.p1 });
    }
    draw();
  }

  function at(ev) { // mouse position → plot coordinates
    var rect = G.canvas.getBoundingClientRect(), z = size();
    var x = ev.clientX - rect.left - M.l, y = ev.clientY - rect.top - M.t;
    var pw = z.pw / z.dpr, ph = z.ph / z.dpr, v = G.view;
    return { inside: x >= 0 && y >= 0 && x < pw && y < ph, x: x, y: y, pw: pw, ph: ph,
      t: v.t0 + x / pw * (v.t1 - v.t0), p: v.p0 + (ph - y) / ph * (v.p1 - v.p0) };
  }

  function hit(t, p) {
    var g = G.g, ix = G.idx, b = Math.floor(t / ix.bw);
    if (b < 0 || b >= ix.nb) return -1;
    for (var k = ix.off[b]; k < ix.off[b + 1]; k++) {
      var r = ix.list[k], j = g.rects.job[r];
      if (g.jobs.start[j] <= t && t < g.jobs.end[j] && g.rects.lo[r] <= p && p < g.rects.lo[r] + g.rects.n[r]) return r;
    }
    return -1;
  }

  // highlight outlines the hovered job's rectangles on the overlay canvas
  // and draws its wait: a dashed line from its submission to its start on
  // each of its rectangles. j < 0 clears.
  function highlight(j, k0, k1) {
    var o = G.overlay, z = size();
    if (o.width !== G.canvas.width || o.height !== G.canvas.height) { o.width = G.canvas.width; o.height = G.canvas.height; }
    var ctx = o.getContext('2d');
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, o.width, o.height);
    G.highlighted = j;
    if (j < 0) return;
    var g = G.g, v = G.view, pw = z.pw / z.dpr, ph = z.ph / z.dpr;
    ctx.setTransform(z.dpr, 0, 0, z.dpr, 0, 0);
    ctx.save(); ctx.beginPath(); ctx.rect(M.l, M.t, pw, ph); ctx.clip();
    var X = function (t) { return M.l + (t - v.t0) / (v.t1 - v.t0) * pw; };
    var Y = function (p) { return M.t + ph - (p - v.p0) / (v.p1 - v.p0) * ph; };
    for (var k = k0; k <= k1; k++) {
      var lo = g.rects.lo[k], hi = lo + g.rects.n[k];
      var x0 = X(g.jobs.start[j]), x1 = Math.max(X(g.jobs.end[j]), x0 + 1), y0 = Y(hi), y1 = Math.max(Y(lo), y0 + 1);
      ctx.fillStyle = 'rgba(255,255,255,0.25)'; ctx.fillRect(x0, y0, x1 - x0, y1 - y0);
      ctx.strokeStyle = '#000'; ctx.lineWidth = 2; ctx.setLineDash([]); ctx.strokeRect(x0, y0, x1 - x0, y1 - y0);
      var ym = (y0 + y1) / 2;
      ctx.lineWidth = 1.5; ctx.setLineDash([4, 3]); ctx.beginPath();
      ctx.moveTo(X(g.jobs.submit[j]), ym); ctx.lineTo(x0, ym); ctx.stroke();
    }
    ctx.setLineDash([]);
    ctx.restore();
  }

  function tooltip(ev) {
    var a = at(ev), tip = G.tip;
    if (!a.inside) { tip.style.display = 'none'; highlight(-1); return; }
    var r = hit(a.t, a.p);
    if (r < 0) { tip.style.display = 'none'; highlight(-1); return; }
    var g = G.g, j = g.rects.job[r], J = g.jobs, procs = [];
    // the job's rectangles are consecutive in rects
    var k, k0 = r, k1 = r;
    while (k0 > 0 && g.rects.job[k0 - 1] === j) k0--;
    while (k1 + 1 < g.rects.job.length && g.rects.job[k1 + 1] === j) k1++;
    for (k = k0; k <= k1 && procs.length < 4; k++) procs.push(g.rects.lo[k] + '–' + (g.rects.lo[k] + g.rects.n[k] - 1));
    if (k1 - k0 + 1 > 4) procs.push('… (' + (k1 - k0 + 1) + ' ranges)');
    var rows = [['job', J.id[j]], ['user', J.user[j] < 0 ? 'unknown' : J.user[j]], ['size', J.procs[j] + ' procs'],
      ['estimate', dur(J.est[j])], ['runtime', dur(J.runtime[j])], ['submit', clock(J.submit[j], true)],
      ['start', clock(J.start[j], true)], ['end', clock(J.end[j], true)], ['wait', dur(J.start[j] - J.submit[j])],
      ['killed', J.killed[j] ? 'yes, at its estimate' : 'no'], ['processors', procs.join(', ')]];
    if (J.bound[j] >= 0) rows.push(['promised start', clock(J.bound[j], true) + ' (' + dur(J.bound[j] - J.start[j]) + ' after the actual start)']);
    highlight(j, k0, k1);
    tip.innerHTML = '<table>' + rows.map(function (x) { return '<tr><td>' + esc(x[0]) + '</td><td>' + esc(x[1]) + '</td></tr>'; }).join('') + '</table>';
    tip.style.display = 'block';
    var left = a.x + M.l + 14, top = a.y + M.t + 14;
    if (left + tip.offsetWidth > G.canvas.clientWidth) left = a.x + M.l - tip.offsetWidth - 10;
    if (top + tip.offsetHeight > G.canvas.clientHeight) top = Math.max(0, a.y + M.t - tip.offsetHeight - 10);
    tip.style.left = left + 'px'; tip.style.top = top + 'px';
  }

  function ganttInit() {
    if (!D.gantt.length || !G.canvas) return;
    var sel = document.getElementById('gantt-run');
    D.gantt.forEach(function (g, i) {
      var o = document.createElement('option'); o.value = i; o.textContent = g.run; sel.appendChild(o);
    });
    sel.addEventListener('change', function () { select(+sel.value); });
    document.getElementById('gantt-colour').addEventListener('change', function (e) { G.colour = e.target.value; computeColours(); draw(); });
    document.getElementById('gantt-marks').addEventListener('change', function (e) { G.marks = e.target.checked; draw(); });
    document.getElementById('gantt-in').addEventListener('click', function () { zoom(0.5); });
    document.getElementById('gantt-out').addEventListener('click', function () { zoom(2); });
    document.getElementById('gantt-reset').addEventListener('click', reset);
    var c = G.canvas, drag = null;
    c.addEventListener('wheel', function (ev) {
      ev.preventDefault();
      var a = at(ev), f = ev.deltaY > 0 ? 1.25 : 0.8;
      if (ev.shiftKey) zoom(f, a.p, 'p'); else zoom(f, a.t);
      tooltip(ev);
    }, { passive: false });
    c.addEventListener('mousedown', function (ev) { drag = { x: ev.clientX, y: ev.clientY, v: G.view }; c.classList.add('dragging'); G.tip.style.display = 'none'; highlight(-1); });
    window.addEventListener('mouseup', function () { drag = null; c.classList.remove('dragging'); });
    c.addEventListener('mousemove', function (ev) {
      if (!drag) { tooltip(ev); return; }
      var a = at(ev), v = drag.v;
      var dt = (ev.clientX - drag.x) / a.pw * (v.t1 - v.t0), dp = (ev.clientY - drag.y) / a.ph * (v.p1 - v.p0);
      G.view = clampView({ t0: v.t0 - dt, t1: v.t1 - dt, p0: v.p0 + dp, p1: v.p1 + dp });
      draw();
    });
    c.addEventListener('mouseleave', function () { G.tip.style.display = 'none'; highlight(-1); });
    c.addEventListener('dblclick', reset);
    window.addEventListener('resize', draw);
    select(0);
  }

  // the test hook: the browser test reads and drives the Gantt through it
  window.backfillGantt = {
    get drawn() { return G.drawn; }, get frames() { return G.frames; }, get lastDrawMs() { return G.lastDrawMs; },
    get marks() { return G.marksShown; }, get highlighted() { return G.highlighted; },
    get view() { return G.view && { t0: G.view.t0, t1: G.view.t1, p0: G.view.p0, p1: G.view.p1 }; },
    get run() { return G.g && G.g.run; },
    zoom: function (f, tc) { zoom(f, tc); }, reset: function () { reset(); },
    setView: function (t0, t1) { G.view = clampView({ t0: t0, t1: t1, p0: G.view.p0, p1: G.view.p1 }); draw(); },
    select: function (i) { document.getElementById('gantt-run').value = i; select(i); },
    colour: function (m) { G.colour = m; document.getElementById('gantt-colour').value = m; computeColours(); draw(); }
  };

  [compareCharts, paramCharts, cdfChart, timeCharts, classCharts, ganttInit].forEach(function (f) {
    var t = performance.now();
    try { f(); } catch (e) { state.errors.push(String(e && e.stack || e)); console.error(e); }
    state.timings[f.name] = performance.now() - t;
  });
  state.firstRenderMs = performance.now();
  state.ready = true;
})();
