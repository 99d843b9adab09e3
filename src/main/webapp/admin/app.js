// Roost admin console: plain ES module over the admin API (/api/v1/admin/...) and the read APIs
// operators already have. Everything from the server goes into the page as text, never as HTML.

let csrf = null;
let refresh = null;

class ApiError extends Error {
  constructor(problem) {
    super(problem.detail || problem.title || 'Request failed');
    this.problem = problem;
  }
}

async function api(method, path, body) {
  const headers = { 'Accept': 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (csrf && method !== 'GET') headers['X-CSRF-Token'] = csrf;
  const response = await fetch('/api' + path, {
    method, headers, credentials: 'same-origin', body: body === undefined ? undefined : JSON.stringify(body)
  });
  if (response.status === 204) return null;
  const text = await response.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch (e) { data = { title: response.statusText, detail: text.slice(0, 200) }; }
  if (!response.ok) {
    const problem = data || { title: response.statusText };
    problem.status = problem.status || response.status;
    throw new ApiError(problem);
  }
  return data;
}

// ---- little DOM helpers ----

function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (v !== undefined && v !== null && v !== false) el.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

function view(...children) {
  const v = document.getElementById('view');
  v.replaceChildren(...children);
  return v;
}

function notice(message, isError) {
  const n = document.getElementById('notice');
  n.textContent = message;
  n.className = isError ? 'error' : '';
  n.hidden = false;
}

function showError(e) {
  if (e instanceof ApiError) {
    const p = e.problem;
    const type = (p.type || '').replace('urn:roost:problem:', '');
    notice(`${p.title || 'Error'} (${p.status || '?'}${type ? ', ' + type : ''}): ${p.detail || ''}`, true);
    if (p.status === 401) showLogin();
  } else {
    notice('Error: ' + e.message, true);
  }
}

/** Asks before an action, runs it, and says how it ended. */
function confirmThen(question, action, done) {
  const dialog = document.getElementById('confirm');
  document.getElementById('confirm-text').textContent = question;
  dialog.returnValue = '';
  dialog.onclose = async () => {
    if (dialog.returnValue !== 'ok') return;
    try {
      const result = await action();
      notice(done(result));
      route();
    } catch (e) {
      showError(e);
    }
  };
  dialog.showModal();
}

function table(columns, rows, onClick) {
  return h('div', { class: 'table-wrap' }, h('table', {},
    h('thead', {}, h('tr', {}, columns.map(c => h('th', {}, c[0])))),
    h('tbody', {}, rows.length === 0
      ? h('tr', {}, h('td', { colspan: columns.length }, 'Nothing here.'))
      : rows.map(r => h('tr', { class: onClick ? 'clickable' : null, onclick: onClick ? () => onClick(r) : null },
          columns.map(c => h('td', {}, typeof c[1] === 'function' ? c[1](r) : r[c[1]])))))));
}

function pager(page, next) {
  return page.next ? h('div', { class: 'toolbar' }, h('button', { class: 'quiet', id: 'next-page', onclick: () => next(page.next) }, 'Next page')) : null;
}

function time(t) {
  return t ? new Date(t).toLocaleString() : '';
}

function card(label, value, sub, id) {
  return h('div', { class: 'card' }, h('div', { class: 'label' }, label), h('div', { class: 'value', id }, value),
    sub ? h('div', { class: 'sub' }, sub) : null);
}

function searchForm(placeholder, value, onSearch) {
  const input = h('input', { name: 'q', placeholder, value: value || '' });
  return h('form', { class: 'search', onsubmit: e => { e.preventDefault(); onSearch(input.value.trim()); } },
    input, h('button', { type: 'submit' }, 'Search'));
}

// ---- charts: one SVG line per metric ----

function chart(title, points) {
  const w = 320, hgt = 140, pad = 28;
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('class', 'chart');
  svg.setAttribute('viewBox', `0 0 ${w} ${hgt}`);
  const text = (x, y, s, anchor) => {
    const t = document.createElementNS(svg.namespaceURI, 'text');
    t.setAttribute('x', x); t.setAttribute('y', y);
    if (anchor) t.setAttribute('text-anchor', anchor);
    t.textContent = s;
    svg.append(t);
  };
  text(pad, 14, title);
  if (!points || points.length === 0) {
    text(w / 2, hgt / 2, 'no samples yet', 'middle');
    return svg;
  }
  const xs = points.map(p => p[0]), ys = points.map(p => p[1]);
  const x0 = Math.min(...xs), x1 = Math.max(...xs, x0 + 1), y1 = Math.max(...ys, 1);
  const line = document.createElementNS(svg.namespaceURI, 'polyline');
  line.setAttribute('points', points.map(p =>
    `${pad + (p[0] - x0) / (x1 - x0) * (w - 2 * pad)},${hgt - pad + 6 - p[1] / y1 * (hgt - 2 * pad)}`).join(' '));
  svg.append(line);
  text(pad - 4, 30, String(y1), 'end');
  text(pad - 4, hgt - pad + 6, '0', 'end');
  text(pad, hgt - 6, new Date(x0 * 1000).toLocaleTimeString());
  text(w - pad, hgt - 6, new Date(x1 * 1000).toLocaleTimeString(), 'end');
  return svg;
}

// ---- pages ----

async function dashboard(params, view) {
  const range = params.get('range') || '1h';
  const render = async () => {
    const [o, m] = await Promise.all([api('GET', '/v1/admin/overview'), api('GET', '/v1/admin/metrics?range=' + range)]);
    const byType = Object.entries(o.onlineByDeviceType).map(([t, n]) => `${t} ${n}`).join(' · ') || 'no devices';
    const series = Object.fromEntries(m.series.map(s => [s.metric, s.points]));
    return view(
      h('h1', {}, 'Dashboard'),
      h('div', { class: 'cards' },
        card('Online users', o.onlineUsers, byType, 'online-users'),
        card('RTC channels', o.rtcChannels, `${o.rtcOnline.broadcasters} hosts · ${o.rtcOnline.audience} audience · ${o.rtcOnline.communication} communication`, 'rtc-channels'),
        card('MQTT clients online', o.mqttOnline, Object.entries(o.mqttOnlineByGroup).slice(0, 3).map(([g, n]) => `${g} ${n}`).join(' · '), 'mqtt-online'),
        card('Live rooms', o.openRooms, `${o.roomViewers} viewers · ${o.roomFans} fans`, 'open-rooms'),
        card('Outbox backlog', o.outboxBacklog, 'messages waiting for RocketMQ', 'outbox-backlog'),
        card('Dead letters', o.deadLetters, 'MQTT notifications set aside', 'dead-letters'),
        card('Database', h('span', { class: o.databaseUp ? 'up' : 'down' }, o.databaseUp ? 'up' : 'down')),
        card('RocketMQ', h('span', { class: o.brokerUp ? 'up' : 'down' }, o.brokerUp ? 'up' : 'down'))),
      h('div', { class: 'toolbar' }, h('h2', {}, 'History'),
        ...['1h', '6h', '1d', '7d'].map(r => h('a', { href: '#/dashboard?range=' + r, class: r === range ? 'active' : null }, r))),
      h('div', { class: 'charts' },
        chart('online users', series.online_users), chart('RTC members', series.rtc_members),
        chart('room viewers', series.room_viewers), chart('MQTT clients online', series.mqtt_online)),
      h('h2', {}, 'Nodes'),
      h('div', { id: 'nodes' }, table([['node', 'id'], ['address', 'address'], ['connections', 'connections'],
        ['last heartbeat', r => time(r.lastHeartbeat)], ['started', r => time(r.startedAt)],
        ['state', r => h('span', { class: r.alive ? 'up' : 'down' }, r.alive ? 'alive' : 'lost')]], o.nodes)),
      h('h2', {}, 'Consumer lag'),
      table([['consumer group', r => r[0]], ['messages behind', r => r[1] < 0 ? 'unknown' : r[1]]], Object.entries(o.consumerLag)),
      h('h2', {}, 'Busiest live rooms'),
      table([['room', 'roomId'], ['online', 'online'], ['fans', 'onlineFans'], ['anchor', 'anchorId']], o.topRooms,
        r => location.hash = '#/rooms?room=' + encodeURIComponent(r.roomId)),
      h('p', { class: 'sub' }, 'Updated ' + time(o.at)));
  };
  if (await render()) {
    refresh = setInterval(() => render().catch(showError), 3000);
  }
}

async function accounts(params, view) {
  const q = params.get('q') || '';
  const page = await api('GET', `/v1/admin/accounts?q=${encodeURIComponent(q)}&limit=20` + (params.get('after') ? '&after=' + encodeURIComponent(params.get('after')) : ''));
  view(h('h1', {}, 'Accounts'),
    searchForm('user name prefix or id', q, v => location.hash = '#/accounts?q=' + encodeURIComponent(v)),
    table([['id', 'id'], ['user name', 'username'], ['status', 'status'], ['roles', r => r.roles.join(', ')], ['created', r => time(r.createdAt)]],
      page.items, r => location.hash = '#/account?id=' + r.id),
    pager(page, next => location.hash = `#/accounts?q=${encodeURIComponent(q)}&after=${encodeURIComponent(next)}`));
}

async function account(params, view) {
  const id = params.get('id');
  const since = params.get('since');
  const [d, logins, conversations] = await Promise.all([api('GET', '/v1/admin/accounts/' + id),
    api('GET', `/v1/presence/users/${id}/logins?limit=20`).catch(() => []),
    api('GET', `/v1/chat/users/${id}/conversations?limit=20` + (since ? '&since=' + encodeURIComponent(since) : ''))]);
  const a = d.account;
  const act = (label, question, call, done, cls) => h('button', { class: cls, id: 'action-' + label.toLowerCase().replace(/ /g, '-'),
    onclick: () => confirmThen(question, call, done) }, label);
  view(h('h1', {}, 'Account ', a.username),
    h('dl', {}, ...[['id', a.id], ['status', a.status], ['roles', a.roles.join(', ')], ['e-mail', a.email], ['phone', a.phone],
      ['nick', a.nick], ['created', time(a.createdAt)]].flatMap(([k, v]) => [h('dt', {}, k), h('dd', { id: 'account-' + k }, v || '—')])),
    h('div', { class: 'toolbar' },
      a.status === 'DISABLED'
        ? act('Recover', `Recover ${a.username}?`, () => api('POST', `/v1/admin/accounts/${id}/recover`), r => `${r.username} is ${r.status}.`)
        : act('Disable', `Disable ${a.username}? Every token is revoked and every device disconnected.`,
            () => api('POST', `/v1/admin/accounts/${id}/disable`), r => `${r.username} is ${r.status}.`, 'danger'),
      act('Revoke tokens', `Revoke every token of ${a.username}?`, () => api('DELETE', `/v1/admin/accounts/${id}/tokens`),
        r => `${r.count} token(s) revoked.`, 'quiet')),
    h('h2', {}, 'Devices online'),
    table([['device type', 'deviceType'], ['device', 'deviceId'], ['node', 'node'], ['since', r => time(r.since)],
      ['last heartbeat', r => time(r.lastHeartbeat)],
      ['', r => h('button', { class: 'danger', onclick: e => { e.stopPropagation(); confirmThen(`Kick ${a.username}'s ${r.deviceType} device?`,
        () => api('DELETE', `/v1/admin/accounts/${id}/devices/${r.deviceType}`), x => `${x.count} session(s) ended.`); } }, 'Kick')]],
      d.devices),
    h('h2', {}, 'Recent logins'),
    table([['when', r => time(r.at)], ['event', 'event'], ['device type', 'deviceType'], ['device', 'deviceId'], ['reason', 'reason']],
      Array.isArray(logins) ? logins : []),
    h('h2', {}, 'Conversations'),
    table([['peer', 'peer'], ['last message', 'lastPreview'], ['last seq', 'lastSeq'], ['unread', 'unread'], ['changed', r => time(r.updatedAt)]],
      conversations.items, r => location.hash = `#/conversation?uid=${id}&peer=${r.peer}`),
    pager(conversations, next => location.hash = `#/account?id=${id}&since=${encodeURIComponent(next)}`),
    h('h2', {}, 'Audit'),
    await auditTable('account', id));
}

/** What a message shows: its text, a media or location reference, or what became of it. */
function messageContent(m) {
  if (m.recalled) return '[recalled]';
  if (m.deleted) return '[deleted by its owner]';
  if (m.text !== null && m.text !== undefined) return m.text;
  if (m.media) return `${m.media.mime} ${m.media.url}`;
  if (m.location) return `${m.location.lat}, ${m.location.lon}` + (m.location.title ? ' ' + m.location.title : '');
  return '';
}

/** One side of a one-to-one conversation, newest page first: an operator recalls a message here (audited, no time limit). */
async function conversation(params, view) {
  const uid = params.get('uid');
  const peer = params.get('peer');
  const before = params.get('before');
  const page = await api('GET', `/v1/chat/users/${encodeURIComponent(uid)}/conversations/${encodeURIComponent(peer)}/messages?limit=50`
    + (before ? '&before=' + encodeURIComponent(before) : ''));
  const recall = m => h('button', { class: 'danger', id: 'recall-' + m.seq, onclick: e => {
    e.stopPropagation();
    confirmThen(`Recall message ${m.seq}? Both sides keep it without its content, and their devices are told.`,
      () => api('POST', '/v1/admin/chat/messages/recall', { owner: uid, peer, seq: m.seq }), r => `Message ${r.seq} recalled.`);
  } }, 'Recall');
  view(h('h1', {}, 'Conversation'),
    h('dl', {}, h('dt', {}, 'of'), h('dd', {}, h('a', { href: '#/account?id=' + uid }, uid)),
      h('dt', {}, 'with'), h('dd', {}, h('a', { href: '#/account?id=' + peer }, peer))),
    table([['seq', 'seq'], ['from', r => r.senderUid === '0' ? 'system' : r.senderUid], ['type', 'type'], ['content', messageContent],
      ['sent', r => time(r.createdAt)], ['', r => r.recalled ? null : recall(r)]], page.items),
    page.next ? h('div', { class: 'toolbar' }, h('button', { class: 'quiet', id: 'older', onclick: () =>
      location.hash = `#/conversation?uid=${uid}&peer=${peer}&before=${encodeURIComponent(page.next)}` }, 'Older messages')) : null);
}

async function groups(params, view) {
  const q = params.get('q') || '';
  const page = await api('GET', `/v1/admin/groups?q=${encodeURIComponent(q)}&limit=20` + (params.get('after') ? '&after=' + params.get('after') : ''));
  view(h('h1', {}, 'Groups'),
    searchForm('name prefix (hidden and dissolved included)', q, v => location.hash = '#/groups?q=' + encodeURIComponent(v)),
    table([['id', 'id'], ['name', 'name'], ['type', 'type'], ['visibility', 'visibility'], ['status', 'status'], ['members', 'memberCount'], ['owner', 'ownerId']],
      page.items, r => location.hash = '#/group?id=' + r.id),
    pager(page, next => location.hash = `#/groups?q=${encodeURIComponent(q)}&after=${next}`));
}

async function group(params, view) {
  const id = params.get('id');
  const after = params.get('after');
  const [g, members] = await Promise.all([api('GET', '/v1/admin/groups/' + id),
    api('GET', `/v1/admin/groups/${id}/members?limit=100` + (after ? '&after=' + encodeURIComponent(after) : ''))]);
  const newOwner = h('input', { id: 'new-owner', placeholder: 'member uid' });
  view(h('h1', {}, 'Group ', g.name),
    h('dl', {}, ...[['id', g.id], ['type', g.type], ['status', g.status], ['visibility', g.visibility], ['join policy', g.joinPolicy],
      ['owner', g.ownerId], ['members', g.memberCount]].flatMap(([k, v]) => [h('dt', {}, k), h('dd', { id: 'group-' + k.replace(/ /g, '-') }, v)])),
    g.status === 'ACTIVE' ? h('div', { class: 'toolbar' },
      h('button', { class: 'danger', id: 'action-dissolve', onclick: () => confirmThen(`Dissolve ${g.name}? Members are told; history stays readable.`,
        () => api('DELETE', '/v1/admin/groups/' + id), r => `${r.name} is ${r.status}.`) }, 'Dissolve'),
      newOwner,
      h('button', { class: 'quiet', id: 'action-transfer', onclick: () => confirmThen(`Make ${newOwner.value} the owner of ${g.name}?`,
        () => api('PUT', `/v1/admin/groups/${id}/owner/${encodeURIComponent(newOwner.value.trim())}`), r => `Owner is now ${r.ownerId}.`) }, 'Transfer owner')) : null,
    h('h2', {}, 'Members'),
    table([['uid', 'uid'], ['role', 'role'], ['nick', 'nick'], ['joined', r => time(r.joinedAt)]], members.items),
    pager(members, next => location.hash = `#/group?id=${id}&after=${encodeURIComponent(next)}`),
    h('h2', {}, 'Audit'),
    await auditTable('group', id));
}

async function channels(params, view) {
  const cursor = params.get('cursor');
  const page = await api('GET', '/v1/presence/channels?limit=50' + (cursor ? '&cursor=' + encodeURIComponent(cursor) : ''));
  const items = page.items || page.channels || [];
  view(h('h1', {}, 'RTC channels'),
    table([['channel', 'channelName'], ['hosts', r => r.online.broadcasters], ['audience', r => r.online.audience],
      ['communication', r => r.online.communication], ['alive', r => r.alive ? 'yes' : 'no']],
      items, r => location.hash = '#/channel?name=' + encodeURIComponent(r.channelName)),
    page.nextCursor ? h('div', { class: 'toolbar' }, h('button', { class: 'quiet', onclick: () => location.hash = '#/channels?cursor=' + encodeURIComponent(page.nextCursor) }, 'Next page')) : null);
}

async function channel(params, view) {
  const name = params.get('name');
  const enc = encodeURIComponent(name);
  const cursor = params.get('cursor');
  const [members, kicks] = await Promise.all([api('GET', `/v1/presence/channels/${enc}/members?online=true&limit=200`
      + (cursor ? '&cursor=' + encodeURIComponent(cursor) : '')),
    api('GET', `/v1/presence/channels/${enc}/kicks`)]);
  view(h('h1', {}, 'Channel ', name),
    h('h2', {}, 'Online members'),
    table([['uid', 'uid'], ['role', 'role'], ['joined', r => time(r.joinedAt)],
      ['', r => h('button', { class: 'danger', id: 'kick-' + r.uid, onclick: () => confirmThen(`Kick ${r.uid} from ${name} (Agora kicking rule)?`,
        () => api('POST', `/v1/admin/channels/${enc}/members/${r.uid}/kick`), () => `Kick of ${r.uid} scheduled.`) }, 'Kick')]],
      members.items || members.members || []),
    members.nextCursor ? h('div', { class: 'toolbar' }, h('button', { class: 'quiet',
      onclick: () => location.hash = `#/channel?name=${enc}&cursor=${encodeURIComponent(members.nextCursor)}` }, 'Next page')) : null,
    h('h2', {}, 'Kicks'),
    table([['uid', 'uid'], ['status', 'status'], ['attempts', 'attempts'], ['rule', 'ruleId'], ['error', 'lastError']], kicks.items || kicks.kicks || []));
}

async function mqtt(params, view) {
  const groupId = params.get('groupId') || '';
  const cursor = params.get('cursor');
  const page = await api('GET', '/v1/presence/mqtt/clients?limit=50' + (groupId ? '&groupId=' + encodeURIComponent(groupId) : '')
    + (cursor ? '&cursor=' + encodeURIComponent(cursor) : ''));
  view(h('h1', {}, 'MQTT clients'),
    searchForm('group id (GID_...)', groupId, v => location.hash = '#/mqtt?groupId=' + encodeURIComponent(v)),
    table([['client', 'clientId'], ['group', 'groupId'], ['online', r => r.online ? 'yes' : 'no'],
      ['online since', r => r.onlineSince ? new Date(r.onlineSince).toLocaleString() : '']],
      page.items || page.clients || [], r => location.hash = '#/mqtt-client?id=' + encodeURIComponent(r.clientId)),
    page.nextCursor ? h('div', { class: 'toolbar' }, h('button', { class: 'quiet', onclick: () => location.hash = `#/mqtt?groupId=${encodeURIComponent(groupId)}&cursor=${encodeURIComponent(page.nextCursor)}` }, 'Next page')) : null);
}

async function mqttClient(params, view) {
  const id = encodeURIComponent(params.get('id'));
  const [c, history] = await Promise.all([api('GET', '/v1/presence/mqtt/clients/' + id), api('GET', `/v1/presence/mqtt/clients/${id}/history`)]);
  view(h('h1', {}, 'MQTT client ', c.clientId),
    h('dl', {}, h('dt', {}, 'online'), h('dd', {}, c.online ? 'yes' : 'no'), h('dt', {}, 'group'), h('dd', {}, c.groupId)),
    h('h2', {}, 'Connections'),
    table([['channel', 'channelId'], ['ip', 'clientIp'], ['connected', r => r.connectedAt ? new Date(r.connectedAt).toLocaleString() : ''],
      ['closed', r => r.closedAt ? new Date(r.closedAt).toLocaleString() : ''], ['how', 'closeKind']], c.connections || []),
    h('h2', {}, 'History'),
    table([['event', 'eventType'], ['channel', 'channelId'], ['time', r => new Date(r.time).toLocaleString()], ['ip', 'clientIp']],
      history.items || history.events || []));
}

async function rooms(params, view) {
  const room = params.get('room') || '';
  const o = await api('GET', '/v1/admin/overview');
  const parts = [h('h1', {}, 'Live rooms'),
    searchForm('room id', room, v => location.hash = '#/rooms?room=' + encodeURIComponent(v)),
    table([['room', 'roomId'], ['online', 'online'], ['fans', 'onlineFans'], ['anchor', 'anchorId']], o.topRooms,
      r => location.hash = '#/rooms?room=' + encodeURIComponent(r.roomId))];
  if (room) {
    const enc = encodeURIComponent(room);
    const [current, sessions] = await Promise.all([api('GET', `/v1/rooms/${enc}/sessions/current`).catch(e => null),
      api('GET', `/v1/rooms/${enc}/sessions?limit=10`)]);
    parts.push(h('h2', {}, 'Room ', room));
    if (current) {
      parts.push(h('div', { class: 'cards' }, card('Online', current.online, null, 'room-online'), card('Online fans', current.onlineFans, null, 'room-fans'),
          card('Peak', current.peakOnline)),
        h('div', { class: 'toolbar' }, h('button', { class: 'danger', id: 'action-close-room', onclick: () => confirmThen(`Close the live session in ${room}?`,
          () => api('DELETE', `/v1/admin/rooms/${enc}/session`), r => `Closed ${r.roomId}: ${r.online} viewers at the close.`) }, 'Close session')));
    } else {
      parts.push(h('p', {}, 'No open session.'));
    }
    parts.push(h('h2', {}, 'Sessions'), table([['session', 'id'], ['opened', r => time(r.openedAt)], ['closed', r => time(r.closedAt)],
      ['why', 'closeReason'], ['online', 'online'], ['fans', 'onlineFans'], ['peak', 'peakOnline']], sessions.items));
  }
  view(...parts);
}

async function auditTable(targetType, targetId, before) {
  const page = await api('GET', '/v1/admin/audit?limit=20' + (targetType ? `&targetType=${targetType}&targetId=${encodeURIComponent(targetId)}` : '')
    + (before ? '&before=' + before : ''));
  return h('div', {}, table([['when', r => time(r.at)], ['operator', 'actorId'], ['action', 'action'], ['target', r => `${r.targetType} ${r.targetId}`],
    ['detail', 'detail'], ['outcome', 'outcome']], page.items),
    targetType ? null : pager(page, next => location.hash = '#/audit?before=' + next));
}

async function audit(params, view) {
  view(h('h1', {}, 'Audit log'), await auditTable(null, null, params.get('before')));
}

const pages = { dashboard, accounts, account, conversation, groups, group, channels, channel, mqtt, 'mqtt-client': mqttClient, rooms, audit };

// ---- routing and sign-in ----

// The route whose page the view shows. Pages render after their API calls, so a page that finishes
// after the next route began (a quick click, a sign-in racing a link) must not replace that one.
let shown = 0;

async function route() {
  clearInterval(refresh);
  const mine = ++shown;
  // each page draws through this view: true if it drew; once another route began it draws nothing (false)
  const pageView = (...children) => {
    if (mine !== shown) return false;
    view(...children);
    return true;
  };
  const [path, query] = (location.hash.slice(2) || 'dashboard').split('?');
  const page = pages[path] || dashboard;
  for (const a of document.querySelectorAll('nav a')) a.classList.toggle('active', a.getAttribute('href') === '#/' + path);
  try {
    await page(new URLSearchParams(query || ''), pageView);
  } catch (e) {
    showError(e);
  }
}

function showLogin() {
  csrf = null;
  clearInterval(refresh);
  document.getElementById('nav').hidden = true;
  document.getElementById('view').replaceChildren();
  document.getElementById('login').hidden = false;
}

function showApp() {
  document.getElementById('login').hidden = true;
  document.getElementById('nav').hidden = false;
  route();
}

document.getElementById('login').addEventListener('submit', async e => {
  e.preventDefault();
  try {
    const s = await api('POST', '/v1/admin/session', {
      username: document.getElementById('login-username').value, password: document.getElementById('login-password').value });
    csrf = s.csrfToken;
    document.getElementById('login-password').value = '';
    document.getElementById('notice').hidden = true;
    showApp();
  } catch (err) {
    showError(err);
  }
});

document.getElementById('sign-out').addEventListener('click', async () => {
  try { await api('DELETE', '/v1/admin/session'); } catch (e) { /* signed out either way */ }
  showLogin();
});

window.addEventListener('hashchange', () => { if (csrf) route(); });

api('GET', '/v1/admin/session').then(s => { csrf = s.csrfToken; showApp(); }).catch(() => showLogin());
