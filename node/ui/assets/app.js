// The swarmwage dashboard. Reads the node through its control API with the
// session cookie (and the CSRF header); live job events arrive over
// server-sent events from GET /v1/events. The DOM is built with textContent
// only: job inputs and outputs come from strangers.
(function () {
  'use strict';

  const CSRF_HEADER = 'X-Swarmwage-Dashboard';
  const FINAL = ['released', 'refunded', 'disputed', 'failed'];
  // OUTCOMES are the job states of the control API's "state" field (the
  // README's "Job states"): one word for a job, as 'jobs list' shows it.
  const OUTCOMES = ['running', 'delivered', 'released', 'refunded', 'disputed', 'failed'];
  const OUTCOME_LABEL = {
    running: 'running', delivered: 'awaiting settlement', released: 'released', refunded: 'refunded',
    verification_failed: 'verification failed', failed: 'failed', timed_out: 'timed out', disputed: 'disputed',
  };
  const MAX_SHOWN_BYTES = 64 << 10;
  // MAX_JOB_ROWS is the page of newest jobs the jobs table shows;
  // MAX_ESCROWS the escrow records read to join their states (the API's
  // largest page).
  const MAX_JOB_ROWS = 500;
  const MAX_ESCROWS = 1000;
  // REFRESH_DELAY_MS coalesces a burst of job events into one reload.
  const REFRESH_DELAY_MS = 250;

  const state = {
    id: null, peers: null, wallet: null, listings: null, jobs: null, escrows: null, summary: null,
    moreJobs: false,
    filters: { role: '', capability: '', outcome: '' },
    route: null,
    events: null,
  };

  // ---- DOM helpers ----

  // HIDDEN matches what changes or hides text without showing itself:
  // C0 and C1 controls but tab and newline, bidi marks, embeddings,
  // overrides and isolates, zero-width characters. Peers' text passes
  // through safe, which shows each as \u202e, so a U+202E in a seller's
  // output cannot reorder what the buyer reads. The same list as Go's
  // internal/safetext (checked by the browser test).
  const HIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;
  function safe(s) {
    return String(s).replace(HIDDEN, c => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
  }
  window.swarmwageSafe = safe;

  function h(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === 'text') e.textContent = safe(v);
      else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v === true ? '' : safe(v));
    }
    for (const kid of kids.flat()) {
      if (kid === null || kid === undefined || kid === false) continue;
      e.appendChild(typeof kid === 'string' || typeof kid === 'number' ? document.createTextNode(safe(kid)) : kid);
    }
    return e;
  }
  const $ = id => document.getElementById(id);
  function clear(e) { while (e.firstChild) e.removeChild(e.firstChild); return e; }
  function short(id) { return id && id.length > 16 ? id.slice(0, 8) + '\u2026' + id.slice(-6) : (id || ''); }
  function peerCell(id) { return h('span', { class: 'mono', title: id || '' }, short(id)); }
  function when(iso) {
    if (!iso || iso.startsWith('0001-')) return '';
    const d = new Date(iso);
    return isNaN(d) ? iso : d.toLocaleString();
  }
  function duration(ms) {
    if (ms === null || ms === undefined || isNaN(ms)) return '';
    if (ms < 1) return '<1 ms';
    if (ms < 1000) return Math.round(ms) + ' ms';
    if (ms < 60000) return (ms / 1000).toFixed(1) + ' s';
    if (ms < 3600000) return Math.round(ms / 60000) + ' min';
    return (ms / 3600000).toFixed(1) + ' h';
  }
  // jobTime is how long a job ran: the seller's own measure, else from the
  // escrow's lock to the delivery.
  function jobTime(j, esc) {
    if (j.duration_ms > 0) return j.duration_ms;
    if (esc && esc.delivered_at) return new Date(esc.delivered_at) - new Date(esc.created_at);
    return null;
  }
  function badge(outcome) { return h('span', { class: 'badge ' + outcome, 'data-outcome': outcome }, OUTCOME_LABEL[outcome] || outcome); }
  function card(label, value, sub, cls) {
    return h('div', { class: 'card' + (cls ? ' ' + cls : '') },
      h('div', { class: 'label' }, label),
      h('div', { class: 'value' + (cls && /mono|small/.test(cls) ? ' small' : ''), 'data-field': label.toLowerCase() }, value),
      sub ? h('div', { class: 'sub' }, sub) : null);
  }
  function pretty(raw) {
    if (raw === null || raw === undefined) return '(none)';
    let s = typeof raw === 'string' ? raw : JSON.stringify(raw, null, 2);
    if (s.length > MAX_SHOWN_BYTES) s = s.slice(0, MAX_SHOWN_BYTES) + '\n\u2026 (' + s.length + ' characters; shortened here, complete in \'swarmwage jobs show\')';
    return s;
  }
  // amount writes s in the node's unit: credits, or on the evm rail the
  // escrow's token (6 decimals, such as USDC).
  function unit() { return state.wallet && state.wallet.rail === 'evm' ? 'tokens' : 'credits'; }
  function amount(s) { return (s || '0') + ' ' + unit(); }

  // ---- API ----

  class APIError extends Error {
    constructor(status, message) { super(message); this.status = status; }
  }

  async function api(method, path, body) {
    const opts = { method, headers: { [CSRF_HEADER]: '1' }, credentials: 'same-origin', cache: 'no-store' };
    if (body !== undefined) {
      opts.headers['Content-Type'] = 'application/json';
      opts.body = JSON.stringify(body);
    }
    const r = await fetch(path, opts);
    if (r.status === 204) return null;
    let data = null;
    try { data = await r.json(); } catch (e) { /* not JSON */ }
    if (!r.ok) {
      const err = new APIError(r.status, (data && data.error) || ('the daemon answered ' + r.status));
      if (r.status === 401 && path.startsWith('/v1/')) showLogin('Your session ended: ' + err.message);
      throw err;
    }
    return data;
  }

  const loaders = {
    id: () => api('GET', '/v1/id'),
    peers: () => api('GET', '/v1/peers'),
    wallet: () => api('GET', '/v1/wallet'),
    listings: () => api('GET', '/v1/listings').then(d => d.listings),
    jobs: () => api('GET', '/v1/jobs?limit=' + MAX_JOB_ROWS).then(d => { state.moreJobs = !!d.next_cursor; return d.jobs; }),
    escrows: () => api('GET', '/v1/escrow?limit=' + MAX_ESCROWS).then(d => d.escrows),
    summary: () => api('GET', '/v1/dashboard/summary'),
  };

  async function load(...keys) {
    const got = await Promise.all(keys.map(k => loaders[k]()));
    keys.forEach((k, i) => { state[k] = got[i]; });
  }

  // ---- login ----

  function showLogin(msg) {
    if (state.events) { state.events.close(); state.events = null; }
    for (const id of ['nav', 'live', 'logout']) $(id).hidden = true;
    clear($('page'));
    $('error').hidden = true;
    $('login-msg').textContent = msg || 'Not logged in.';
    $('login').hidden = false;
    document.body.dataset.auth = 'none';
  }

  function showError(err) {
    const e = $('error');
    e.textContent = safe(err && err.message ? err.message : String(err));
    e.hidden = false;
  }

  async function start() {
    const m = /^#login=([0-9a-f]{16,128})$/.exec(location.hash);
    if (m) {
      // Drop the credential from the address bar and history first, whatever
      // the exchange's outcome.
      history.replaceState(null, '', location.pathname + '#/overview');
      try {
        await api('POST', '/ui/session', { credential: m[1] });
      } catch (err) {
        return showLogin(err.message);
      }
    }
    try {
      // The wallet says the rail, hence the unit every page writes amounts in.
      await load('id', 'wallet');
    } catch (err) {
      if (err.status === 401) return showLogin(m ? err.message : 'Not logged in.');
      return showError(err);
    }
    $('login').hidden = true;
    for (const id of ['nav', 'live', 'logout']) $(id).hidden = false;
    document.body.dataset.auth = 'session';
    $('logout').addEventListener('click', async () => {
      try { await api('POST', '/ui/logout'); } catch (e) { /* logged out anyway */ }
      showLogin('Logged out.');
    });
    window.addEventListener('hashchange', route);
    connectEvents();
    route();
  }

  // ---- live events ----

  let refreshTimer = null;

  function connectEvents() {
    const es = new EventSource('/v1/events');
    state.events = es;
    const live = $('live');
    let dropped = false;
    const kick = () => {
      clearTimeout(refreshTimer);
      refreshTimer = setTimeout(refresh, REFRESH_DELAY_MS);
    };
    es.onopen = () => {
      live.textContent = 'live';
      live.classList.add('on');
      if (dropped) kick(); // events may have been missed meanwhile
    };
    es.onerror = () => {
      dropped = true;
      live.textContent = 'reconnecting';
      live.classList.remove('on');
      // The browser retries by itself unless the daemon refused the stream
      // (a restarted daemon forgot the session); then ask why, later.
      if (es.readyState === EventSource.CLOSED) retryEvents(es);
    };
    es.addEventListener('job', kick);
    es.addEventListener('resync', kick);
  }

  function retryEvents(es) {
    setTimeout(async () => {
      if (state.events !== es) return;
      try {
        await api('GET', '/v1/id');
        connectEvents();
        refresh();
      } catch (err) {
        if (err.status !== 401) retryEvents(es); // 401 shows the login hint
      }
    }, 3000);
  }

  // refresh reloads what the current page shows and redraws its data.
  async function refresh() {
    const r = state.route;
    const page = pages[r && r.page];
    if (!page) return;
    try {
      if (page.needs) await load(...page.needs);
      if (state.route !== r) return;
      if (page.update) page.update();
      if (page.reload) await page.reload(r);
      $('error').hidden = true;
    } catch (err) {
      if (err.status !== 401) showError(err);
    }
  }

  // ---- routing ----

  function parseRoute() {
    const parts = location.hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
    if (parts[0] === 'jobs' && parts[1]) return { page: 'job', jobID: parts[1] };
    return { page: pages[parts[0]] ? parts[0] : 'overview' };
  }

  async function route() {
    const r = parseRoute();
    state.route = r;
    for (const a of document.querySelectorAll('nav a')) {
      a.classList.toggle('active', a.dataset.page === (r.page === 'job' ? 'jobs' : r.page));
    }
    const page = pages[r.page];
    const root = clear($('page'));
    root.dataset.page = r.page;
    page.mount(root, r);
    try {
      if (page.needs) await load(...page.needs);
      if (state.route !== r) return; // navigated away meanwhile
      if (page.update) page.update();
      if (page.reload) await page.reload(r);
      $('error').hidden = true;
      root.dataset.ready = '1';
    } catch (err) {
      if (err.status !== 401) showError(err);
    }
  }

  // ---- joins ----

  function escrowOf(job) {
    return (state.escrows || []).find(e => e.job_id === job.job_id && e.role === job.role);
  }

  function outcomeOf(job, esc) {
    if (job.state) return job.state;
    if (job.status === 'verification_failed' || job.status === 'timed_out') return job.status;
    if (esc && FINAL.includes(esc.state)) return esc.state;
    if (job.status === 'failed') return 'failed';
    if (job.status === 'running') return 'running';
    return 'delivered';
  }

  function capTotals() {
    const m = {};
    for (const c of (state.summary && state.summary.capabilities) || []) m[c.capability] = c;
    return m;
  }

  // ---- pages ----

  const pages = {};

  pages.overview = {
    needs: ['id', 'peers', 'wallet', 'summary'],
    mount(root) {
      root.appendChild(h('h1', {}, 'Overview'));
      root.appendChild(h('div', { id: 'ov-cards', class: 'cards' }));
      root.appendChild(h('div', { class: 'panel' }, h('h2', {}, 'Balance'), h('div', { id: 'ov-balance', class: 'cards' })));
      root.appendChild(h('div', { class: 'grid2' },
        h('div', { class: 'panel' }, h('h2', {}, 'Connected peers'), h('div', { id: 'ov-peers' })),
        h('div', { class: 'panel' }, h('h2', {}, 'Addresses'), h('div', { id: 'ov-addrs' }))));
    },
    update() {
      const id = state.id, p = state.peers, w = state.wallet, s = state.summary || {};
      clear($('ov-cards')).append(
        card('Peer ID', id.peer_id, null, 'wide mono'),
        card('Network', id.network, id.network === 'amino' ? 'public IPFS DHT' : 'private network'),
        card('Reachability', s.reachability || 'unknown', 'from AutoNAT'),
        card('Peers', String(p.peers.length), p.routing_table + ' in the DHT routing table'),
        card('Listings', String(id.listings.length), id.listings.slice(0, 3).join(', ') + (id.listings.length > 3 ? ', \u2026' : '')),
        card('Version', s.version || 'unknown', null, 'small'));
      renderBalance($('ov-balance'), w);
      const peers = clear($('ov-peers'));
      if (p.peers.length === 0) peers.appendChild(h('div', { class: 'empty' }, 'No peers connected.'));
      else {
        peers.appendChild(h('table', {},
          h('thead', {}, h('tr', {}, h('th', {}, 'Peer'), h('th', {}, 'Address'))),
          h('tbody', {}, p.peers.slice(0, 50).map(x => h('tr', {},
            h('td', {}, peerCell(x.peer_id)),
            h('td', { class: 'mono' }, (x.addrs[0] || '').replace(/\/p2p\/[^/]+$/, '')))))));
      }
      const addrs = clear($('ov-addrs'));
      if (id.addrs.length === 0) addrs.appendChild(h('div', { class: 'empty' }, 'No listen addresses.'));
      else addrs.appendChild(h('pre', {}, id.addrs.join('\n')));
    },
  };

  function renderBalance(root, w) {
    clear(root).append(
      card('Available', amount(w.available), 'free to spend on hires'),
      card('Held', amount(w.held), 'locked in escrow for open jobs'),
      card('Earned', amount(w.earned), 'from jobs sold'),
      card('Paid', amount(w.paid), 'to sellers'),
      card('Pending', amount(w.pending), 'released by timers, not yet confirmed'),
      card('Deposited', amount(w.deposited), w.rail === 'evm' ? 'into the escrow contract, all time' : 'test credits'));
    if (w.withdrawn) root.append(card('Withdrawn', amount(w.withdrawn), 'paid out to the address, all time'));
  }

  // chainLabels names the figures of the wallet's chain document.
  const chainLabels = {
    chain_id: 'Chain ID', block: 'Block', token: 'Tokens at the address', gas: 'Gas at the address (ether)',
    deposit: 'In the escrow contract', free: '\u2026 free', lines: '\u2026 on lines to sellers',
    withdrawing: '\u2026 asked back (under notice)', held: 'Backing open jobs', redeemable: 'Earned, to redeem',
  };

  pages.listings = {
    needs: ['listings', 'summary'],
    mount(root) {
      root.appendChild(h('h1', {}, 'Listings'));
      root.appendChild(h('div', { class: 'panel' }, h('h2', {}, 'What this node sells'), h('div', { id: 'ls-table' })));
      const msg = h('div', { class: 'formmsg', id: 'ls-msg' });
      const form = h('form', { class: 'inline', id: 'ls-form' },
        h('label', { class: 'field' }, 'Capability', h('input', { name: 'capability', class: 'cap', required: true, placeholder: 'compute.statistics.mean', autocomplete: 'off' })),
        h('label', { class: 'field' }, 'Price (credits)', h('input', { name: 'price', class: 'price', required: true, placeholder: '0.01', inputmode: 'decimal' })),
        h('label', { class: 'field' }, 'Handler', h('input', { name: 'handler', class: 'handler', value: 'builtin', placeholder: 'builtin, exec:CMD or http:URL' })),
        h('button', { class: 'primary', type: 'submit' }, 'Add listing'));
      form.addEventListener('submit', async ev => {
        ev.preventDefault();
        const f = new FormData(form);
        msg.className = 'formmsg';
        msg.textContent = 'Adding\u2026';
        try {
          const l = await api('POST', '/v1/listings', {
            capability: String(f.get('capability')).trim(), price: String(f.get('price')).trim(), handler: String(f.get('handler')).trim(),
          });
          msg.textContent = 'Listed ' + l.capability + ' at ' + l.price + ' credits; it is announced now.';
          form.reset();
          await refresh();
        } catch (err) {
          msg.className = 'formmsg bad';
          msg.textContent = safe(err.message);
        }
      });
      root.appendChild(h('div', { class: 'panel' }, h('h2', {}, 'Add a listing'), form, msg,
        h('p', { class: 'muted' }, 'SkillCards and custom schemas: use \'swarmwage sell add\' on the command line.')));
    },
    update() {
      const totals = capTotals();
      const t = clear($('ls-table'));
      if (state.listings.length === 0) {
        t.appendChild(h('div', { class: 'empty' }, 'Nothing listed yet. Add a listing below or with \'swarmwage sell add\'.'));
        return;
      }
      t.appendChild(h('table', { id: 'listings' },
        h('thead', {}, h('tr', {}, h('th', {}, 'Capability'), h('th', { class: 'num' }, 'Price'), h('th', {}, 'Handler'),
          h('th', { class: 'num' }, 'Jobs served'), h('th', { class: 'num' }, 'Earnings'), h('th', {}, 'Listed'), h('th', {}))),
        h('tbody', {}, state.listings.map(l => {
          const c = totals[l.capability] || { served: 0, earned: '0' };
          return h('tr', { 'data-capability': l.capability },
            h('td', { class: 'mono' }, l.capability),
            h('td', { class: 'num' }, l.price),
            h('td', { class: 'mono' }, l.handler),
            h('td', { class: 'num', 'data-field': 'served' }, String(c.served)),
            h('td', { class: 'num', 'data-field': 'earned' }, c.earned),
            h('td', {}, when(l.created_at)),
            h('td', {}, removeButton(l.capability)));
        }))));
    },
  };

  // removeButton asks for a second click instead of a dialog.
  function removeButton(capID) {
    const b = h('button', { class: 'danger', type: 'button' }, 'Remove');
    let armed = null;
    b.addEventListener('click', async () => {
      if (!armed) {
        b.classList.add('armed');
        b.textContent = 'Click to remove';
        armed = setTimeout(() => { armed = null; b.classList.remove('armed'); b.textContent = 'Remove'; }, 4000);
        return;
      }
      clearTimeout(armed);
      b.disabled = true;
      try {
        await api('DELETE', '/v1/listings/' + encodeURIComponent(capID));
        $('ls-msg').className = 'formmsg';
        $('ls-msg').textContent = 'Removed ' + capID + '.';
        await refresh();
      } catch (err) {
        $('ls-msg').className = 'formmsg bad';
        $('ls-msg').textContent = safe(err.message);
        b.disabled = false;
      }
    });
    return b;
  }

  pages.jobs = {
    needs: ['jobs', 'escrows'],
    mount(root) {
      root.appendChild(h('h1', {}, 'Jobs'));
      const sel = (name, label) => {
        const s = h('select', { name, id: 'filter-' + name });
        s.addEventListener('change', () => { state.filters[name] = s.value; this.update(); });
        return h('label', { class: 'field' }, label, s);
      };
      root.appendChild(h('div', { class: 'filters' }, sel('role', 'Role'), sel('capability', 'Capability'), sel('outcome', 'Outcome'),
        h('span', { id: 'jobs-count', class: 'muted' })));
      root.appendChild(h('div', { class: 'panel' }, h('div', { id: 'jobs-table' })));
    },
    update() {
      const jobs = state.jobs.map(j => {
        const esc = escrowOf(j);
        return { j, esc, outcome: outcomeOf(j, esc) };
      });
      const caps = [...new Set(jobs.map(x => x.j.capability))].sort();
      fillSelect($('filter-role'), [['', 'All'], ['buyer', 'Bought'], ['seller', 'Sold']], state.filters.role);
      fillSelect($('filter-capability'), [['', 'All']].concat(caps.map(c => [c, c])), state.filters.capability);
      fillSelect($('filter-outcome'), [['', 'All']].concat(OUTCOMES.map(o => [o, OUTCOME_LABEL[o]])), state.filters.outcome);
      const f = state.filters;
      const shown = jobs.filter(x => (!f.role || x.j.role === f.role) && (!f.capability || x.j.capability === f.capability) && (!f.outcome || x.outcome === f.outcome));
      $('jobs-count').textContent = shown.length + ' of ' + (state.moreJobs ? 'the newest ' : '') + jobs.length + ' jobs' +
        (state.moreJobs ? ' (\'swarmwage jobs list\' pages through all)' : '');
      const t = clear($('jobs-table'));
      if (shown.length === 0) {
        t.appendChild(h('div', { class: 'empty' }, jobs.length ? 'No job matches the filters.' : 'No jobs yet. Hire with \'swarmwage hire\', or sell something.'));
        return;
      }
      t.appendChild(h('table', { id: 'jobs' },
        h('thead', {}, h('tr', {}, h('th', {}, 'Started'), h('th', {}, 'Role'), h('th', {}, 'Capability'), h('th', {}, 'Counterparty'),
          h('th', { class: 'num' }, 'Price'), h('th', {}, 'Outcome'), h('th', {}, 'Escrow'), h('th', { class: 'num' }, 'Time'))),
        h('tbody', {}, shown.map(({ j, esc, outcome }) => {
          const tr = h('tr', { class: 'link', 'data-job': j.job_id, 'data-role': j.role, 'data-outcome': outcome, title: 'Job ' + j.job_id },
            h('td', {}, when(j.created_at)),
            h('td', {}, j.role === 'buyer' ? 'bought' : 'sold'),
            h('td', { class: 'mono' }, j.capability),
            h('td', {}, peerCell(j.role === 'buyer' ? j.seller : j.buyer)),
            h('td', { class: 'num' }, j.price),
            h('td', {}, badge(outcome)),
            h('td', {}, esc ? esc.state : ''),
            h('td', { class: 'num' }, duration(jobTime(j, esc))));
          tr.addEventListener('click', () => { location.hash = '#/jobs/' + encodeURIComponent(j.job_id); });
          return tr;
        }))));
    },
  };

  function fillSelect(s, options, value) {
    clear(s);
    for (const [v, label] of options) s.appendChild(h('option', { value: v }, label));
    s.value = options.some(o => o[0] === value) ? value : '';
  }

  pages.job = {
    needs: null,
    mount(root, r) {
      root.appendChild(h('p', {}, h('a', { href: '#/jobs' }, '\u2190 All jobs')));
      root.appendChild(h('div', { id: 'job-detail' }, h('div', { class: 'muted' }, 'Loading job ' + r.jobID + '\u2026')));
    },
    async reload(r) {
      const [job, esc] = await Promise.all([
        api('GET', '/v1/jobs/' + encodeURIComponent(r.jobID)),
        api('GET', '/v1/escrow/' + encodeURIComponent(r.jobID)).catch(err => { if (err.status === 404) return null; throw err; }),
      ]);
      if (state.route !== r) return;
      this.job = job; this.esc = esc;
      this.render();
    },
    update() {},
    render() {
      const job = this.job, esc = this.esc, outcome = outcomeOf(job, esc);
      const root = clear($('job-detail'));
      root.dataset.job = job.job_id;
      root.appendChild(h('div', { class: 'detail-head' }, h('h1', { class: 'mono' }, job.capability), badge(outcome)));
      const kv = rows => h('table', { class: 'kv' }, h('tbody', {}, rows.filter(r => r[1] !== '' && r[1] !== undefined && r[1] !== null)
        .map(([k, v]) => h('tr', {}, h('th', {}, k), h('td', {}, v)))));
      root.appendChild(h('div', { class: 'panel' }, h('h2', {}, 'Job'), kv([
        ['Job ID', h('span', { class: 'mono' }, job.job_id)],
        ['Role', job.role === 'buyer' ? 'bought by this node' : 'sold by this node'],
        ['Seller', h('span', { class: 'mono' }, job.seller)],
        ['Buyer', h('span', { class: 'mono' }, job.buyer)],
        ['Price', amount(job.price)],
        ['State', outcomeOf(job, esc)],
        ['Why', job.status === 'verification_failed' ? 'the output failed verification' : job.status === 'timed_out' ? 'no result by the deadline' : ''],
        ['Started', when(job.created_at)],
        ['Updated', when(job.updated_at)],
        ['Duration', duration(jobTime(job, esc))],
        ['Error', job.error || ''],
        ['Rating', job.rating ? job.rating + ' / 5' : ''],
      ])));
      root.appendChild(h('div', { class: 'grid2' },
        h('div', { class: 'panel' }, h('h2', {}, 'Input'), h('pre', { id: 'job-input' }, pretty(job.input))),
        h('div', { class: 'panel' }, h('h2', {}, 'Output'), h('pre', { id: 'job-output' }, pretty(job.output)))));
      const checks = job.checks || [];
      root.appendChild(h('div', { class: 'panel', id: 'job-checks' }, h('h2', {}, 'Verification'),
        job.passed === undefined || job.passed === null
          ? h('p', { class: 'muted' }, job.role === 'seller' ? 'The buyer verifies the output on its own machine; its decision is in the settle receipt below.' : 'Not verified (yet).')
          : h('p', {}, job.passed ? h('span', { class: 'badge pass' }, 'passed ' + checks.filter(c => c.passed).length + '/' + checks.length)
            : h('span', { class: 'badge fail' }, 'failed: ' + checks.filter(c => !c.passed).length + ' of ' + checks.length + ' checks')),
        checks.length ? h('table', {}, h('thead', {}, h('tr', {}, h('th', {}), h('th', {}, 'Check'), h('th', {}, 'Detail'))),
          h('tbody', {}, checks.map(c => h('tr', { 'data-check': c.name, 'data-passed': String(c.passed) },
            h('td', { class: c.passed ? 'check-ok' : 'check-bad' }, c.passed ? '\u2713' : '\u2717'),
            h('td', { class: 'mono' }, c.name), h('td', {}, c.detail || ''))))) : null));
      if (!esc) {
        root.appendChild(h('div', { class: 'panel' }, h('h2', {}, 'Escrow'), h('p', { class: 'muted' }, 'No escrow record for this job.')));
        return;
      }
      root.appendChild(h('div', { class: 'panel', id: 'job-escrow' }, h('h2', {}, 'Escrow'), kv([
        ['State', h('span', { class: 'badge ' + esc.state, 'data-state': esc.state }, esc.state + (esc.provisional ? ' (provisional)' : ''))],
        ['Amount', amount(esc.amount)],
        ['Reason', esc.reason || ''],
        ['Failed checks', (esc.failed_checks || []).join(', ')],
        ['Deadline', when(esc.deadline)],
        ['Verification window', esc.window_ms ? duration(esc.window_ms) : ''],
        ['Delivered', when(esc.delivered_at)],
        ['Settled', when(esc.settled_at)],
        ['Final at', esc.provisional ? when(esc.final_at) : ''],
        ['Input hash', h('span', { class: 'mono' }, esc.input_hash || '')],
        ['Output hash', h('span', { class: 'mono' }, esc.output_hash || '')],
      ])));
      const receipt = (name, who, msg) => msg
        ? h('details', { class: 'receipt', open: true, 'data-receipt': name.toLowerCase() },
          h('summary', {}, name + ' \u2014 signed by the ' + who),
          h('pre', {}, JSON.stringify(msg, null, 2)))
        : h('p', { class: 'muted', 'data-receipt-missing': name.toLowerCase() }, 'No ' + name.toLowerCase() + ' yet.');
      root.appendChild(h('div', { class: 'panel', id: 'job-receipts' }, h('h2', {}, 'Signed receipts'),
        h('p', { class: 'muted' }, 'The same evidence as \'swarmwage escrow show ' + job.job_id + '\': each message is stable JSON signed with its author\'s node key.'),
        receipt('Lock', 'buyer', esc.lock), receipt('Delivery', 'seller', esc.delivery), receipt('Settle', 'buyer', esc.settle)));
    },
  };

  pages.money = {
    needs: ['wallet', 'summary'],
    mount(root) {
      root.appendChild(h('h1', {}, 'Money'));
      root.appendChild(h('div', { id: 'money-balance', class: 'cards' }));
      root.appendChild(h('section', { id: 'evm', class: 'panel', hidden: true },
        h('h2', {}, 'On-chain (evm rail)'), h('div', { id: 'evm-body' })));
      root.appendChild(h('div', { class: 'panel' }, h('h2', {}, 'Earnings and spending per day'),
        h('div', { class: 'legend' }, h('span', { class: 'earned' }, 'earned'), h('span', { class: 'spent' }, 'spent')),
        h('div', { id: 'chart-days' })));
      root.appendChild(h('div', { class: 'panel' }, h('h2', {}, 'Per capability (all time)'),
        h('div', { class: 'legend' }, h('span', { class: 'earned' }, 'earned'), h('span', { class: 'spent' }, 'spent')),
        h('div', { id: 'chart-caps' }), h('div', { id: 'money-table' })));
    },
    update() {
      const w = state.wallet, s = state.summary;
      renderBalance($('money-balance'), w);
      renderEVM(w);
      const charts = window.swarmwageCharts;
      clear($('chart-days')).appendChild(charts.groupedBars(s.days, {
        label: unit() + ' earned and spent per day', unit: unit() + ' per day, by the day each job settled',
        empty: 'Nothing settled in the last ' + s.days.length + ' days.',
      }));
      const caps = s.capabilities.filter(c => parseFloat(c.earned) > 0 || parseFloat(c.spent) > 0);
      clear($('chart-caps')).appendChild(charts.horizontalBars(caps, { label: unit() + ' per capability', empty: 'Nothing earned or spent yet.' }));
      const t = clear($('money-table'));
      if (s.capabilities.length) {
        t.appendChild(h('table', { id: 'money-caps' },
          h('thead', {}, h('tr', {}, h('th', {}, 'Capability'), h('th', { class: 'num' }, 'Sold'), h('th', { class: 'num' }, 'Earned'),
            h('th', { class: 'num' }, 'Pending'), h('th', { class: 'num' }, 'Bought'), h('th', { class: 'num' }, 'Spent'))),
          h('tbody', {}, s.capabilities.map(c => h('tr', { 'data-capability': c.capability },
            h('td', { class: 'mono' }, c.capability), h('td', { class: 'num' }, String(c.sold)), h('td', { class: 'num', 'data-field': 'earned' }, c.earned),
            h('td', { class: 'num' }, c.pending), h('td', { class: 'num' }, String(c.bought)), h('td', { class: 'num', 'data-field': 'spent' }, c.spent))))));
      }
    },
  };

  // withdrawResult is what the last withdrawal from this page answered.
  let withdrawResult = { text: '', bad: false };

  // renderEVM fills the on-chain section, shown only on the evm rail: the
  // wallet document then has rail "evm", address, and chain (name -> amount),
  // or chain_error when the chain could not be read.
  function renderEVM(w) {
    const sec = $('evm');
    sec.hidden = w.rail !== 'evm';
    if (sec.hidden) return;
    const body = clear($('evm-body'));
    body.appendChild(h('table', { class: 'kv' }, h('tbody', {},
      h('tr', {}, h('th', {}, 'Address'), h('td', { class: 'mono', 'data-field': 'address' }, w.address || '')),
      Object.entries(w.chain || {}).map(([k, v]) => h('tr', {}, h('th', {}, chainLabels[k] || k), h('td', { 'data-field': 'chain ' + k }, String(v)))))));
    if (w.chain_error) body.appendChild(h('p', { class: 'formmsg bad', 'data-field': 'chain error' }, 'Chain: ' + w.chain_error));
    // A withdrawal takes all the node may take now; line money still under
    // the contract's notice is asked back and comes with a later one.
    // The result outlives the re-render that the refresh after it causes.
    const msg = h('div', { class: withdrawResult.bad ? 'formmsg bad' : 'formmsg', 'data-field': 'withdraw result' }, withdrawResult.text);
    const button = h('button', { class: 'primary', type: 'button', id: 'withdraw' }, 'Withdraw to the address');
    button.addEventListener('click', async () => {
      msg.className = 'formmsg';
      msg.textContent = 'Sending\u2026';
      button.disabled = true;
      try {
        const r = await api('POST', '/v1/wallet/withdraw', {});
        withdrawResult = { text: 'Withdrawn ' + r.withdrawn + '; pending (under notice) ' + r.pending + '.', bad: false };
      } catch (err) {
        withdrawResult = { text: err.message, bad: true };
      }
      await refresh();
    });
    body.append(h('p', {}, 'Withdraw pays the deposit the node may take now to its address, redeems what it earned, and asks back the money on its lines, which the contract pays after its notice.'), button, msg);
  }

  start();
})();
