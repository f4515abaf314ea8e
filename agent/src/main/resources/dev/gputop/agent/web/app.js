// gputop-agent's live page: reads /api/snapshot (and /api/history for the selected server) every
// refresh and redraws in place. Plain JS, no build step; uPlot draws the charts. Every value the
// agent does not have (null) shows as "N/A", never as 0, with the snapshot's reason for it
// (inference[].unavailable) as its tooltip.
(function () {
  'use strict';

  var NA = 'N/A';
  var state = {
    selected: new URLSearchParams(location.search).get('server'),
    intervalMs: 3000,
    renders: 0,
    snapshot: null,
    timer: null,
  };
  var charts = {};

  // The four charts of the selected server: series of /api/history and how to show them.
  var CHARTS = [
    { id: 'ttft', title: 'TTFT', unit: 's', series: [['ttftP50', 'p50', '#1f77b4'], ['ttftP99', 'p99', '#d62728']], scale: 1 },
    { id: 'requests', title: 'Requests/s', unit: '/s', series: [['requestsPerSecond', 'req/s', '#2ca02c']], scale: 1 },
    { id: 'generation', title: 'Generation tokens/s', unit: 'tok/s', series: [['generationTokensPerSecond', 'tok/s', '#9467bd']], scale: 1 },
    { id: 'kv', title: 'KV cache', unit: '%', series: [['kvCacheUsage', 'used %', '#ff7f0e']], scale: 100 },
  ];

  // The snapshot's reasons for a N/A (inference[].unavailable), as the page says them.
  var REASONS = {
    not_exported: 'not exported: the engine has no such metric',
    no_requests: 'no requests: none completed in the window',
    starting: 'starting: fewer than two scrapes yet',
    down: 'down: the last scrape failed',
  };
  // Table columns and chart series by the snapshot field whose reason they show.
  var REASON_FIELD = { ttftP50: 'ttft', ttftP99: 'ttft', itlP50: 'itl', e2eP50: 'e2e', e2eP99: 'e2e',
    ttftMean: 'ttft', kvCache: 'kvCacheUsage' };

  function isNum(v) { return typeof v === 'number' && isFinite(v); }

  // Why the server's field is N/A, in words; null when the snapshot gives no reason.
  function reason(server, field) {
    var why = server && server.unavailable && server.unavailable[REASON_FIELD[field] || field];
    return why ? (REASONS[why] || why) : null;
  }

  function seconds(v) {
    if (!isNum(v)) return NA;
    if (v < 0.01) return (v * 1000).toFixed(1) + ' ms';
    if (v < 0.9995) return (v * 1000).toFixed(0) + ' ms';
    if (v < 99.995) return v.toFixed(2) + ' s';
    return v.toFixed(0) + ' s';
  }
  function percent(v) { return isNum(v) ? (v * 100).toFixed(0) + '%' : NA; }
  function number(v, decimals) { return isNum(v) ? v.toFixed(decimals) : NA; }
  function count(v) { return isNum(v) ? String(Math.round(v)) : NA; }
  function bytes(v) {
    if (!isNum(v)) return NA;
    var gib = v / (1024 * 1024 * 1024);
    return gib >= 1 ? gib.toFixed(1) + ' GiB' : (v / (1024 * 1024)).toFixed(0) + ' MiB';
  }
  function text(v) { return v === null || v === undefined || v === '' ? NA : String(v); }
  function list(v) { return Array.isArray(v) && v.length ? v.join(', ') : NA; }

  function el(tag, attrs, content) {
    var e = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (k) {
        if (k === 'class') e.className = attrs[k];
        else if (attrs[k] !== undefined && attrs[k] !== null) e.setAttribute(k, attrs[k]);
      });
    }
    if (content !== undefined) e.textContent = content;
    return e;
  }

  // A table cell showing formatted, with the raw JSON value in data-value (for tests and tools);
  // a N/A of a server's statistic carries its reason as a tooltip and in data-reason.
  function cell(field, raw, shown, server) {
    var td = el('td', { 'data-field': field, 'data-value': raw === undefined ? 'null' : JSON.stringify(raw) }, shown);
    if (shown === NA) {
      td.className = 'na';
      var why = reason(server, field);
      if (why) {
        td.title = why;
        td.setAttribute('data-reason', server.unavailable[REASON_FIELD[field] || field]);
      }
    }
    return td;
  }

  // A N/A cell of the latency table: the reason of its latency (the cell's field is mean, p50...).
  function withReason(td, server, field) {
    if (td.className === 'na' && reason(server, field)) {
      td.title = reason(server, field);
      td.setAttribute('data-reason', server.unavailable[field]);
    }
    return td;
  }

  // TGI has no TTFT histogram: its approximate mean (queue + prefill batch) stands in, marked ≈.
  function ttftCell(field, s, v) {
    if (!isNum(v) && isNum(s.ttftApproxMean)) {
      var td = cell(field, v === undefined ? null : v, '≈ ' + seconds(s.ttftApproxMean) + ' mean', s);
      td.className = 'approx';
      td.title = 'approximate mean TTFT: mean queue time + mean prefill batch time (the engine exports no TTFT histogram)';
      return td;
    }
    return cell(field, v === undefined ? null : v, seconds(v), s);
  }

  function getJson(url) {
    return fetch(url, { cache: 'no-store', credentials: 'same-origin' }).then(function (r) {
      if (!r.ok) throw new Error(url + ': HTTP ' + r.status);
      return r.json();
    });
  }

  function renderOverview(snap) {
    var o = (snap.overview && snap.overview.serving) || {};
    var servers = snap.inference || [];
    var up = servers.filter(function (s) { return s.state === 'up'; }).length;
    var box = document.getElementById('overview');
    box.textContent = '';
    var parts = [
      ['Servers up', up + ' / ' + servers.length, 'servers'],
      ['worst TTFT p99', seconds(o.worstTtftP99), 'worstTtftP99'],
      ['worst ITL p50', seconds(o.worstItlP50), 'worstItlP50'],
      ['generation', isNum(o.generationTokensPerSecond) ? o.generationTokensPerSecond.toFixed(0) + ' tok/s' : NA, 'generationTokensPerSecond'],
      ['waiting', count(o.waiting), 'waiting'],
      ['tokens per joule', isNum(o.generationTokensPerJoule) ? o.generationTokensPerJoule.toPrecision(3) + ' tok/J' : NA, 'generationTokensPerJoule'],
      ['good req/s', Object.keys(o.goodRequestsPerSecond || {}).map(function (k) {
        return k + ' ' + number(o.goodRequestsPerSecond[k], 2);
      }).join(', ') || NA, 'goodRequestsPerSecond'],
    ];
    parts.forEach(function (p, i) {
      if (i > 0) box.appendChild(document.createTextNode(' · '));
      box.appendChild(document.createTextNode(p[0] + ' '));
      box.appendChild(el('b', { 'data-field': p[2] }, p[1]));
    });
  }

  function renderAlerts(snap) {
    var ul = document.getElementById('alerts');
    ul.textContent = '';
    var alerts = snap.alerts || [];
    if (!alerts.length) {
      ul.appendChild(el('li', { class: 'none' }, 'No alerts'));
      return;
    }
    alerts.forEach(function (a) {
      var li = el('li', { class: 'alert', 'data-alert': a.name });
      li.appendChild(el('b', null, a.name));
      li.appendChild(document.createTextNode((a.server ? ' ' + a.server : '') + ': ' + (a.message || '')));
      ul.appendChild(li);
    });
  }

  function renderServers(snap) {
    var body = document.querySelector('#servers tbody');
    body.textContent = '';
    var servers = snap.inference || [];
    if (!servers.length) {
      var tr = el('tr');
      tr.appendChild(el('td', { colspan: 16 }, 'No inference servers'));
      body.appendChild(tr);
      return;
    }
    servers.forEach(function (s) {
      var tr = el('tr', { 'data-server': s.name, class: s.name === state.selected ? 'selected' : '' });
      var ttft = s.ttft || {}, itl = s.itl || {}, e2e = s.e2e || {};
      tr.appendChild(cell('name', s.name, s.name));
      tr.appendChild(cell('engine', s.engine, text(s.engine)));
      var st = cell('state', s.state, text(s.state));
      st.classList.add('state-' + s.state);
      tr.appendChild(st);
      tr.appendChild(cell('running', s.running, count(s.running), s));
      tr.appendChild(cell('waiting', s.waiting, count(s.waiting), s));
      tr.appendChild(cell('kvCacheUsage', s.kvCacheUsage, percent(s.kvCacheUsage), s));
      tr.appendChild(ttftCell('ttftP50', s, ttft.p50));
      tr.appendChild(cell('ttftP99', ttft.p99, seconds(ttft.p99), s));
      tr.appendChild(cell('itlP50', itl.p50, seconds(itl.p50), s));
      tr.appendChild(cell('e2eP50', e2e.p50, seconds(e2e.p50), s));
      tr.appendChild(cell('e2eP99', e2e.p99, seconds(e2e.p99), s));
      tr.appendChild(cell('requestsPerSecond', s.requestsPerSecond, number(s.requestsPerSecond, 2), s));
      tr.appendChild(cell('promptTokensPerSecond', s.promptTokensPerSecond, number(s.promptTokensPerSecond, 0), s));
      tr.appendChild(cell('generationTokensPerSecond', s.generationTokensPerSecond, number(s.generationTokensPerSecond, 0), s));
      // Its GPUs as NVML reads them, and what they spend per generated token (docs/inference.md, Efficiency).
      var eff = s.efficiency || {};
      var gpus = (eff.gpus || []).map(function (g) {
        return g.lost ? g.index + ': lost'
          : g.index + ': ' + percent(g.utilization) + ' ' + bytes(g.memoryUsedBytes) + ' ' + number(g.powerWatts, 0) + ' W';
      });
      tr.appendChild(cell('gpus', eff.gpus || [], gpus.length ? gpus.join(' · ') : NA));
      var jpt = eff.joulesPerGeneratedToken;
      tr.appendChild(cell('joulesPerGeneratedToken', jpt === undefined ? null : jpt,
        isNum(jpt) ? jpt.toPrecision(3) + ' J' + (eff.estimated ? ' (est.)' : '')
          : eff.unavailable ? NA + ' (' + eff.unavailable + ')' : NA));
      tr.addEventListener('click', function () { select(s.name); });
      body.appendChild(tr);
    });
  }

  function renderGpus(snap) {
    var body = document.querySelector('#gpus tbody');
    body.textContent = '';
    var gpus = snap.gpus || [];
    if (!gpus.length) {
      var nvml = (snap.health && snap.health.nvml) || {};
      var why = nvml.reasons && nvml.reasons.length ? ' (NVML ' + nvml.state + ': ' + nvml.reasons.join('; ') + ')' : '';
      var tr = el('tr');
      tr.appendChild(el('td', { colspan: 9 }, 'No GPUs' + why));
      body.appendChild(tr);
      return;
    }
    gpus.forEach(function (g) {
      var key = g.migIndex === undefined || g.migIndex === null ? String(g.index) : g.index + ':' + g.migIndex;
      var tr = el('tr', { 'data-gpu': key });
      var procs = g.processes || [];
      var servers = [];
      procs.forEach(function (p) { if (p.server && servers.indexOf(p.server) < 0) servers.push(p.server); });
      tr.appendChild(cell('index', key, key));
      tr.appendChild(cell('name', g.name, text(g.name)));
      var st = cell('state', g.state, text(g.state));
      st.classList.add('state-' + g.state);
      tr.appendChild(st);
      tr.appendChild(cell('utilization', g.utilization, percent(g.utilization)));
      var mem = isNum(g.memoryUsedBytes) ? bytes(g.memoryUsedBytes) + ' / ' + bytes(g.memoryTotalBytes) : NA;
      tr.appendChild(cell('memoryUsedBytes', g.memoryUsedBytes, mem));
      tr.appendChild(cell('powerWatts', g.powerWatts, isNum(g.powerWatts) ? g.powerWatts.toFixed(0) + ' W' : NA));
      tr.appendChild(cell('temperatureCelsius', g.temperatureCelsius, isNum(g.temperatureCelsius) ? g.temperatureCelsius.toFixed(0) + ' °C' : NA));
      tr.appendChild(cell('processes', procs.length, procs.length ? procs.map(function (p) {
        return p.pid + (isNum(p.usedMemoryBytes) ? ' (' + bytes(p.usedMemoryBytes) + ')' : '');
      }).join(', ') : NA));
      tr.appendChild(cell('servers', servers, list(servers)));
      body.appendChild(tr);
    });
  }

  function renderDetail(snap) {
    var detail = document.getElementById('detail');
    if (!state.selected) {
      detail.hidden = true;
      return null;
    }
    detail.hidden = false;
    var s = (snap.inference || []).filter(function (x) { return x.name === state.selected; })[0];
    var title = document.getElementById('detail-title');
    var latency = document.querySelector('#latency tbody');
    var load = document.querySelector('#load tbody');
    var lengths = document.querySelector('#lengths tbody');
    latency.textContent = '';
    load.textContent = '';
    lengths.textContent = '';
    if (!s) {
      title.textContent = state.selected + ': not in the snapshot (gone, or a wrong link)';
      return null;
    }
    title.textContent = s.name;
    [['TTFT', 'ttft'], ['ITL', 'itl'], ['E2E', 'e2e'], ['Queue', 'queue']].forEach(function (row) {
      var l = s[row[1]];
      var tr = el('tr', { 'data-latency': row[1] });
      tr.appendChild(el('td', null, row[0]));
      ['mean', 'p50', 'p90', 'p99'].forEach(function (f) {
        var v = l ? l[f] : null;
        var td = row[1] === 'ttft' && f === 'mean' ? ttftCell(f, s, v) : cell(f, v === undefined ? null : v, seconds(v));
        withReason(td, s, row[1]);
        td.id = 'lat-' + row[1] + '-' + f;
        tr.appendChild(td);
      });
      var c = l ? l.count : null;
      var td = withReason(cell('count', c === undefined ? null : c, count(c)), s, row[1]);
      td.id = 'lat-' + row[1] + '-count';
      tr.appendChild(td);
      latency.appendChild(tr);
    });
    // Tokens per request, where the engine has the histograms; N/A with its reason where not.
    [['Prompt', 'prompt'], ['Generation', 'generation']].forEach(function (row) {
      var l = s.requestLengths ? s.requestLengths[row[1]] : null;
      var field = 'requestLengths.' + row[1];
      var tr = el('tr', { 'data-length': row[1] });
      tr.appendChild(el('td', null, row[0]));
      ['mean', 'p50', 'p90', 'p99', 'count'].forEach(function (f) {
        var v = l ? l[f] : null;
        var td = withReason(cell(f, v === undefined ? null : v, count(v)), s, field);
        td.id = 'len-' + row[1] + '-' + f;
        tr.appendChild(td);
      });
      lengths.appendChild(tr);
    });
    var rows = [
      ['State', 'state', text(s.state)],
      ['Running', 'running', count(s.running)],
      ['Waiting', 'waiting', count(s.waiting)],
      ['KV cache', 'kvCacheUsage', percent(s.kvCacheUsage)],
      ['Prefix hit', 'prefixHitRatio', percent(s.prefixHitRatio)],
      ['Preemptions/s', 'preemptionsPerSecond', number(s.preemptionsPerSecond, 2)],
      ['Prompt tokens/s', 'promptTokensPerSecond', number(s.promptTokensPerSecond, 0)],
      ['Generation tokens/s', 'generationTokensPerSecond', number(s.generationTokensPerSecond, 0)],
      ['Engine', 'engine', text(s.engine)],
      ['Model', 'servedModels', list(s.servedModels)],
      ['URL', 'url', text(s.url)],
      ['Source', 'source', text(s.source)],
      ['GPUs', 'gpus', list(s.gpus)],
      ['PIDs', 'pids', list(s.pids)],
      ['Error', 'error', s.error ? s.error : 'none'],
    ];
    rows.forEach(function (r) {
      var tr = el('tr');
      tr.appendChild(el('td', null, r[0]));
      var td = cell(r[1], s[r[1]] === undefined ? null : s[r[1]], r[2], s);
      td.id = 'load-' + r[1];
      tr.appendChild(td);
      load.appendChild(tr);
    });
    return s;
  }

  function chartWidth(box) { return Math.max(200, box.clientWidth - 10); }

  // The newest value of a chart's series, for its legend while the cursor is off the chart.
  function latest(values) {
    for (var i = values.length - 1; i >= 0; i--) {
      if (values[i] !== null && values[i] !== undefined) return values[i];
    }
    return null;
  }

  // A chart without a value says why: the snapshot's reason for its first series' field.
  function emptyNote(box, c, server, history) {
    var note = box.querySelector('.chart-empty');
    if (!note) {
      note = el('div', { class: 'chart-empty' });
      box.appendChild(note);
    }
    var field = c.series[0][0].replace(/P50$|P99$/, '');
    var why = reason(server, field);
    note.textContent = c.title + ': no data — ' + (!history ? 'the history could not be read'
      : why ? why : history.times.length ? 'no value in the last 10 minutes' : 'no refresh recorded yet');
    return note;
  }

  function renderCharts(history, server) {
    CHARTS.forEach(function (c) {
      var box = document.getElementById('chart-' + c.id);
      var times = history ? history.times.map(function (t) { return t / 1000; }) : [];
      var data = [times];
      var points = 0;
      c.series.forEach(function (s) {
        var values = history ? history.series[s[0]] : [];
        data.push(values.map(function (v) { return v === null ? null : v * c.scale; }));
        points += values.filter(function (v) { return v !== null; }).length;
      });
      box.setAttribute('data-points', String(times.length));
      box.setAttribute('data-values', String(points));
      var note = points ? box.querySelector('.chart-empty') : emptyNote(box, c, server, history);
      if (note) note.hidden = points > 0;
      if (typeof uPlot === 'undefined') {
        box.textContent = 'charts unavailable: uPlot did not load';
        return;
      }
      var chart = charts[c.id];
      if (!chart) {
        var series = [{}];
        c.series.forEach(function (s) {
          series.push({
            label: s[1], stroke: s[2], width: 1.5, spanGaps: false,
            // Under the cursor its value there; off the chart the newest one, marked as such.
            value: function (u, v, si, idx) {
              var shown = v, suffix = '';
              if (idx === null || idx === undefined) {
                shown = latest(u.data[si]);
                suffix = shown === null ? '' : ' (latest)';
              }
              return shown === null || shown === undefined ? NA : shown.toFixed(c.unit === 's' ? 3 : 1) + ' ' + c.unit + suffix;
            },
          });
        });
        chart = new uPlot({
          title: c.title + ' (' + c.unit + ')',
          width: chartWidth(box), height: 200,
          series: series,
          axes: [{}, { size: 60 }],
          scales: { x: { time: true } },
        }, data, box);
        charts[c.id] = chart;
      } else {
        chart.setData(data);
      }
    });
  }

  function select(name) {
    state.selected = name;
    history.pushState({ server: name }, '', '?server=' + encodeURIComponent(name));
    refresh();
  }

  window.addEventListener('popstate', function () {
    state.selected = new URLSearchParams(location.search).get('server');
    refresh();
  });

  window.addEventListener('resize', function () {
    CHARTS.forEach(function (c) {
      var chart = charts[c.id];
      if (chart) chart.setSize({ width: chartWidth(document.getElementById('chart-' + c.id)), height: 200 });
    });
  });

  function setStatus(message, error) {
    var s = document.getElementById('status');
    s.textContent = message;
    s.className = error ? 'error' : '';
  }

  function refresh() {
    clearTimeout(state.timer);
    var selected = state.selected;
    getJson('api/snapshot').then(function (snap) {
      state.snapshot = snap;
      renderOverview(snap);
      renderAlerts(snap);
      renderServers(snap);
      renderGpus(snap);
      var s = renderDetail(snap);
      if (!selected || !s) {
        return null;
      }
      return getJson('api/history?server=' + encodeURIComponent(selected))
        .then(function (h) { renderCharts(h, s); }, function () { renderCharts(null, s); });
    }).then(function () {
      setStatus('updated ' + new Date().toLocaleTimeString() + ', every ' + state.intervalMs / 1000 + ' s', false);
    }, function (e) {
      setStatus('agent unreachable: ' + e.message, true);
    }).then(function () {
      state.renders++;
      document.body.setAttribute('data-renders', String(state.renders));
      state.timer = setTimeout(refresh, state.intervalMs);
    });
  }

  getJson('api/history').then(function (index) {
    if (isNum(index.intervalSeconds) && index.intervalSeconds > 0) {
      state.intervalMs = index.intervalSeconds * 1000;
    }
  }, function () { /* keep the default interval */ }).then(refresh);
})();
