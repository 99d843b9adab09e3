// Roost admin console: plain ES module over the admin API (/api/v1/admin/...) and the read APIs
// operators already have. Everything from the server goes into the page as text, never as HTML.
// Every string shown comes from the catalogues (i18n.js, i18n/*.json) through the function t, with a literal key; dates and
// numbers are formatted by Intl in the chosen locale. Ids, user names and code values stay as they are.

import { h } from '../lib/dom.js';
import { loadCatalogues, chooseLocale, locale, t, translatePage, formatDateTime, formatTime, formatNumber } from './i18n.js';

await loadCatalogues();

let csrf = null;
let refresh = null;
// The GET answers the page shown was drawn from, so that a switch of language redraws it without
// asking the server again (replay: those answers while the page redraws).
let answers = new Map();
let replay = null;

class ApiError extends Error {
  constructor(problem) {
    super(problem.detail || problem.title || t('error.requestFailed'));
    this.problem = problem;
  }
}

async function api(method, path, body) {
  if (method === 'GET' && replay?.has(path)) {
    answers.set(path, replay.get(path));
    return replay.get(path);
  }
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
  if (method === 'GET') answers.set(path, data);
  return data;
}

// ---- little DOM helpers ----

function view(...children) {
  const v = document.getElementById('view');
  v.replaceChildren(...children);
  return v;
}

// The notice shown, as a function that gives its text: a switch of language re-renders it.
let noticeText = null;

/** Shows a message; message() gives its text in the current language. */
function notice(message, isError) {
  const n = document.getElementById('notice');
  noticeText = message;
  n.textContent = message();
  n.className = isError ? 'error' : '';
  n.hidden = false;
}

function hideNotice() {
  noticeText = null;
  document.getElementById('notice').hidden = true;
}

function showError(e) {
  if (e instanceof ApiError) {
    const p = e.problem;
    const type = (p.type || '').replace('urn:roost:problem:', '');
    const params = () => ({ title: p.title || t('error.title'), status: p.status || '?', type, detail: p.detail || '' });
    notice(() => type ? t('error.problem', params()) : t('error.problemUntyped', params()), true);
    if (p.status === 401) showLogin();
  } else {
    notice(() => t('error.other', { message: e.message }), true);
  }
}

/** Asks before an action, runs it, and says how it ended (done: the result's message). */
function confirmThen(question, action, done) {
  const dialog = document.getElementById('confirm');
  document.getElementById('confirm-text').textContent = question;
  dialog.returnValue = '';
  dialog.onclose = async () => {
    if (dialog.returnValue !== 'ok') return;
    try {
      const result = await action();
      notice(() => done(result));
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
      ? h('tr', {}, h('td', { colspan: columns.length }, t('table.empty')))
      : rows.map(r => h('tr', { class: onClick ? 'clickable' : null, onclick: onClick ? () => onClick(r) : null },
          columns.map(c => h('td', {}, typeof c[1] === 'function' ? c[1](r) : r[c[1]])))))));
}

/** The toolbar with a button to the next page, if there is one (cursor: where it starts). */
function nextPage(cursor, go, id = 'next-page', label = t('table.nextPage')) {
  return cursor ? h('div', { class: 'toolbar' }, h('button', { class: 'quiet', id, onclick: () => go(cursor) }, label)) : null;
}

function pager(page, next) {
  return nextPage(page.next, next);
}

const time = formatDateTime;
const num = formatNumber;

/** A column of counts: the row's field, formatted in the locale. */
function count(field) {
  return r => num(r[field]);
}

function yesNo(b) {
  return b ? t('common.yes') : t('common.no');
}

function upDown(up) {
  return h('span', { class: up ? 'up' : 'down' }, up ? t('common.up') : t('common.down'));
}

/** A definition list: [id suffix, label, value] each, the value's element with id prefix + suffix. */
function details(prefix, rows) {
  return h('dl', {}, ...rows.flatMap(([id, label, value]) =>
    [h('dt', {}, label), h('dd', { id: prefix + id }, value === null || value === undefined || value === '' ? '—' : value)]));
}

function card(label, value, sub, id) {
  return h('div', { class: 'card' }, h('div', { class: 'label' }, label), h('div', { class: 'value', id }, value instanceof Node ? value : num(value)),
    sub ? h('div', { class: 'sub' }, sub) : null);
}

function searchForm(placeholder, value, onSearch) {
  const input = h('input', { name: 'q', placeholder, value: value || '' });
  return h('form', { class: 'search', onsubmit: e => { e.preventDefault(); onSearch(input.value.trim()); } },
    input, h('button', { type: 'submit' }, t('search.submit')));
}

// ---- charts: one SVG line per metric ----

function chart(title, points) {
  const w = 320, hgt = 140, pad = 28;
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('class', 'chart');
  svg.setAttribute('viewBox', `0 0 ${w} ${hgt}`);
  const text = (x, y, s, anchor) => {
    const el = document.createElementNS(svg.namespaceURI, 'text');
    el.setAttribute('x', x); el.setAttribute('y', y);
    if (anchor) el.setAttribute('text-anchor', anchor);
    el.textContent = s;
    svg.append(el);
  };
  text(pad, 14, title);
  if (!points || points.length === 0) {
    text(w / 2, hgt / 2, t('chart.noSamples'), 'middle');
    return svg;
  }
  const xs = points.map(p => p[0]), ys = points.map(p => p[1]);
  const x0 = Math.min(...xs), x1 = Math.max(...xs, x0 + 1), y1 = Math.max(...ys, 1);
  const line = document.createElementNS(svg.namespaceURI, 'polyline');
  line.setAttribute('points', points.map(p =>
    `${pad + (p[0] - x0) / (x1 - x0) * (w - 2 * pad)},${hgt - pad + 6 - p[1] / y1 * (hgt - 2 * pad)}`).join(' '));
  svg.append(line);
  text(pad - 4, 30, num(y1), 'end');
  text(pad - 4, hgt - pad + 6, num(0), 'end');
  text(pad, hgt - 6, formatTime(x0 * 1000));
  text(w - pad, hgt - 6, formatTime(x1 * 1000), 'end');
  return svg;
}

// ---- pages ----

/** "name count · name count" of a map's first entries (device types, MQTT groups: code values). */
function byName(map, limit) {
  return Object.entries(map).slice(0, limit).map(([k, n]) => `${k} ${num(n)}`).join(' · ');
}

async function dashboard(params, view) {
  const range = params.get('range') || '1h';
  const ranges = [['1h', t('dashboard.range1h')], ['6h', t('dashboard.range6h')], ['1d', t('dashboard.range1d')], ['7d', t('dashboard.range7d')]];
  const render = async () => {
    const [o, m] = await Promise.all([api('GET', '/v1/admin/overview'), api('GET', '/v1/admin/metrics?range=' + range)]);
    const series = Object.fromEntries(m.series.map(s => [s.metric, s.points]));
    const rtc = o.rtcOnline;
    return view(
      h('h1', {}, t('dashboard.title')),
      h('div', { class: 'cards' },
        card(t('dashboard.onlineUsers'), o.onlineUsers, byName(o.onlineByDeviceType) || t('dashboard.noDevices'), 'online-users'),
        card(t('dashboard.rtcChannels'), o.rtcChannels,
          t('dashboard.rtcRoles', { hosts: num(rtc.broadcasters), audience: num(rtc.audience), communication: num(rtc.communication) }), 'rtc-channels'),
        card(t('dashboard.mqttOnline'), o.mqttOnline, byName(o.mqttOnlineByGroup, 3), 'mqtt-online'),
        card(t('dashboard.liveRooms'), o.openRooms, t('dashboard.roomAudience', { viewers: num(o.roomViewers), fans: num(o.roomFans) }), 'open-rooms'),
        card(t('dashboard.outboxBacklog'), o.outboxBacklog, t('dashboard.outboxBacklogSub'), 'outbox-backlog'),
        card(t('dashboard.deadLetters'), o.deadLetters, t('dashboard.deadLettersSub'), 'dead-letters'),
        card(t('dashboard.database'), upDown(o.databaseUp)),
        card(t('dashboard.broker'), upDown(o.brokerUp))),
      h('div', { class: 'toolbar' }, h('h2', {}, t('dashboard.history')),
        ...ranges.map(([r, label]) => h('a', { href: '#/dashboard?range=' + r, class: r === range ? 'active' : null }, label))),
      h('div', { class: 'charts' },
        chart(t('chart.onlineUsers'), series.online_users), chart(t('chart.rtcMembers'), series.rtc_members),
        chart(t('chart.roomViewers'), series.room_viewers), chart(t('chart.mqttOnline'), series.mqtt_online)),
      h('h2', {}, t('dashboard.chat')),
      h('div', { class: 'charts', id: 'chat-charts' },
        chart(t('chart.messagesPerSecond'), series.chat_messages_per_second), chart(t('chart.pushesPerSecond'), series.chat_pushes_per_second),
        chart(t('chart.ackTimeoutsPerSecond'), series.chat_ack_timeouts_per_second),
        chart(t('chart.unreachableRepairsPerSecond'), series.chat_unreachable_repairs_per_second),
        chart(t('chart.offlineBacklog'), series.chat_offline_backlog)),
      h('h2', {}, t('dashboard.nodes')),
      h('div', { id: 'nodes' }, table([[t('col.node'), 'id'], [t('col.address'), 'address'], [t('col.connections'), count('connections')],
        [t('col.lastHeartbeat'), r => time(r.lastHeartbeat)], [t('col.started'), r => time(r.startedAt)],
        [t('col.state'), r => h('span', { class: r.alive ? 'up' : 'down' }, r.alive ? t('node.alive') : t('node.lost'))]], o.nodes)),
      h('h2', {}, t('dashboard.consumerLag')),
      table([[t('col.consumerGroup'), r => r[0]], [t('col.messagesBehind'), r => r[1] < 0 ? t('common.unknown') : num(r[1])]], Object.entries(o.consumerLag)),
      h('h2', {}, t('dashboard.busiestRooms')),
      roomsTable(o.topRooms),
      h('p', { class: 'sub' }, t('dashboard.updated', { time: time(o.at) })));
  };
  if (await render()) {
    refresh = setInterval(() => render().catch(showError), 3000);
  }
}

/** The busiest live rooms; a click shows the room. */
function roomsTable(rooms) {
  return table([[t('col.room'), 'roomId'], [t('col.online'), count('online')], [t('col.fans'), count('onlineFans')], [t('col.anchor'), 'anchorId']], rooms,
    r => location.hash = '#/rooms?room=' + encodeURIComponent(r.roomId));
}

async function accounts(params, view) {
  const q = params.get('q') || '';
  const page = await api('GET', `/v1/admin/accounts?q=${encodeURIComponent(q)}&limit=20` + (params.get('after') ? '&after=' + encodeURIComponent(params.get('after')) : ''));
  view(h('h1', {}, t('accounts.title')),
    searchForm(t('accounts.search'), q, v => location.hash = '#/accounts?q=' + encodeURIComponent(v)),
    table([[t('col.id'), 'id'], [t('col.userName'), 'username'], [t('col.status'), 'status'], [t('col.roles'), r => r.roles.join(', ')],
      [t('col.created'), r => time(r.createdAt)]],
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
  const act = (action, label, question, call, done, cls) => h('button', { class: cls, id: 'action-' + action,
    onclick: () => confirmThen(question, call, done) }, label);
  const statusIs = r => t('common.statusIs', { name: r.username, status: r.status });
  view(h('h1', {}, t('account.title', { name: a.username })),
    details('account-', [['id', t('col.id'), a.id], ['status', t('col.status'), a.status], ['roles', t('col.roles'), a.roles.join(', ')],
      ['e-mail', t('col.email'), a.email], ['phone', t('col.phone'), a.phone], ['nick', t('col.nick'), a.nick], ['created', t('col.created'), time(a.createdAt)]]),
    h('div', { class: 'toolbar' },
      a.status === 'DISABLED'
        ? act('recover', t('account.recover'), t('account.recoverQuestion', { name: a.username }),
            () => api('POST', `/v1/admin/accounts/${id}/recover`), statusIs)
        : act('disable', t('account.disable'), t('account.disableQuestion', { name: a.username }),
            () => api('POST', `/v1/admin/accounts/${id}/disable`), statusIs, 'danger'),
      act('revoke-tokens', t('account.revokeTokens'), t('account.revokeTokensQuestion', { name: a.username }),
        () => api('DELETE', `/v1/admin/accounts/${id}/tokens`), r => t('account.tokensRevoked', { count: num(r.count) }), 'quiet')),
    h('h2', {}, t('account.devices')),
    table([[t('col.deviceType'), 'deviceType'], [t('col.device'), 'deviceId'], [t('col.node'), 'node'], [t('col.since'), r => time(r.since)],
      [t('col.lastHeartbeat'), r => time(r.lastHeartbeat)],
      ['', r => h('button', { class: 'danger', onclick: e => { e.stopPropagation();
        confirmThen(t('account.kickQuestion', { name: a.username, deviceType: r.deviceType }),
          () => api('DELETE', `/v1/admin/accounts/${id}/devices/${r.deviceType}`), x => t('account.sessionsEnded', { count: num(x.count) })); } },
        t('common.kick'))]],
      d.devices),
    h('h2', {}, t('account.logins')),
    table([[t('col.when'), r => time(r.at)], [t('col.event'), 'event'], [t('col.deviceType'), 'deviceType'], [t('col.device'), 'deviceId'], [t('col.reason'), 'reason']],
      Array.isArray(logins) ? logins : []),
    h('h2', {}, t('account.conversations')),
    table([[t('col.peer'), 'peer'], [t('col.lastMessage'), 'lastPreview'], [t('col.lastSeq'), 'lastSeq'], [t('col.unread'), count('unread')],
      [t('col.changed'), r => time(r.updatedAt)]],
      conversations.items, r => location.hash = `#/conversation?uid=${id}&peer=${r.peer}`),
    pager(conversations, next => location.hash = `#/account?id=${id}&since=${encodeURIComponent(next)}`),
    h('h2', {}, t('audit.section')),
    await auditTable('account', id));
}

/** What a message shows: its text, a media or location reference, or what became of it. */
function messageContent(m) {
  if (m.recalled) return t('message.recalled');
  if (m.deleted) return t('message.deleted');
  if (m.text !== null && m.text !== undefined) return m.text;
  if (m.media) return `${m.media.mime} ${m.media.url}`;
  if (m.location) return `${m.location.lat}, ${m.location.lon}` + (m.location.title ? ' ' + m.location.title : '');
  if (m.event) return m.event.type + (m.event.target ? ' ' + m.event.target : '');
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
    confirmThen(t('conversation.recallQuestion', { seq: m.seq }),
      () => api('POST', '/v1/admin/chat/messages/recall', { owner: uid, peer, seq: m.seq }), r => t('conversation.recalled', { seq: r.seq }));
  } }, t('conversation.recall'));
  view(h('h1', {}, t('conversation.title')),
    details('conversation-', [['of', t('conversation.of'), h('a', { href: '#/account?id=' + uid }, uid)],
      ['with', t('conversation.with'), h('a', { href: '#/account?id=' + peer }, peer)]]),
    table([[t('col.seq'), 'seq'], [t('col.from'), r => r.senderUid === '0' ? t('message.system') : r.senderUid], [t('col.type'), 'type'],
      [t('col.content'), messageContent], [t('col.sent'), r => time(r.createdAt)], ['', r => r.recalled ? null : recall(r)]], page.items),
    nextPage(page.next, next => location.hash = `#/conversation?uid=${uid}&peer=${peer}&before=${encodeURIComponent(next)}`,
      'older', t('conversation.older')));
}

async function groups(params, view) {
  const q = params.get('q') || '';
  const page = await api('GET', `/v1/admin/groups?q=${encodeURIComponent(q)}&limit=20` + (params.get('after') ? '&after=' + params.get('after') : ''));
  view(h('h1', {}, t('groups.title')),
    searchForm(t('groups.search'), q, v => location.hash = '#/groups?q=' + encodeURIComponent(v)),
    table([[t('col.id'), 'id'], [t('col.name'), 'name'], [t('col.type'), 'type'], [t('col.visibility'), 'visibility'], [t('col.status'), 'status'],
      [t('col.members'), count('memberCount')], [t('col.owner'), 'ownerId']],
      page.items, r => location.hash = '#/group?id=' + r.id),
    pager(page, next => location.hash = `#/groups?q=${encodeURIComponent(q)}&after=${next}`));
}

/**
 * A group: its details, members with their mutes (an operator mutes, unmutes or removes any member but the owner,
 * whatever its own role in the group, audited) and its messages, newest page first (an operator recalls one at any age, audited).
 */
async function group(params, view) {
  const id = params.get('id');
  const after = params.get('after');
  const before = params.get('before');
  const [g, members, messages] = await Promise.all([api('GET', '/v1/admin/groups/' + id),
    api('GET', `/v1/admin/groups/${id}/members?limit=100` + (after ? '&after=' + encodeURIComponent(after) : '')),
    api('GET', `/v1/chat/groups/${id}/messages?limit=50` + (before ? '&before=' + encodeURIComponent(before) : ''))]);
  const here = (more) => `#/group?id=${id}` + (after ? '&after=' + encodeURIComponent(after) : '') + more;
  const newOwner = h('input', { id: 'new-owner', placeholder: t('group.newOwner') });
  const muteFor = h('select', { id: 'mute-for', 'aria-label': t('group.muteFor') },
    h('option', { value: '' }, t('group.muteForGood')), h('option', { value: '3600' }, t('group.muteHour')),
    h('option', { value: '86400' }, t('group.muteDay')));
  const muteBody = () => muteFor.value ? { until: new Date(Date.now() + Number(muteFor.value) * 1000).toISOString() } : {};
  // a member's action: ask(r) gives the question and the call (what is asked is what is sent), done(r) the outcome
  const member = (action, cls, label, ask, done) => r => h('button', { class: cls, id: `${action}-${r.uid}`, onclick: e => {
    e.stopPropagation();
    const [question, call] = ask(r);
    confirmThen(question, call, () => done(r));
  } }, label);
  const base = `/v1/admin/groups/${id}`;
  const mute = member('mute', 'quiet', t('group.mute'), r => {
    const body = muteBody();
    return [body.until ? t('group.muteUntilQuestion', { uid: r.uid, name: g.name, until: time(body.until) })
      : t('group.muteQuestion', { uid: r.uid, name: g.name }), () => api('PUT', `${base}/mutes/${r.uid}`, body)];
  }, r => t('group.muted', { uid: r.uid }));
  const unmute = member('unmute', 'quiet', t('group.unmute'), r => [t('group.unmuteQuestion', { uid: r.uid, name: g.name }),
    () => api('DELETE', `${base}/mutes/${r.uid}`)], r => t('group.unmuted', { uid: r.uid }));
  const remove = member('remove', 'danger', t('group.remove'), r => [t('group.removeQuestion', { uid: r.uid, name: g.name }),
    () => api('DELETE', `${base}/members/${r.uid}`)], r => t('group.removed', { uid: r.uid }));
  const active = g.status === 'ACTIVE';
  const recall = m => h('button', { class: 'danger', id: 'recall-' + m.seq, onclick: e => {
    e.stopPropagation();
    confirmThen(t('group.recallQuestion', { seq: m.seq, name: g.name }),
      () => api('POST', `/v1/admin/chat/groups/${id}/messages/${m.seq}/recall`), r => t('conversation.recalled', { seq: r.seq }));
  } }, t('conversation.recall'));
  view(h('h1', {}, t('group.title', { name: g.name })),
    details('group-', [['id', t('col.id'), g.id], ['type', t('col.type'), g.type], ['status', t('col.status'), g.status],
      ['visibility', t('col.visibility'), g.visibility], ['join-policy', t('col.joinPolicy'), g.joinPolicy], ['owner', t('col.owner'), g.ownerId],
      ['members', t('col.members'), num(g.memberCount)]]),
    active ? h('div', { class: 'toolbar' },
      h('button', { class: 'danger', id: 'action-dissolve', onclick: () => confirmThen(t('group.dissolveQuestion', { name: g.name }),
        () => api('DELETE', '/v1/admin/groups/' + id), r => t('common.statusIs', { name: r.name, status: r.status })) }, t('group.dissolve')),
      newOwner,
      h('button', { class: 'quiet', id: 'action-transfer', onclick: () => confirmThen(t('group.transferQuestion', { uid: newOwner.value, name: g.name }),
        () => api('PUT', `/v1/admin/groups/${id}/owner/${encodeURIComponent(newOwner.value.trim())}`),
        r => t('group.ownerIs', { uid: r.ownerId })) }, t('group.transfer'))) : null,
    h('h2', {}, t('group.members')),
    active ? h('div', { class: 'toolbar' }, h('label', { for: 'mute-for' }, t('group.muteFor')), muteFor) : null,
    h('div', { id: 'group-members' }, table([[t('col.uid'), r => h('a', { href: '#/account?id=' + r.uid }, r.uid)], [t('col.role'), 'role'],
      [t('col.nick'), 'nick'], [t('col.joined'), r => time(r.joinedAt)], [t('col.muted'), mutedMarker],
      ['', r => active && r.role !== 'O' ? [mute(r), unmute(r), remove(r)] : null]], members.items)),
    pager(members, next => location.hash = `#/group?id=${id}&after=${encodeURIComponent(next)}`),
    h('h2', {}, t('group.messages')),
    h('div', { id: 'group-messages' }, table([[t('col.seq'), 'seq'],
      [t('col.from'), r => r.senderUid === '0' ? t('message.system') : h('a', { href: '#/account?id=' + r.senderUid }, r.senderUid)],
      [t('col.sent'), r => time(r.createdAt)], [t('col.type'), 'type'],
      [t('col.content'), r => r.deleted && !r.recalled ? t('message.deletedForEveryone') : messageContent(r)],
      ['', r => r.recalled || r.deleted ? null : recall(r)]], messages.items)),
    nextPage(messages.next, next => location.hash = here('&before=' + encodeURIComponent(next)), 'older', t('conversation.older')),
    h('h2', {}, t('audit.section')),
    await auditTable('group', id));
}

/** A member's mute: until when, for good, or nothing. */
function mutedMarker(m) {
  if (!m.muted) return null;
  return h('span', { class: 'muted-marker', id: 'muted-' + m.uid },
    m.mutedUntil ? t('group.mutedUntil', { until: time(m.mutedUntil) }) : t('group.mutedForGood'));
}

async function channels(params, view) {
  const cursor = params.get('cursor');
  const page = await api('GET', '/v1/presence/channels?limit=50' + (cursor ? '&cursor=' + encodeURIComponent(cursor) : ''));
  const items = page.items || page.channels || [];
  view(h('h1', {}, t('channels.title')),
    table([[t('col.channel'), 'channelName'], [t('col.hosts'), r => num(r.online.broadcasters)], [t('col.audience'), r => num(r.online.audience)],
      [t('col.communication'), r => num(r.online.communication)], [t('col.alive'), r => yesNo(r.alive)]],
      items, r => location.hash = '#/channel?name=' + encodeURIComponent(r.channelName)),
    nextPage(page.nextCursor, next => location.hash = '#/channels?cursor=' + encodeURIComponent(next)));
}

async function channel(params, view) {
  const name = params.get('name');
  const enc = encodeURIComponent(name);
  const cursor = params.get('cursor');
  const [members, kicks] = await Promise.all([api('GET', `/v1/presence/channels/${enc}/members?online=true&limit=200`
      + (cursor ? '&cursor=' + encodeURIComponent(cursor) : '')),
    api('GET', `/v1/presence/channels/${enc}/kicks`)]);
  view(h('h1', {}, t('channel.title', { name })),
    h('h2', {}, t('channel.members')),
    table([[t('col.uid'), 'uid'], [t('col.role'), 'role'], [t('col.joined'), r => time(r.joinedAt)],
      ['', r => h('button', { class: 'danger', id: 'kick-' + r.uid, onclick: () => confirmThen(t('channel.kickQuestion', { uid: r.uid, name }),
        () => api('POST', `/v1/admin/channels/${enc}/members/${r.uid}/kick`), () => t('channel.kickScheduled', { uid: r.uid })) }, t('common.kick'))]],
      members.items || members.members || []),
    nextPage(members.nextCursor, next => location.hash = `#/channel?name=${enc}&cursor=${encodeURIComponent(next)}`),
    h('h2', {}, t('channel.kicks')),
    table([[t('col.uid'), 'uid'], [t('col.status'), 'status'], [t('col.attempts'), count('attempts')], [t('col.rule'), 'ruleId'],
      [t('col.error'), 'lastError']], kicks.items || kicks.kicks || []));
}

async function mqtt(params, view) {
  const groupId = params.get('groupId') || '';
  const cursor = params.get('cursor');
  const page = await api('GET', '/v1/presence/mqtt/clients?limit=50' + (groupId ? '&groupId=' + encodeURIComponent(groupId) : '')
    + (cursor ? '&cursor=' + encodeURIComponent(cursor) : ''));
  view(h('h1', {}, t('mqtt.title')),
    searchForm(t('mqtt.search'), groupId, v => location.hash = '#/mqtt?groupId=' + encodeURIComponent(v)),
    table([[t('col.client'), 'clientId'], [t('col.group'), 'groupId'], [t('col.online'), r => yesNo(r.online)],
      [t('col.onlineSince'), r => time(r.onlineSince)]],
      page.items || page.clients || [], r => location.hash = '#/mqtt-client?id=' + encodeURIComponent(r.clientId)),
    nextPage(page.nextCursor, next => location.hash = `#/mqtt?groupId=${encodeURIComponent(groupId)}&cursor=${encodeURIComponent(next)}`));
}

async function mqttClient(params, view) {
  const id = encodeURIComponent(params.get('id'));
  const [c, history] = await Promise.all([api('GET', '/v1/presence/mqtt/clients/' + id), api('GET', `/v1/presence/mqtt/clients/${id}/history`)]);
  view(h('h1', {}, t('mqttClient.title', { id: c.clientId })),
    details('mqtt-client-', [['online', t('col.online'), yesNo(c.online)], ['group', t('col.group'), c.groupId]]),
    h('h2', {}, t('mqttClient.connections')),
    table([[t('col.channel'), 'channelId'], [t('col.ip'), 'clientIp'], [t('col.connected'), r => time(r.connectedAt)],
      [t('col.disconnected'), r => time(r.closedAt)], [t('col.how'), 'closeKind']], c.connections || []),
    h('h2', {}, t('mqttClient.history')),
    table([[t('col.event'), 'eventType'], [t('col.channel'), 'channelId'], [t('col.time'), r => time(r.time)], [t('col.ip'), 'clientIp']],
      history.items || history.events || []));
}

async function rooms(params, view) {
  const room = params.get('room') || '';
  const o = await api('GET', '/v1/admin/overview');
  const parts = [h('h1', {}, t('rooms.title')),
    searchForm(t('rooms.search'), room, v => location.hash = '#/rooms?room=' + encodeURIComponent(v)),
    roomsTable(o.topRooms)];
  if (room) {
    const enc = encodeURIComponent(room);
    const [current, sessions] = await Promise.all([api('GET', `/v1/rooms/${enc}/sessions/current`).catch(e => null),
      api('GET', `/v1/rooms/${enc}/sessions?limit=10`)]);
    parts.push(h('h2', {}, t('rooms.room', { room })));
    if (current) {
      parts.push(h('div', { class: 'cards' }, card(t('rooms.online'), current.online, null, 'room-online'),
          card(t('rooms.onlineFans'), current.onlineFans, null, 'room-fans'), card(t('rooms.peak'), current.peakOnline)),
        h('div', { class: 'toolbar' }, h('button', { class: 'danger', id: 'action-close-room', onclick: () => confirmThen(t('rooms.closeQuestion', { room }),
          () => api('DELETE', `/v1/admin/rooms/${enc}/session`), r => t('rooms.closed', { room: r.roomId, viewers: num(r.online) })) },
          t('rooms.close'))));
    } else {
      parts.push(h('p', {}, t('rooms.noSession')));
    }
    parts.push(h('h2', {}, t('rooms.sessions')), table([[t('col.session'), 'id'], [t('col.opened'), r => time(r.openedAt)],
      [t('col.closed'), r => time(r.closedAt)], [t('col.why'), 'closeReason'], [t('col.online'), count('online')], [t('col.fans'), count('onlineFans')],
      [t('col.peak'), count('peakOnline')]], sessions.items));
  }
  view(...parts);
}

async function auditTable(targetType, targetId, before) {
  const page = await api('GET', '/v1/admin/audit?limit=20' + (targetType ? `&targetType=${targetType}&targetId=${encodeURIComponent(targetId)}` : '')
    + (before ? '&before=' + before : ''));
  return h('div', {}, table([[t('col.when'), r => time(r.at)], [t('col.operator'), 'actorId'], [t('col.action'), 'action'],
    [t('col.target'), r => `${r.targetType} ${r.targetId}`], [t('col.detail'), 'detail'], [t('col.outcome'), 'outcome']], page.items),
    targetType ? null : pager(page, next => location.hash = '#/audit?before=' + next));
}

async function audit(params, view) {
  view(h('h1', {}, t('audit.title')), await auditTable(null, null, params.get('before')));
}

const pages = { dashboard, accounts, account, conversation, groups, group, channels, channel, mqtt, 'mqtt-client': mqttClient, rooms, audit };

// ---- routing and sign-in ----

// The route whose page the view shows. Pages render after their API calls, so a page that finishes
// after the next route began (a quick click, a sign-in racing a link) must not replace that one.
let shown = 0;

/** Draws the page of the location; redraw: from the answers the page shown was drawn from. */
async function route(redraw = false) {
  clearInterval(refresh);
  const mine = ++shown;
  replay = redraw ? answers : null;
  answers = new Map();
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
  } finally {
    if (mine === shown) replay = null;
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

// ---- language: the page's static text, the switch, and the page shown, in the chosen locale ----

function translate() {
  translatePage(document);
  for (const b of document.querySelectorAll('#lang-switch button')) b.setAttribute('aria-pressed', String(b.dataset.lang === locale()));
  if (noticeText) document.getElementById('notice').textContent = noticeText();
}

for (const b of document.querySelectorAll('#lang-switch button')) {
  b.addEventListener('click', () => {
    if (b.dataset.lang === locale()) return;
    chooseLocale(b.dataset.lang);
    translate();
    if (csrf) route(true); // the page again, from the data it showed, in the new language
  });
}

translate();

document.getElementById('login').addEventListener('submit', async e => {
  e.preventDefault();
  try {
    const s = await api('POST', '/v1/admin/session', {
      username: document.getElementById('login-username').value, password: document.getElementById('login-password').value });
    csrf = s.csrfToken;
    document.getElementById('login-password').value = '';
    hideNotice();
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
