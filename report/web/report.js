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
  // userColour: the ten users of the legend (most processor-time in the
  // shown schedule, G.top) get the ten strong colours, one each; every
  // other user one of the ten light colours (by a hash: these repeat).
  function userColour(u) {
    if (u < 0) return [150, 150, 150];
    var t = G.top ? G.top[u] : undefined;
    if (t !== undefined) return hex(CAT[t]);
    var h = Math.imul(u + 1, 2654435761) >>> 0;
    return hex(CAT[10 + h % 10]);
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
  // one colour per policy everywhere (RunInfo.colour, the same as in
  // `backfill plot`); runs of one policy differ in line type
  var RUN = {};
  D.runs.forEach(function (r) { RUN[r.label] = r; });
  var DASHES = ['solid', 'dashed', 'dotted', [8, 3, 2, 3], [2, 2]];
  var RUN_POLICY_COLOUR = {};
  D.runs.forEach(function (r) { RUN_POLICY_COLOUR[r.policy] = r.colour; });
  function runColour(label) { return RUN[label] ? RUN[label].colour : '#4e79a7'; }
  function runDash(label) { return RUN[label] ? DASHES[RUN[label].dash % DASHES.length] : 'solid'; }
  // groups: runs of one workload and load (RunInfo.group); a sweep's
  // charts are small multiples, one per group, named within it by short
  // labels. VIS: the runs the run selector shows (every chart follows).
  var GROUPS = [];
  D.runs.forEach(function (r) {
    if (!GROUPS[r.group]) GROUPS[r.group] = { id: r.group, name: r.group_name, runs: [] };
    GROUPS[r.group].runs.push(r.label);
  });
  var MULTI = GROUPS.length > 1;
  var VIS = {};
  D.runs.forEach(function (r) { VIS[r.label] = true; });
  function shown(label) { return VIS[label] !== false; }
  function nameOf(label) { return MULTI && RUN[label] ? RUN[label].short : label; }
  // groupBlocks makes, in container id, one block per group (a heading when
  // there are several) holding a chart div per suffix; the first group's
  // charts keep the plain ids (base + suffix), the others get "-g".
  function groupBlocks(container, mk) {
    var el = document.getElementById(container);
    if (!el) return [];
    el.innerHTML = '';
    return GROUPS.map(function (g) {
      var div = document.createElement('div');
      if (MULTI) { var h = document.createElement('h3'); h.textContent = g.name; div.appendChild(h); }
      var inner = document.createElement('div');
      inner.innerHTML = mk(g.id === 0 ? '' : '-' + g.id);
      div.appendChild(inner);
      el.appendChild(div);
      return g;
    });
  }

  function compareCharts() {
    groupBlocks('compare-groups', function (sfx) {
      return '<div class="charts"><div class="chart" id="chart-mean-wait' + sfx + '"></div><div class="chart" id="chart-mean-bsld' + sfx +
        '"></div><div class="chart" id="chart-util-bar' + sfx + '"></div></div>';
    }).forEach(function (g) {
      var sfx = g.id === 0 ? '' : '-' + g.id;
      var idx = [];
      D.runs.forEach(function (r, i) { if (r.group === g.id && shown(r.label)) idx.push(i); });
      var names = idx.map(function (i) { return nameOf(D.runs[i].label); });
      var rot = names.length > 4 || names.some(function (n) { return n.length > 14; });
      [['mean_wait', 'chart-mean-wait', 'Mean wait'], ['mean_bsld', 'chart-mean-bsld', 'Mean bounded slowdown'],
        ['utilization', 'chart-util-bar', 'Utilization (%)']].forEach(function (m) {
        var ci = colIndex(m[0]);
        var best = D.summary.best[ci] || [];
        chart(m[1] + sfx, {
          title: { text: m[2] + (m[0] === 'mean_wait' ? ' (s)' : ''), left: 'center', textStyle: { fontSize: 13 } },
          grid: { left: 64, right: 16, top: 36, bottom: rot ? 100 : 40 },
          xAxis: { type: 'category', data: names, axisLabel: { interval: 0, rotate: rot ? 30 : 0, width: 110, overflow: 'truncate' } },
          yAxis: { type: 'value', max: m[0] === 'utilization' ? 100 : null },
          tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' }, valueFormatter: function (v) { return m[0] === 'mean_wait' ? num(v, 1) + ' s (' + dur(v) + ')' : m[0] === 'utilization' ? num(v, 2) + ' %' : num(v, 2); } },
          series: [{
            type: 'bar', data: idx.map(function (i) {
              var b = best.indexOf(i) >= 0;
              return { value: D.summary.rows[i][ci], best: b, itemStyle: { color: D.runs[i].colour, borderColor: b ? '#1f2328' : null, borderWidth: b ? 2 : 0 } };
            }), label: { show: names.length <= 8, position: 'top', formatter: function (p) { return (p.data.best ? '★ ' : '') + num(p.value, D.summary.columns[ci].digits); } }
          }]
        });
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
    (D.params || []).forEach(function (p, k) {
      // an integer parameter (depth, …) gets integer ticks
      var ints = p.lines.every(function (l) { return l.x.every(function (x) { return x === Math.round(x); }); });
      [['mean_wait', 'Mean wait (s)'], ['mean_bsld', 'Mean bounded slowdown'], ['utilization', 'Utilization (%)']].forEach(function (m) {
        var series = [], seen = {};
        p.lines.filter(function (l) { return !l.runs || l.runs.some(shown); }).forEach(function (l) {
          var colour = D.runs.length ? (RUN_POLICY_COLOUR[l.policy] || CAT[0]) : CAT[0];
          seen[l.policy] = (seen[l.policy] || 0) + 1;
          var dash = DASHES[(seen[l.policy] - 1) % DASHES.length];
          var pts = l.x.map(function (x, j) { return [x, l[m[0]][j].mean, l[m[0]][j].ci95]; });
          series.push({ type: 'line', name: l.name, data: pts.map(function (q) { return [q[0], q[1]]; }), symbolSize: 6, itemStyle: { color: colour }, lineStyle: { type: dash } });
          series.push(errorBars(l.name, pts, colour));
        });
        chart('chart-param-' + k + '-' + m[0], {
          title: { text: m[1] + ' by ' + p.x, left: 'center', textStyle: { fontSize: 13 } },
          tooltip: { trigger: 'axis' }, legend: { bottom: 0, type: 'scroll' },
          grid: { left: 64, right: 20, top: 36, bottom: 56 },
          xAxis: { type: 'value', name: p.x, nameLocation: 'middle', nameGap: 24, scale: true, minInterval: ints ? 1 : 0,
            axisLabel: { formatter: function (v) { return ints ? String(v) : String(+v.toFixed(3)); } } },
          yAxis: { type: 'value', scale: m[0] === 'utilization' }, series: series
        });
      });
    });
  }

  function cdfChart() {
    if (!D.cdf || !D.cdf.length) return;
    groupBlocks('cdf-groups', function (sfx) { return '<div class="chart tall" id="chart-cdf' + sfx + '"></div>'; }).forEach(function (g) {
      var cs = D.cdf.filter(function (c) { return RUN[c.run] && RUN[c.run].group === g.id && shown(c.run); });
      chart('chart-cdf' + (g.id === 0 ? '' : '-' + g.id), {
        title: { text: 'Wait time CDF (waits under 1 s drawn at 1 s)', left: 16, top: 4, textStyle: { fontSize: 13 } },
        tooltip: { trigger: 'axis', valueFormatter: function (v) { return (100 * v).toFixed(1) + ' % of jobs'; },
          axisPointer: { label: { formatter: function (p) { return p.axisDimension === 'x' ? 'wait ≤ ' + dur(p.value) : (100 * p.value).toFixed(0) + ' %'; } } } },
        legend: { type: 'scroll', orient: 'vertical', right: 4, top: 36, bottom: 20, textStyle: { width: 150, overflow: 'truncate' } },
        grid: { left: 64, right: 190, top: 40, bottom: 50 },
        xAxis: { type: 'log', name: 'wait', nameLocation: 'middle', nameGap: 26, min: 1, axisLabel: { formatter: function (v) { return dur(v); } } },
        yAxis: { type: 'value', min: 0, max: 1, name: 'fraction of jobs' },
        series: cs.map(function (c) {
          return { type: 'line', name: nameOf(c.run), showSymbol: false, step: 'end', itemStyle: { color: runColour(c.run) }, lineStyle: { type: runDash(c.run) },
            data: c.points.map(function (p) { return [Math.max(1, p[0]), p[1]]; }) };
        })
      });
    });
  }

  // timeCharts draws utilization and queue length over time from the fine
  // bins of D.time, averaged into about one point per pixel of the visible
  // window: zooming in refines the curves, down to D.time.step. A run's
  // curves stop where the run ends.
  var TS = { bin: 0 };
  function timeCharts() {
    if (!D.time || !D.time.length) return;
    var first = null;
    var el = document.getElementById('time-groups');
    if (!el) return;
    el.innerHTML = '';
    D.time.forEach(function (T) {
      var sfx = T.group === 0 ? '' : '-' + T.group;
      var div = document.createElement('div');
      div.innerHTML = (MULTI ? '<h3>' + esc(T.group_name) + '</h3>' : '') + '<div class="chart tall" id="chart-util-time' + sfx +
        '"></div><div class="chart tall" id="chart-queue-time' + sfx + '" style="margin-top:12px"></div>';
      el.appendChild(div);
      var cs = timeGroup(T, sfx);
      if (!first) first = cs;
    });
    TS.charts = first;
  }
  function timeGroup(T, sfx) {
    var runs = T.runs.filter(function (r) { return shown(r.run); });
    var TB = { bin: 0 };
    var nmax = 1;
    T.runs.forEach(function (r) { nmax = Math.max(nmax, r.util.length); });
    var maxDay = nmax * T.step / 86400;
    // coarse averages k fine bins into one point, over fine bins [b0, b1)
    function coarse(arr, k, b0, b1, scale) {
      var out = [], n = Math.min(arr.length, b1);
      for (var i = Math.max(0, Math.floor(b0 / k) * k); i < n; i += k) {
        var sum = 0, m = 0;
        for (var j = i; j < i + k && j < n; j++) { sum += arr[j]; m++; }
        out.push([(i + m / 2) * T.step / 86400, sum / m * scale]);
      }
      return out;
    }
    function series(field, scale, d0, d1, width) {
      var b0 = Math.max(0, Math.floor(d0 * 86400 / T.step) - 1), b1 = Math.ceil(d1 * 86400 / T.step) + 1;
      var k = Math.max(1, Math.ceil((b1 - b0) / Math.max(100, width)));
      TB.bin = k * T.step;
      if (sfx === '') TS.bin = TB.bin;
      return runs.map(function (r) {
        return { type: 'line', name: nameOf(r.run), showSymbol: false, lineStyle: { width: 1, type: runDash(r.run) }, itemStyle: { color: runColour(r.run) },
          data: coarse(r[field], k, b0, b1, scale) };
      });
    }
    var fmt = {
      util: function (v) { return v == null ? '—' : v.toFixed(1) + ' % busy'; },
      queue: function (v) { return v == null ? '—' : v.toFixed(1) + ' waiting jobs'; }
    };
    var title = {
      util: function () { return 'Utilization over time (mean per bin of ' + dur(TB.bin) + ')'; },
      queue: function () { return 'Queue length over time (mean waiting jobs per bin of ' + dur(TB.bin) + ')'; }
    };
    var mk = function (id, field, scale, yname, ymax) {
      var el = document.getElementById(id);
      if (!el) return null;
      var ser = series(field, scale, 0, maxDay, el.clientWidth || 800);
      var c = chart(id, {
        title: { text: title[field](), left: 16, top: 4, textStyle: { fontSize: 13 } },
        tooltip: { trigger: 'axis', valueFormatter: fmt[field],
          axisPointer: { label: { formatter: function (p) { return p.axisDimension === 'x' ? clock(p.value * 86400) : String(p.value); } } } },
        // the legend sits right of the plot, never over the title
        legend: { type: 'scroll', orient: 'vertical', right: 4, top: 36, bottom: 40, textStyle: { width: 150, overflow: 'truncate' } },
        grid: { left: 64, right: 190, top: 40, bottom: 70 },
        xAxis: { type: 'value', name: 'days since first submission', nameLocation: 'middle', nameGap: 24, min: 0, max: maxDay,
          axisLabel: { formatter: function (v) { return String(+v.toFixed(2)); } } },
        yAxis: { type: 'value', name: yname, min: 0, max: ymax },
        dataZoom: [{ type: 'inside', xAxisIndex: 0, filterMode: 'none' }, { type: 'slider', xAxisIndex: 0, height: 18, bottom: 8, filterMode: 'none' }],
        series: ser
      });
      if (!c) return null;
      c.on('datazoom', function () {
        var z = c.getOption().dataZoom[0], d0 = z.start / 100 * maxDay, d1 = z.end / 100 * maxDay;
        if (z.startValue != null && z.endValue != null) { d0 = z.startValue; d1 = z.endValue; }
        var s2 = series(field, scale, d0, d1, el.clientWidth || 800);
        c.setOption({ title: { text: title[field]() }, series: s2.map(function (x) { return { data: x.data }; }) }, { lazyUpdate: false });
      });
      return c;
    };
    var u = mk('chart-util-time' + sfx, 'util', 100, 'busy %', 100);
    var q = mk('chart-queue-time' + sfx, 'queue', 1, 'waiting jobs');
    if (u && q) echarts.connect([u, q]);
    // a click on either curve shows that moment in the Gantt chart (a one-day
    // window, or the current window when already zoomed in)
    [u, q].forEach(function (c) {
      if (!c) return;
      c.getZr().on('click', function (e) {
        if (!G.g || !c.containPixel('grid', [e.offsetX, e.offsetY])) return;
        var day = c.convertFromPixel({ gridIndex: 0 }, [e.offsetX, e.offsetY])[0];
        var t = T.start + day * 86400 - G.g.t0, v = G.view;
        if (t < 0 || t > G.g.span) return; // another workload's time axis
        var span = v.t1 - v.t0 >= G.g.span ? 86400 : v.t1 - v.t0;
        G.view = clampView({ t0: t - span / 2, t1: t + span / 2, p0: v.p0, p1: v.p1 });
        draw();
        document.getElementById('gantt').scrollIntoView();
      });
    });
    return [u, q];
  }
  // the test hook for the time series: the current bin width (s), the
  // number of points of each curve, and a zoom to a window of days
  window.backfillTime = {
    get bin() { return TS.bin; },
    get points() { return TS.charts ? TS.charts[0].getOption().series.map(function (x) { return x.data.length; }) : []; },
    get lastX() { return TS.charts ? TS.charts[0].getOption().series.map(function (x) { return x.data.length ? x.data[x.data.length - 1][0] : 0; }) : []; },
    zoom: function (start, end) { TS.charts[0].dispatchAction({ type: 'dataZoom', start: start, end: end }); }
  };

  function classCharts() {
    (D.classes || []).forEach(function (c, k) {
      [['mean_wait', 'Mean wait (s)'], ['mean_bsld', 'Mean bounded slowdown']].forEach(function (m) {
        chart('chart-class-' + k + '-' + m[0], {
          title: { text: m[1] + ' by ' + c.rule.split(':')[0], left: 'center', textStyle: { fontSize: 13 } },
          legend: { bottom: 0, type: 'scroll' },
          grid: { left: 64, right: 16, top: 36, bottom: 56 },
          xAxis: { type: 'category', data: c.labels, axisLabel: { interval: 0 } }, yAxis: { type: 'value', name: m[0] === 'mean_wait' ? 's' : '' },
          // an empty class has no mean: no bar (null), "—" in the tooltip
          tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' }, valueFormatter: function (v) { return v == null ? '— (no jobs)' : m[0] === 'mean_wait' ? dur(v) : num(v, 2); } },
          series: c.runs.map(function (r, i) { return [r, i]; }).filter(function (x) { return shown(x[0]); }).map(function (x) {
            var r = x[0], i = x[1];
            return { type: 'bar', name: nameOf(r), itemStyle: { color: runColour(r), decal: RUN[r] && RUN[r].dash ? { symbol: 'rect', dashArrayX: [1, 0], dashArrayY: [2, 4], rotation: RUN[r].dash } : null },
              data: c.stats[i].map(function (s) { return s.jobs ? s[m[0]] : null; }) };
          })
        });
      });
    });
  }

  // ---------- run selector ----------
  // Every chart and the summary table show the runs ticked here; a change
  // redraws the charts (the Gantt chart has its own run list).
  function runSelector() {
    var list = document.getElementById('run-list');
    if (!list) return;
    var h = [];
    GROUPS.forEach(function (g) {
      if (MULTI) h.push('<div class="grp">' + esc(g.name) + '</div>');
      g.runs.forEach(function (l) {
        h.push('<label><input type="checkbox" data-run="' + esc(l) + '" checked> <span class="sw" style="display:inline-block;width:10px;height:10px;background:' +
          runColour(l) + '"></span> ' + esc(nameOf(l)) + '</label>');
      });
    });
    list.innerHTML = h.join('');
    var pols = [];
    D.runs.forEach(function (r) { if (pols.indexOf(r.policy) < 0) pols.push(r.policy); });
    document.getElementById('runs-policies').innerHTML = pols.length > 1 ? 'only: ' + pols.map(function (p) { return '<button data-policy="' + esc(p) + '">' + esc(p) + '</button>'; }).join(' ') : '';
    list.addEventListener('change', function (e) { if (e.target.dataset.run !== undefined) { VIS[e.target.dataset.run] = e.target.checked; rerender(); } });
    document.getElementById('runs-all').addEventListener('click', function () { setVisible(function () { return true; }); });
    document.getElementById('runs-none').addEventListener('click', function () { setVisible(function () { return false; }); });
    document.getElementById('runs-policies').addEventListener('click', function (e) {
      var p = e.target.dataset && e.target.dataset.policy;
      if (p) setVisible(function (r) { return r.policy === p; });
    });
    updateCount();
  }
  function setVisible(f) {
    D.runs.forEach(function (r) { VIS[r.label] = !!f(r); });
    document.querySelectorAll('#run-list input').forEach(function (i) { i.checked = VIS[i.dataset.run]; });
    rerender();
  }
  function updateCount() {
    var n = D.runs.filter(function (r) { return shown(r.label); }).length;
    var el = document.getElementById('run-count');
    if (el) el.textContent = n + ' of ' + D.runs.length;
    document.querySelectorAll('#summary-table tbody tr').forEach(function (tr) { tr.classList.toggle('hidden', !shown(tr.dataset.run)); });
  }
  function rerender() {
    charts.forEach(function (c) { c.dispose(); });
    charts = []; state.charts = 0;
    [compareCharts, paramCharts, cdfChart, timeCharts, classCharts].forEach(function (f) {
      try { f(); } catch (e) { state.errors.push(String(e && e.stack || e)); console.error(e); }
    });
    updateCount();
  }

  // ---------- job table ----------
  // The jobs of the Gantt chart's run: searchable, sortable, exportable;
  // a click shows the job in the Gantt chart.
  var JT = { sort: 'id', dir: 1, rows: [], q: '' };
  function jobState(J, j) { return J.killed[j] ? 'killed' : 'completed'; }
  function jobField(J, j, k) {
    switch (k) {
      case 'id': return J.id[j];
      case 'user': return J.user[j];
      case 'size': return J.procs[j];
      case 'submit': return J.submit[j];
      case 'wait': return J.start[j] - J.submit[j];
      case 'runtime': return J.runtime[j];
      case 'estimate': return J.est[j];
      case 'state': return jobState(J, j);
    }
  }
  // matches: "123" (job id or user), "user:12", "state:killed", "size:>=64", "wait:>3600"
  function matcher(q) {
    var terms = q.trim().split(/\s+/).filter(Boolean);
    return function (J, j) {
      return terms.every(function (t) {
        var m = /^(\w+):(>=|<=|>|<|=)?(.+)$/.exec(t);
        if (!m) return String(J.id[j]) === t || String(J.user[j]) === t;
        var v = jobField(J, j, m[1]);
        if (v === undefined) return false;
        var op = m[2] || '=', w = m[3];
        if (typeof v === 'string') return op === '=' && v.indexOf(w) === 0;
        w = +w;
        return op === '=' ? v === w : op === '>' ? v > w : op === '<' ? v < w : op === '>=' ? v >= w : v <= w;
      });
    };
  }
  function jobTable() {
    var tb = document.querySelector('#jobs-table tbody');
    if (!tb || !G.g) return;
    var J = G.g.jobs, n = J.id.length, m = matcher(JT.q), rows = [];
    for (var j = 0; j < n; j++) if (m(J, j)) rows.push(j);
    var k = JT.sort, dir = JT.dir;
    rows.sort(function (a, b) {
      var x = jobField(J, a, k), y = jobField(J, b, k);
      return (x < y ? -1 : x > y ? 1 : J.id[a] - J.id[b]) * dir;
    });
    JT.rows = rows;
    var h = [];
    for (var i = 0; i < Math.min(500, rows.length); i++) {
      var r = rows[i];
      h.push('<tr data-j="' + r + '"' + (r === G.selected ? ' class="sel"' : '') + '><td>' + J.id[r] + '</td><td>' + (J.user[r] < 0 ? '—' : J.user[r]) + '</td><td>' + J.procs[r] +
        '</td><td>' + clock(J.submit[r], true) + '</td><td>' + dur(J.start[r] - J.submit[r]) + '</td><td>' + dur(J.runtime[r]) + '</td><td>' + dur(J.est[r]) + '</td><td>' + jobState(J, r) + '</td></tr>');
    }
    tb.innerHTML = h.join('');
    document.getElementById('jobs-count').textContent = rows.length.toLocaleString('en-US') + ' of ' + n.toLocaleString('en-US') + ' jobs' + (rows.length > 500 ? ' (first 500 shown)' : '');
    document.getElementById('jobs-title').textContent = 'Jobs of ' + G.g.run;
  }
  function jobsCSV() {
    var J = G.g.jobs, lines = ['job_id,user,procs,submit,start,end,wait,runtime,estimate,state'];
    JT.rows.forEach(function (j) {
      lines.push([J.id[j], J.user[j], J.procs[j], J.submit[j] + G.g.t0, J.start[j] + G.g.t0, J.end[j] + G.g.t0, J.start[j] - J.submit[j], J.runtime[j], J.est[j], jobState(J, j)].join(','));
    });
    return lines.join('\n') + '\n';
  }
  function jobTableInit() {
    var t = document.getElementById('jobs-table');
    if (!t) return;
    t.querySelector('thead').addEventListener('click', function (e) {
      var k = e.target.dataset && e.target.dataset.k;
      if (!k) return;
      JT.dir = JT.sort === k ? -JT.dir : 1; JT.sort = k;
      jobTable();
    });
    t.querySelector('tbody').addEventListener('click', function (e) {
      var tr = e.target.closest('tr');
      if (tr) selectJob(+tr.dataset.j, true);
    });
    var timer = null;
    document.getElementById('jobs-search').addEventListener('input', function (e) {
      clearTimeout(timer);
      timer = setTimeout(function () { JT.q = e.target.value; jobTable(); }, 150);
    });
    document.getElementById('jobs-csv').addEventListener('click', function () {
      var a = document.createElement('a');
      a.href = URL.createObjectURL(new Blob([jobsCSV()], { type: 'text/csv' }));
      a.download = 'jobs-' + G.g.run.replace(/[^\w.=-]+/g, '_') + '.csv';
      document.body.appendChild(a); a.click(); a.remove();
    });
  }
  // selectJob shows job j (an index into the Gantt's jobs) in the Gantt
  // chart: a view around it, its rectangles outlined until another job is
  // chosen.
  function selectJob(j, move) {
    G.selected = j;
    if (move && j >= 0) {
      var J = G.g.jobs, len = Math.max(J.end[j] - J.submit[j], 600);
      G.view = clampView({ t0: J.submit[j] - len / 2, t1: J.end[j] + len / 2, p0: 0, p1: G.g.rows });
      draw();
      document.getElementById('gantt').scrollIntoView();
    }
    markSelected();
    document.querySelectorAll('#jobs-table tbody tr').forEach(function (tr) { tr.classList.toggle('sel', +tr.dataset.j === j); });
  }
  function markSelected() {
    var j = G.selected;
    if (j === undefined || j < 0 || !G.first) return;
    var k0 = G.first[j], k1 = k0;
    while (k1 + 1 < G.g.rects.job.length && G.g.rects.job[k1 + 1] === j) k1++;
    highlight(j, k0, k1);
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

  // topUsers are the ten users with the most processor-seconds in g.
  function topUsers(g) {
    var area = {};
    for (var i = 0; i < g.jobs.id.length; i++) {
      var u = g.jobs.user[i];
      area[u] = (area[u] || 0) + g.jobs.procs[i] * (g.jobs.end[i] - g.jobs.start[i]);
    }
    return Object.keys(area).map(Number).sort(function (a, b) { return area[b] - area[a] || a - b; }).slice(0, 10);
  }

  function computeColours() {
    var g = G.g, n = g.jobs.id.length, col = new Uint32Array(n), dark = new Uint32Array(n), i, rgb;
    G.topList = topUsers(g);
    G.top = {};
    G.topList.forEach(function (u, k) { if (u >= 0) G.top[u] = k; });
    var rgbs = new Array(n);
    var maxLog = Math.max(1, Math.ceil(Math.log2(Math.max(2, g.procs))));
    for (i = 0; i < n; i++) {
      switch (G.colour) {
        case 'size': rgb = ramp(VIRIDIS, Math.log2(g.jobs.procs[i]) / maxLog); break;
        case 'wait': rgb = hex(WAIT[waitBin(g.jobs.start[i] - g.jobs.submit[i])]); break;
        case 'killed': rgb = g.jobs.killed[i] ? [215, 48, 39] : [120, 150, 190]; break;
        default: rgb = userColour(g.jobs.user[i]);
      }
      col[i] = packed(rgb); dark[i] = packed(rgb, 0.6); rgbs[i] = rgb;
    }
    G.col = col; G.dark = dark; G.rgb = rgbs;
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
      // the ten users with the most processor-seconds in this schedule:
      // one distinct colour each
      G.legendColours = [];
      G.topList.forEach(function (u) {
        var c = 'rgb(' + userColour(u).join(',') + ')';
        G.legendColours.push(c);
        h.push(sw(c, u < 0 ? 'user unknown' : 'user ' + u));
      });
      h.push('<span class="note">(the ten users with the most processor-time, one colour each; all other users share ten light colours)</span>');
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
    G.selected = -1;
    G.first = new Int32Array(G.g.jobs.id.length).fill(-1);
    for (var r = G.g.rects.job.length - 1; r >= 0; r--) G.first[G.g.rects.job[r]] = r;
    var mk = document.getElementById('gantt-marks');
    mk.disabled = G.g.bounds === 0;
    document.getElementById('gantt-marks-note').textContent = G.g.bounds === 0 ? '(this policy promises no start bound)' : '(' + G.g.bounds.toLocaleString('en-US') + ' jobs with a bound)';
    computeColours();
    reset();
    jobTable();
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

  var MAX_MARKS = 20000; // reservation markers drawn at most (jobs)

  // draw renders the view. A job at least 6 pixels wide and tall is a
  // rectangle with an outline; a smaller one adds its exact covered
  // fraction of each pixel (coverage), and a pixel's colour is the mean
  // colour of its jobs blended with the background by its total coverage.
  // Zoomed out, the drawing is therefore an occupancy map: the inked area
  // equals the busy processor-time, and idle time shows as background
  // (G.ink: the inked fraction of the plot, for the test).
  function draw() {
    var t = performance.now();
    G.tip.style.display = 'none'; // the view moved: the hovered job may be elsewhere (the wheel handler re-shows it)
    if (G.highlighted >= 0) highlight(-1);
    var g = G.g, v = G.view, z = size(), W = z.pw, H = z.ph;
    var ctx = G.canvas.getContext('2d');
    if (!G.img || G.img.width !== W || G.img.height !== H) {
      G.img = ctx.createImageData(W, H);
      G.acc = new Float32Array(W * H * 4); // r, g, b (weighted by coverage), coverage
    }
    var buf = new Uint32Array(G.img.data.buffer), acc = G.acc;
    var BG = 0xfff8f6f5 >>> 0, bgR = 245, bgG = 246, bgB = 248;
    buf.fill(BG); // background: rgb(245,246,248)
    acc.fill(0);
    var sx = W / (v.t1 - v.t0), sy = H / (v.p1 - v.p0);
    var ix = G.idx, bw = ix.bw, off = ix.off, list = ix.list;
    var st = g.jobs.start, en = g.jobs.end, rj = g.rects.job, rlo = g.rects.lo, rn = g.rects.n;
    var col = G.col, dark = G.dark, stamp = G.stamp, rgbOf = G.rgb;
    var frame = ++G.frame, drawn = 0, marks = [], nmarks = 0, big = [];
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
        // exact extent in (device) pixels, clipped to the plot
        var fx0 = Math.max(0, (s - v.t0) * sx), fx1 = Math.min(W, (e - v.t0) * sx);
        var fy0 = Math.max(0, H - (hi - v.p0) * sy), fy1 = Math.min(H, H - (lo - v.p0) * sy);
        if (fx1 <= fx0 || fy1 <= fy0) continue;
        if (fx1 - fx0 >= 6 && fy1 - fy0 >= 6) {
          big.push(r);
        } else {
          var c3 = rgbOf[j], x, y;
          var xa = Math.floor(fx0), xb = Math.ceil(fx1), ya = Math.floor(fy0), yb = Math.ceil(fy1);
          for (y = ya; y < yb; y++) {
            var wy = Math.min(y + 1, fy1) - Math.max(y, fy0);
            for (x = xa; x < xb; x++) {
              var w = (Math.min(x + 1, fx1) - Math.max(x, fx0)) * wy, o4 = (y * W + x) * 4;
              acc[o4] += w * c3[0]; acc[o4 + 1] += w * c3[1]; acc[o4 + 2] += w * c3[2]; acc[o4 + 3] += w;
            }
          }
        }
        if (stamp[j] !== frame) {
          stamp[j] = frame; drawn++;
          if (wantMarks && g.jobs.bound[j] >= 0) {
            if (nmarks < MAX_MARKS) marks.push(j, (fy0 + fy1) / 2, fy1 - fy0);
            nmarks++;
          }
        }
      }
    }
    // blend the small jobs' coverage with the background
    var ink = 0;
    for (var p = 0, np = W * H; p < np; p++) {
      var cv = acc[p * 4 + 3];
      if (cv <= 0) continue;
      var a = Math.min(1, cv), q = 1 - a;
      ink += a;
      buf[p] = (255 << 24 | Math.round(acc[p * 4 + 2] / cv * a + bgB * q) << 16 | Math.round(acc[p * 4 + 1] / cv * a + bgG * q) << 8 |
        Math.round(acc[p * 4] / cv * a + bgR * q)) >>> 0;
    }
    // the large jobs: outlined rectangles on top
    for (var bi = 0; bi < big.length; bi++) {
      var rr = big[bi], jb = rj[rr];
      var x0 = Math.max(0, Math.floor((st[jb] - v.t0) * sx)), x1 = Math.min(W, Math.floor((en[jb] - v.t0) * sx));
      var y0 = Math.max(0, Math.floor(H - (rlo[rr] + rn[rr] - v.p0) * sy)), y1 = Math.min(H, Math.floor(H - (rlo[rr] - v.p0) * sy));
      if (x1 <= x0 || y1 <= y0) continue;
      var cc = col[jb], d = dark[jb];
      for (var yy = y0; yy < y1; yy++) {
        var oo = yy * W;
        if (yy === y0 || yy === y1 - 1) { buf.fill(d, oo + x0, oo + x1); continue; }
        buf[oo + x0] = d; buf[oo + x1 - 1] = d;
        buf.fill(cc, oo + x0 + 1, oo + x1 - 1);
      }
      ink += (x1 - x0) * (y1 - y0);
    }
    G.ink = ink / (W * H);
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, G.canvas.width, G.canvas.height);
    ctx.putImageData(G.img, Math.round(M.l * z.dpr), Math.round(M.t * z.dpr));
    ctx.setTransform(z.dpr, 0, 0, z.dpr, 0, 0);
    var pw = W / z.dpr, ph = H / z.dpr;
    // reservation markers: a tick at the promised bound, a line from the
    // actual start; at most MAX_MARKS jobs, else none and a notice
    G.marksShown = 0; G.marksInView = nmarks;
    if (wantMarks && nmarks <= MAX_MARKS) {
      ctx.save();
      ctx.beginPath(); ctx.rect(M.l, M.t, pw, ph); ctx.clip();
      ctx.strokeStyle = '#111'; ctx.lineWidth = 1;
      ctx.beginPath();
      for (var m = 0; m < marks.length; m += 3) {
        var jj = marks[m], ym = M.t + marks[m + 1] / z.dpr, hh = Math.max(3, Math.min(10, marks[m + 2] / z.dpr / 2 + 2));
        var xs = M.l + (st[jj] - v.t0) * sx / z.dpr, xbd = M.l + (g.jobs.bound[jj] - v.t0) * sx / z.dpr;
        ctx.moveTo(xs, ym); ctx.lineTo(xbd, ym);
        ctx.moveTo(xbd, ym - hh); ctx.lineTo(xbd, ym + hh);
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
    if (G.ink > 0) status += ' · ' + (100 * (1 - G.ink)).toFixed(1) + ' % of the view idle';
    if (wantMarks && nmarks > MAX_MARKS) status += ' · ' + nmarks.toLocaleString('en-US') + ' reservations in view: zoom in to see reservation markers (at most ' + MAX_MARKS.toLocaleString('en-US') + ')';
    document.getElementById('gantt-status').textContent = status;
    markSelected();
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
    if (!a.inside) { tip.style.display = 'none'; highlight(-1); markSelected(); return; }
    var r = hit(a.t, a.p);
    if (r < 0) { tip.style.display = 'none'; highlight(-1); markSelected(); return; }
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
    c.addEventListener('mouseleave', function () { G.tip.style.display = 'none'; highlight(-1); markSelected(); });
    c.addEventListener('dblclick', reset);
    window.addEventListener('resize', draw);
    select(0);
  }

  // the test hook: the browser test reads and drives the Gantt through it
  window.backfillGantt = {
    get drawn() { return G.drawn; }, get frames() { return G.frames; }, get lastDrawMs() { return G.lastDrawMs; },
    get marks() { return G.marksShown; }, get marksInView() { return G.marksInView; }, get highlighted() { return G.highlighted; },
    get ink() { return G.ink; }, get selected() { return G.selected; },
    selectJob: function (j) { selectJob(j, true); }, get legendColours() { return G.legendColours || []; },
    get status() { return document.getElementById('gantt-status').textContent; },
    get view() { return G.view && { t0: G.view.t0, t1: G.view.t1, p0: G.view.p0, p1: G.view.p1 }; },
    get run() { return G.g && G.g.run; },
    zoom: function (f, tc) { zoom(f, tc); }, reset: function () { reset(); },
    setView: function (t0, t1) { G.view = clampView({ t0: t0, t1: t1, p0: G.view.p0, p1: G.view.p1 }); draw(); },
    select: function (i) { document.getElementById('gantt-run').value = i; select(i); },
    colour: function (m) { G.colour = m; document.getElementById('gantt-colour').value = m; computeColours(); draw(); }
  };

  // the test hook of the job table and the run selector
  window.backfillJobs = {
    search: function (q) { JT.q = q; jobTable(); return JT.rows.length; },
    sort: function (k, dir) { JT.sort = k; JT.dir = dir; jobTable(); },
    get rows() { return JT.rows.slice(0, 500); }, get count() { return JT.rows.length; },
    csv: function () { return jobsCSV(); },
    click: function (i) { document.querySelectorAll('#jobs-table tbody tr')[i].click(); }
  };
  window.backfillRuns = {
    show: function (labels) { setVisible(function (r) { return labels.indexOf(r.label) >= 0; }); },
    all: function () { setVisible(function () { return true; }); },
    get groups() { return GROUPS.length; }
  };

  [runSelector, compareCharts, paramCharts, cdfChart, timeCharts, classCharts, jobTableInit, ganttInit].forEach(function (f) {
    var t = performance.now();
    try { f(); } catch (e) { state.errors.push(String(e && e.stack || e)); console.error(e); }
    state.timings[f.name] = performance.now() - t;
  });
  state.firstRenderMs = performance.now();
  state.ready = true;
})();
