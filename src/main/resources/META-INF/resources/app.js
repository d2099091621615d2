// provbench live page: polls the REST API once a second and draws the current run. No external resources.
'use strict';

const $ = (id) => document.getElementById(id);
let shown = null;       // id of the run on display
let following = true;   // show the newest run automatically

function fmt(v, digits) {
  if (v === null || v === undefined) return '–';
  return Number(v).toLocaleString('en-US', { maximumFractionDigits: digits === undefined ? 2 : digits });
}

function text(el, v) { if (el.textContent !== String(v)) el.textContent = v; }

// The API needs a bearer token. The URL provbench prints at start carries it once (?token=…): it is kept for
// this tab only (sessionStorage) and removed from the address bar, so it is not in later URLs or history.
const TOKEN_KEY = 'provbench-token';
(function takeTokenFromUrl() {
  const q = new URLSearchParams(location.search);
  if (q.has('token')) {
    sessionStorage.setItem(TOKEN_KEY, q.get('token'));
    q.delete('token');
    const rest = q.toString();
    history.replaceState(null, '', location.pathname + (rest ? '?' + rest : '') + location.hash);
  }
})();

function token() {
  const typed = $('token').value.trim();
  if (typed) sessionStorage.setItem(TOKEN_KEY, typed);
  return sessionStorage.getItem(TOKEN_KEY) || '';
}

function authHeaders(extra) {
  const h = Object.assign({}, extra || {});
  const t = token();
  if (t) h.Authorization = 'Bearer ' + t;
  return h;
}

async function json(url, options) {
  const o = Object.assign({ cache: 'no-store' }, options || {});
  o.headers = authHeaders(o.headers);
  const r = await fetch(url, o);
  if (r.status === 401) {
    const a = $('auth');
    a.className = 'error';
    text(a, 'The API needs its token: open the address provbench printed at start (…/?token=…) or paste the '
      + 'token below.');
  } else if (r.ok) {
    text($('auth'), '');
  }
  const body = await r.text();
  let data = null;
  try { data = body ? JSON.parse(body) : null; } catch (e) { data = { error: body }; }
  return { status: r.status, data };
}

// A line chart in an SVG element: points [[x, y], ...], y axis from 0.
function chart(svg, title, points, color) {
  const W = 760, H = 220, L = 52, R = 14, T = 26, B = 30;
  const maxX = Math.max(1e-9, ...points.map(p => p[0]));
  let maxY = Math.max(0, ...points.map(p => p[1]));
  if (maxY <= 0) maxY = 1;
  const mag = Math.pow(10, Math.floor(Math.log10(maxY)));
  maxY = [1, 2, 2.5, 5, 10].map(m => m * mag).find(v => v >= maxY);
  const px = x => L + (W - L - R) * x / maxX;
  const py = y => T + (H - T - B) * (1 - y / maxY);
  let s = `<text x="${L}" y="16">${title}</text>`;
  for (let k = 0; k <= 4; k++) {
    const v = maxY * k / 4, y = py(v);
    s += `<line x1="${L}" x2="${W - R}" y1="${y.toFixed(1)}" y2="${y.toFixed(1)}" stroke="#e3e7eb"/>`;
    s += `<text x="${L - 6}" y="${(y + 4).toFixed(1)}" text-anchor="end">${fmt(v)}</text>`;
  }
  s += `<text x="${L}" y="${H - 8}">0 s</text>`;
  s += `<text x="${W - R}" y="${H - 8}" text-anchor="end">${fmt(maxX, 0)} s</text>`;
  if (points.length > 0) {
    const d = points.map((p, i) => `${i ? 'L' : 'M'}${px(p[0]).toFixed(1)},${py(p[1]).toFixed(1)}`).join(' ');
    s += `<path class="series" data-points="${points.length}" fill="none" stroke="${color}" stroke-width="2" d="${d}"/>`;
  } else {
    s += `<text x="${(W / 2)}" y="${H / 2}" text-anchor="middle">waiting for data…</text>`;
  }
  svg.innerHTML = s;
}

function esc(t) {
  return String(t).replace(/[&<>"]/g, c => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
}

// Where an op's time goes: one bar per stage, from its mean start to its mean end (the server's figures).
function waterfall(svg, title, stages) {
  const W = 760, H = 220, L = 190, T = 26, row = Math.min(26, (H - T - 8) / Math.max(1, (stages || []).length));
  let s = `<text x="6" y="16">${esc(title)}</text>`;
  if (!stages || stages.length === 0 || stages.every(x => x.n === 0)) {
    svg.innerHTML = s + `<text x="${W / 2}" y="${H / 2}" text-anchor="middle">waiting for the window's ops…</text>`;
    svg.dataset.stages = 0;
    return;
  }
  const total = stages.reduce((a, x) => a + Math.max(0, x.mean), 0) || 1;
  const scale = (W - L - 110) / total;
  let at = 0;
  stages.forEach((x, i) => {
    const y = T + i * row, m = Math.max(0, x.mean);
    const color = x.clocks === 'tool+driver' ? '#d9480f' : '#2563eb';
    s += `<text x="6" y="${(y + row * 0.65).toFixed(1)}">${esc(x.stage)}</text>`;
    s += `<rect x="${(L + at * scale).toFixed(1)}" y="${(y + 3).toFixed(1)}" width="${Math.max(1, m * scale).toFixed(1)}" `
      + `height="${(row - 6).toFixed(1)}" fill="${color}"><title>${esc(x.stage)}: mean ${fmt(x.mean)} ms, p99 ${fmt(x.p99)}, n=${x.n}</title></rect>`;
    s += `<text x="${(L + (at + m) * scale + 4).toFixed(1)}" y="${(y + row * 0.65).toFixed(1)}">${fmt(x.mean)} ms</text>`;
    at += m;
  });
  svg.innerHTML = s;
  svg.dataset.stages = stages.length;
}

function reportLinks(run) {
  const l = run.links || {};
  return ['json', 'markdown', 'bench', 'html'].filter(f => l[f])
    .map(f => `<a href="${l[f]}" data-report="${f}">${f}</a>`).join(' · ');
}

function drawRun(run) {
  text($('run-id'), run.id);
  const st = $('state');
  text(st, run.state);
  st.className = 'state ' + run.state;
  const p = run.progress;
  const req = run.request || {};
  text($('run-summary'), `${req.local ? 'local' : 'storage class ' + req.storageClass + ', namespace ' + req.namespace}, `
    + `${req.threads} workers, ${req.cycles ? req.cycles + ' cycles' : req.duration}, `
    + `client qps/burst ${req.qps < 0 ? 'unlimited' : req.qps + '/' + req.burst}`
    + (run.started ? `, started ${new Date(run.started).toLocaleTimeString()}` : ''));
  if (p) {
    text($('ops-recent'), fmt(p.recentOpsPerSecond));
    text($('ops'), p.opsPerSecond == null ? 'warm-up' : fmt(p.opsPerSecond));
    text($('phase'), p.phase);
    text($('creates'), fmt(p.creates, 0));
    text($('deletes'), fmt(p.deletes, 0));
    text($('failures'), fmt(p.failures, 0));
    text($('in-flight'), fmt(p.inFlight, 0));
    text($('requests'), fmt(p.requests, 0));
    text($('throttled'), fmt(p.throttled, 0));
    text($('wait'), fmt(p.throttleWaitSeconds, 1));
    const frac = p.plannedSeconds ? p.windowSeconds / p.plannedSeconds
      : p.plannedCycles ? Math.min(p.creates, p.deletes) / p.plannedCycles : 0;
    $('bar-fill').style.width = (run.state === 'running' || run.state === 'pending'
      ? Math.min(100, 100 * frac) : 100) + '%';
    const samples = p.samples || [];
    chart($('ops-chart'), 'ops/s (creates + deletes, last 5 s; the server\'s figures)', samples.map(s => [s.t, s.opsPerSecond]), '#2563eb');
    chart($('throttled-chart'), 'requests throttled by provbench\'s client-side limiter (cumulative)', samples.map(s => [s.t, s.throttled]), '#d9480f');
    $('shared').hidden = !p.sharedWith;
    text($('shared'), p.sharedWith || '');
    const st = p.stages || {};
    waterfall($('waterfall-create'), 'where a create\'s time goes (mean ms per stage, window ops so far)', st.create);
    waterfall($('waterfall-delete'), 'where a delete\'s time goes (mean ms per stage, window ops so far)', st.delete);
  }
  const links = reportLinks(run);
  $('reports').innerHTML = links ? 'Report: ' + links : '';
  text($('message'), run.message || '');
  $('message').className = run.state === 'failed' ? 'error' : 'muted';
  $('abort').hidden = !(run.state === 'running' || run.state === 'pending');
}

function drawList(runs) {
  const rows = runs.map(r => `<tr data-id="${r.id}"><td><a href="#${r.id}">${r.id}</a></td>`
    + `<td><span class="state ${r.state}">${r.state}</span></td>`
    + `<td>${r.started ? new Date(r.started).toLocaleString() : ''}</td>`
    + `<td>${r.finished ? new Date(r.finished).toLocaleString() : ''}</td><td>${reportLinks(r)}</td></tr>`).join('');
  const body = $('runs').tBodies[0];
  if (body.innerHTML !== rows) body.innerHTML = rows;
}

// The newest sweep: where it is and its cells filling in, as GET /api/sweeps/{id} has them (median [95 % CI]).
function stat(m) {
  if (!m) return '–';
  const finite = Number.isFinite(m.ciLow) && Number.isFinite(m.ciHigh);
  return fmt(m.median, 3) + (finite ? ` [${fmt(m.ciLow, 3)}, ${fmt(m.ciHigh, 3)}]` : ` (${fmt(m.min, 3)}–${fmt(m.max, 3)})`);
}

async function drawSweep() {
  const list = await json('/api/sweeps');
  const sweeps = (list.status === 200 && list.data) || [];
  $('sweep').hidden = sweeps.length === 0;
  if (!sweeps.length) return;
  const one = await json('/api/sweeps/' + sweeps[0].id);
  if (one.status !== 200) return;
  const s = one.data;
  text($('sweep-id'), s.id);
  text($('sweep-state'), s.state);
  $('sweep-state').className = 'state ' + s.state;
  const p = s.progress || {};
  text($('sweep-progress'), `${p.runsDone || 0} of ${p.runs} runs ended`
    + (p.seq ? ` · now run ${p.seq}: cell ${p.cell} (${p.cellLabel}), repeat ${p.repeat}` : '')
    + (p.etaSeconds !== undefined && p.etaSeconds !== null ? ` · ETA ${Math.round(p.etaSeconds)} s` : '')
    + (s.message ? ` · ${s.message}` : ''));
  const r = s.result;
  const axes = r ? (r.varying.length ? r.varying : ['qps']) : [];
  const head = `<tr><th>cell</th>${axes.map(a => `<th>${a}</th>`).join('')}<th>n</th><th>ops/s</th>`
    + '<th>create p99 ms</th><th>provisioner throttling lines</th></tr>';
  const rows = r ? r.cells.map(c => `<tr><td>${c.index}</td>${axes.map(a => `<td>${c.settings[a]}</td>`).join('')}`
    + `<td>${c.n}</td><td>${stat(c.metrics['ops/s'])}</td><td>${stat(c.metrics['create-pipeline-p99-ms'])}</td>`
    + `<td>${stat(c.metrics['provisioner-throttling-lines'])}</td></tr>`).join('') : '';
  const t = $('sweep-cells');
  if (t.tHead.innerHTML !== head) t.tHead.innerHTML = head;
  if (t.tBodies[0].innerHTML !== rows) t.tBodies[0].innerHTML = rows;
  const recs = r ? r.recommendations.map(x => `<li>${x.tool}: <code>${x.text}</code></li>`).join('') : '';
  if ($('sweep-recommendations').innerHTML !== recs) $('sweep-recommendations').innerHTML = recs;
  const links = Object.entries(s.links || {}).filter(([k]) => ['json', 'markdown', 'bench', 'html'].includes(k))
    .map(([k, v]) => `<a href="${v}" data-report="${k}">${k}</a>`).join(' · ');
  $('sweep-reports').innerHTML = links ? 'Result: ' + links : '';
}

async function tick() {
  try {
    const list = await json('/api/runs');
    const runs = list.data || [];
    drawList(runs);
    if (following || !shown) shown = runs.length ? runs[0].id : null;
    if (shown) {
      const one = await json('/api/runs/' + shown);
      if (one.status === 200) drawRun(one.data);
    }
    await drawSweep();
    const d = await json('/driver/stats');
    if (d.status === 200) {
      text($('driver'), d.data.serving ? `driver on ${d.data.endpoint}: ${d.data.volumes} volumes, `
        + `${d.data.volumesCreated} created, ${d.data.volumesDeleted} deleted` : 'driver: not serving');
    }
    document.body.dataset.updated = new Date().toISOString();
  } catch (e) {
    text($('driver'), 'cannot reach provbench: ' + e);
  }
}

// Report links fetch with the token and open what came back (a plain link cannot send the header).
document.addEventListener('click', async (ev) => {
  const a = ev.target.closest('a[data-report]');
  if (!a) return;
  ev.preventDefault();
  const r = await fetch(a.getAttribute('href'), { headers: authHeaders(), cache: 'no-store' });
  if (!r.ok) { $('message').className = 'error'; text($('message'), `report: HTTP ${r.status}`); return; }
  const url = URL.createObjectURL(await r.blob());
  if (a.dataset.report === 'html') {
    window.open(url, '_blank', 'noopener');
  } else {
    const d = document.createElement('a');
    d.href = url; d.download = `provbench-${shown}.${{ json: 'json', markdown: 'md', bench: 'txt' }[a.dataset.report] || 'txt'}`;
    d.click();
  }
  setTimeout(() => URL.revokeObjectURL(url), 60000);
});

$('start').addEventListener('click', async () => {
  const out = $('start-result');
  const r = await json('/api/runs', { method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: $('request').value });
  if (r.status === 202) {
    out.className = ''; text(out, 'started ' + r.data.id);
    following = true; shown = r.data.id; tick();
  } else {
    out.className = 'error'; text(out, `${r.status}: ${(r.data && r.data.error) || ''}`);
  }
});

$('abort').addEventListener('click', async () => {
  if (!shown) return;
  const r = await json('/api/runs/' + shown, { method: 'DELETE' });
  if (r.status !== 202) { $('message').className = 'error'; text($('message'), (r.data && r.data.error) || r.status); }
});

window.addEventListener('hashchange', () => {
  const id = location.hash.slice(1);
  following = !id; shown = id || null; tick();
});

if (location.hash.length > 1) { following = false; shown = location.hash.slice(1); }
tick();
setInterval(tick, 1000);
