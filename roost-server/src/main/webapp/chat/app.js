// Roost web chat: a device of type "web" over the REST API and the device WebSocket (roost.js).
// The session (token, device id) and what the timelines hold live in this tab's sessionStorage, so
// two windows of one browser can be two users, and a reload catches up from the seqs it kept.
// Everything from the server goes into the page as text, never as HTML.

import { h } from '../lib/dom.js';
import { Api, Device, RoostError, sha256Hex } from './roost.js';
import { Timeline } from './timeline.js';

const $ = id => document.getElementById(id);
const KEEP = 100;            // messages per conversation kept across a reload
const PAGE = 30;             // messages per history page
const RECALL_WINDOW_MS = 2 * 60 * 1000; // ROOST_CHAT_RECALL_WINDOW's default: the server decides, this only offers the button

const store = {
  get: k => { try { return JSON.parse(sessionStorage.getItem('roost.chat.' + k)); } catch (e) { return null; } },
  set: (k, v) => sessionStorage.setItem('roost.chat.' + k, JSON.stringify(v)),
  drop: k => sessionStorage.removeItem('roost.chat.' + k)
};

const S = {
  session: store.get('session'), // {token, uid, username}
  device: null,
  convs: new Map(),     // 'u:<peer>' | 'g:<group>' → conversation
  users: new Map(),     // uid → display name
  groups: new Map(),    // group id → name
  contacts: new Map(),  // uid → {online, version}
  requests: [],         // incoming friend requests, pending
  invitations: new Map(), // group invitation request id → {requestId, groupId, actor}
  members: new Map(),   // group id → [{uid, role}]
  syncVersion: 0,
  open: null,
  loadingOlder: false
};

const api = new Api(() => S.session?.token, () => endSession('Your session ended: sign in again.'));

function deviceId() {
  let id = store.get('device');
  if (!id) {
    id = 'web-' + Date.now().toString(36) + Math.random().toString(36).slice(2, 10);
    store.set('device', id);
  }
  return id;
}

function newSendId() {
  return 'w-' + Date.now().toString(36) + '-' + Math.random().toString(36).slice(2, 12);
}

// ---- notices ----

function notice(text, isError = true) {
  $('notice-text').textContent = text;
  $('notice').className = isError ? 'error' : 'info';
  $('notice').hidden = false;
}

function showError(e) {
  notice(e instanceof RoostError ? e.message : 'Something went wrong: ' + (e?.message || e));
}

$('notice-close').onclick = () => { $('notice').hidden = true; };

// ---- names ----

function userName(uid) {
  if (uid === S.session?.uid) return 'You';
  if (!S.users.has(uid)) {
    S.users.set(uid, uid);
    api.get('/users/' + uid).then(u => { S.users.set(uid, u.nick || u.username); renderSoon(); }).catch(() => {});
  }
  return S.users.get(uid);
}

function groupName(id) {
  if (!S.groups.has(id)) {
    S.groups.set(id, 'Group ' + id.slice(-4));
    api.get('/groups/' + id).then(g => { S.groups.set(id, g.name); renderSoon(); }).catch(() => {});
  }
  return S.groups.get(id);
}

function title(conv) {
  return conv.kind === 'group' ? groupName(conv.id) : userName(conv.id);
}

function initial(name) {
  return (name || '?').trim().charAt(0).toUpperCase() || '?';
}

// ---- messages in one shape (a push, or a history item) ----

function fromHistory(m) {
  return { seq: m.seq, msgId: m.msgId, sender: m.senderUid, sendId: m.sendId, type: m.type, text: m.text, media: m.media,
    event: m.event, mentions: m.mentions || [], at: Date.parse(m.createdAt), recalled: !!m.recalled, deleted: !!m.deleted };
}

function fromPush(f) {
  return { seq: f.seq, msgId: f.msgId, sender: f.senderUid, sendId: f.sendId, type: f.msgType, text: f.body?.text,
    media: f.body?.media, event: f.body?.event, mentions: f.mentions || [], at: f.sentAt, recalled: !!f.recalled, deleted: false };
}

function preview(m) {
  if (m.recalled) return '[recalled]';
  if (m.deleted) return '[deleted]';
  if (m.type === 'system') return m.event ? eventText(m.event) : (m.text || '');
  if (m.type === 'image') return '[image]';
  if (m.type === 'text' || m.type === 'custom') return m.text || '';
  return '[' + m.type + ']';
}

function eventText(e) {
  const who = userName(e.actor);
  const whom = e.target ? userName(e.target) : '';
  switch (e.type) {
    case 'created': return `${who} created the group`;
    case 'joined': return `${who} joined`;
    case 'quit': return `${who} left`;
    case 'kicked': return `${who} removed ${whom}`;
    case 'info_changed': return `${who} changed the group's info`;
    case 'dissolved': return `${who} dissolved the group`;
    default: return `${who}: ${e.type.replace(/_/g, ' ')}${whom ? ' ' + whom : ''}`;
  }
}

// ---- conversations ----

function conversation(kind, id) {
  const key = (kind === 'group' ? 'g:' : 'u:') + id;
  let c = S.convs.get(key);
  if (!c) {
    c = { key, kind, id, lastSeq: 0, preview: '', unread: 0, readSeq: 0, peerReadSeq: 0, peerDeliveredSeq: 0, lastAt: 0,
      mentioned: false, timeline: null, pending: [] };
    S.convs.set(key, c);
  }
  return c;
}

function target(conv) {
  return conv.kind === 'group' ? { group: conv.id } : { peer: conv.id };
}

function historyPath(conv) {
  return conv.kind === 'group' ? `/chat/groups/${conv.id}` : `/chat/users/me/conversations/${conv.id}`;
}

function applyConversation(c) {
  const conv = c.kind === 'group' ? conversation('group', c.group) : conversation('user', c.peer);
  const at = Date.parse(c.updatedAt) || 0;
  if (c.lastSeq > conv.lastSeq || !conv.lastAt) conv.lastAt = Math.max(conv.lastAt, at);
  Object.assign(conv, { lastSeq: c.lastSeq, preview: c.lastPreview || '', unread: c.unread, readSeq: c.readSeq || 0,
    mentioned: !!c.mentioned });
  conv.peerReadSeq = Math.max(conv.peerReadSeq, c.peerReadSeq || 0);
  conv.peerDeliveredSeq = Math.max(conv.peerDeliveredSeq, c.peerDeliveredSeq || 0, conv.peerReadSeq);
}

/** The conversations changed since the version kept (all of them the first time), as the sync rules say. */
async function syncConversations() {
  for (;;) {
    const page = await api.get(`/chat/users/me/conversations?since=${S.syncVersion}&limit=100`);
    page.items.forEach(applyConversation);
    if (page.items.length) S.syncVersion = page.items[page.items.length - 1].syncVersion;
    if (!page.next) break;
  }
  save();
}

/** Messages after the highest seq held without a hole, until nothing is missing. */
async function catchUp(conv) {
  if (conv.catchingUp) { conv.catchUpAgain = true; return; }
  conv.catchingUp = true;
  try {
    if (conv.kind === 'user' && conv.lastSeq === 0 && conv.timeline.empty) {
      conv.timeline.start = true; // a contact with no message yet: nothing to read (the server would answer 404)
      return;
    }
    do {
      conv.catchUpAgain = false;
      const t = conv.timeline;
      let sync;
      try {
        sync = await api.get(`${historyPath(conv)}/sync?after=${t.high}&limit=100`);
      } catch (e) {
        if (e.status === 404) { t.start = true; break; } // no message exchanged yet
        throw e;
      }
      const before = t.high;
      t.caughtUp({ items: sync.items.map(fromHistory), gap: sync.gap });
      if (sync.gap?.reason === 'purged' && t.low === sync.gap.beforeSeq) t.start = true;
      if (t.high === before && !sync.gap) break;
    } while (conv.timeline.holes() || conv.catchUpAgain);
    acknowledge(conv, conv.timeline.high);
  } finally {
    conv.catchingUp = false;
    render();
    if (S.open === conv.key) renderTimeline();
    markRead(conv);
    save();
  }
}

async function loadOlder(conv) {
  const t = conv.timeline;
  if (!t || t.start || S.loadingOlder || t.empty) return;
  S.loadingOlder = true;
  try {
    const page = await api.get(`${historyPath(conv)}/messages?before=${t.low}&limit=${PAGE}`);
    t.older({ items: page.items.map(fromHistory), next: page.next });
    renderTimeline('older');
  } catch (e) {
    showError(e);
  } finally {
    S.loadingOlder = false;
  }
}

function acknowledge(conv, seq) {
  if (seq > 0) S.device?.send({ type: 'chatAck', ...target(conv), seq });
}

async function markRead(conv) {
  const t = conv.timeline;
  if (!S.device || S.open !== conv.key || document.visibilityState !== 'visible' || !t || t.high <= conv.readSeq) return;
  const readSeq = t.high;
  conv.readSeq = readSeq;
  try {
    const r = await S.device.op('chatOp', { op: 'read', ...target(conv), readSeq });
    conv.unread = r.unread ?? 0;
    conv.mentioned = false;
    render();
  } catch (e) {
    conv.readSeq = 0; // not reported: again at the next chance
  }
}

function openConversation(key) {
  const conv = S.convs.get(key);
  if (!conv) return;
  S.open = key;
  if (location.hash !== '#' + key) history.replaceState(null, '', '#' + key);
  document.body.classList.add('in-chat');
  $('members').hidden = true;
  if (!conv.timeline) conv.timeline = new Timeline();
  render();
  renderTimeline('bottom');
  $('composer-text').focus();
  catchUp(conv).catch(showError);
}

function closeConversation() {
  S.open = null;
  history.replaceState(null, '', location.pathname);
  document.body.classList.remove('in-chat');
  render();
}

// ---- pushes ----

function onFrame(f) {
  switch (f.type) {
    case 'chatMsg': return onMessage(f);
    case 'chatReceipt': {
      const conv = conversation('user', f.peer);
      if (f.kind === 'read') conv.peerReadSeq = Math.max(conv.peerReadSeq, f.seq);
      conv.peerDeliveredSeq = Math.max(conv.peerDeliveredSeq, f.seq);
      return renderSoon();
    }
    case 'chatRead': {
      const conv = conversation('user', f.peer);
      conv.unread = f.unread;
      conv.readSeq = Math.max(conv.readSeq, f.readSeq);
      return renderSoon();
    }
    case 'chatRecall': return onRecall(f);
    case 'presence': {
      const known = S.contacts.get(f.uid);
      if (!known || f.version > known.version) S.contacts.set(f.uid, { online: f.online, version: f.version });
      return renderSoon();
    }
    case 'friendOp':
      if (f.op === 'answer' && f.status === 'ACCEPTED') {
        notice(`${userName(f.to)} accepted your request.`, false);
        loadContacts().catch(showError);
      } else if (f.op === 'request') {
        loadRequests().catch(showError);
      }
      return;
    case 'groupOp':
      if (f.op === 'invited') {
        S.invitations.set(f.requestId, { requestId: f.requestId, groupId: f.groupId, actor: f.actor });
        renderSoon();
      } else if (f.op === 'kicked' || f.op === 'dissolved') {
        notice(`${groupName(f.groupId)}: ${f.op === 'kicked' ? 'you were removed' : 'the group was dissolved'}.`, false);
      } else if (f.op === 'joined' || f.op === 'quit') {
        S.members.delete(f.groupId);
        if (S.open === 'g:' + f.groupId) loadMembers(S.convs.get(S.open)).catch(() => {});
      }
      return;
    case 'error':
      return notice(`The server refused a frame: ${f.message || f.code}`);
  }
}

function onMessage(f) {
  const me = S.session.uid;
  const conv = f.group ? conversation('group', f.group) : conversation('user', f.from === me ? f.to : f.from);
  const m = fromPush(f);
  const mine = m.sender === me;
  if (f.peerDeliveredSeq) conv.peerDeliveredSeq = Math.max(conv.peerDeliveredSeq, f.peerDeliveredSeq);
  const seen = conv.timeline?.bySeq.has(m.seq) || m.seq <= conv.lastSeq;
  if (!seen) {
    conv.lastSeq = m.seq;
    conv.lastAt = m.at;
    conv.preview = preview(m);
    if (!mine) {
      conv.unread++;
      if (m.mentions.includes(me) || f.mentionAll) conv.mentioned = true;
    }
  }
  const t = conv.timeline;
  if (t && !(f.again && t.bySeq.has(m.seq) && !m.recalled)) {
    t.put(m);
    conv.pending = conv.pending.filter(p => p.sendId !== m.sendId || !mine);
  }
  if (t && t.holes()) catchUp(conv).catch(showError);
  acknowledge(conv, t && !t.empty ? t.high : m.seq);
  render();
  if (S.open === conv.key) renderTimeline();
  markRead(conv);
  save();
}

function onRecall(f) {
  const conv = f.group ? conversation('group', f.group) : conversation('user', f.from === S.session.uid ? f.to : f.from);
  const held = conv.timeline?.bySeq.get(f.seq);
  if (held) {
    const gone = f.kind === 'delete' ? { deleted: true } : { recalled: true };
    conv.timeline.bySeq.set(f.seq, { ...held, ...gone, text: undefined, media: undefined });
  }
  if (f.seq === conv.lastSeq) conv.preview = f.kind === 'delete' ? '[deleted]' : '[recalled]';
  render();
  if (S.open === conv.key) renderTimeline();
  save();
}

// ---- sending ----

async function send(conv, item, body) {
  item.state = 'sending';
  item.error = null;
  renderTimeline('bottom');
  const fields = { op: 'send', ...target(conv), sendId: item.sendId, msgType: item.type, body };
  if (item.mentions?.length) fields.mentions = item.mentions;
  try {
    const r = await S.device.op('chatOp', fields);
    conv.pending = conv.pending.filter(p => p !== item);
    const m = { seq: r.msgSeq, msgId: r.msgId, sender: S.session.uid, sendId: item.sendId, type: item.type, text: body.text,
      media: item.media, mentions: item.mentions || [], at: r.sentAt, recalled: false, deleted: false };
    if (r.peerDeliveredSeq) conv.peerDeliveredSeq = Math.max(conv.peerDeliveredSeq, r.peerDeliveredSeq);
    if (!conv.timeline.bySeq.has(m.seq)) conv.timeline.put(m);
    if (m.seq > conv.lastSeq) Object.assign(conv, { lastSeq: m.seq, lastAt: m.at, preview: preview(m) });
    if (conv.timeline.holes()) catchUp(conv).catch(showError);
    else acknowledge(conv, conv.timeline.high);
    save();
  } catch (e) {
    item.state = 'failed';
    item.error = e.message;
    showError(e);
  }
  render();
  if (S.open === conv.key) renderTimeline('bottom');
}

function sendText() {
  const conv = S.convs.get(S.open);
  const input = $('composer-text');
  const text = input.value.trim();
  if (!conv || !text) return;
  const mentions = conv.kind === 'group' ? [...(conv.mentionNames || new Map())]
    .filter(([name]) => text.includes('@' + name)).map(([, uid]) => uid) : [];
  const item = { sendId: newSendId(), sender: S.session.uid, type: 'text', text, mentions, at: Date.now() };
  conv.pending.push(item);
  conv.mentionNames = new Map();
  input.value = '';
  autoGrow();
  send(conv, item, { text }).catch(showError);
}

async function sendImage(file) {
  const conv = S.convs.get(S.open);
  if (!conv) return;
  if (!file.type.startsWith('image/')) { notice('Only images can be sent here.'); return; }
  const item = { sendId: newSendId(), sender: S.session.uid, type: 'image', at: Date.now(), progress: 0, localUrl: URL.createObjectURL(file), state: 'uploading' };
  conv.pending.push(item);
  const bar = $('upload-progress');
  bar.hidden = false;
  bar.value = 0;
  bar.dataset.done = 'false';
  renderTimeline('bottom');
  try {
    const stored = await api.upload(file, await sha256Hex(file), p => {
      item.progress = p;
      bar.value = p;
      const own = document.querySelector(`[data-send-id="${item.sendId}"] progress`);
      if (own) own.value = p;
    });
    bar.dataset.done = 'true';
    item.media = { id: stored.id, url: `/api/v1/media/${stored.id}/content`, thumbnail: stored.thumbnail ? `/api/v1/media/${stored.id}/thumbnail` : null,
      width: stored.width, height: stored.height };
    images.set(stored.id + ':thumb', item.localUrl);
    await send(conv, item, { media: { id: stored.id } });
  } catch (e) {
    item.state = 'failed';
    item.error = e.message;
    showError(e);
    renderTimeline();
  } finally {
    setTimeout(() => { if (bar.dataset.done === 'true') bar.hidden = true; }, 1500);
  }
}

async function recall(conv, m) {
  try {
    const r = await S.device.op('chatOp', { op: 'recall', ...target(conv), msgSeq: m.seq });
    onRecall({ ...target(conv), group: conv.kind === 'group' ? conv.id : undefined, from: S.session.uid, to: conv.id, seq: m.seq, kind: 'recall', msgId: r.message?.msgId });
  } catch (e) {
    showError(e);
  }
}

// ---- images: fetched with the token, shown through object URLs ----

const images = new Map(); // media id + kind → object URL

function image(media, kind) {
  const path = kind === 'thumb' ? (media.thumbnail && typeof media.thumbnail === 'string' ? media.thumbnail : media.url) : media.url;
  const key = media.id + ':' + kind;
  const img = h('img', { class: kind === 'thumb' ? 'thumb' : 'full', alt: 'Image', width: dims(media)[0], height: dims(media)[1] });
  if (images.has(key)) {
    img.src = images.get(key);
  } else {
    api.objectUrl(path).then(url => { images.set(key, url); img.src = url; }).catch(e => { img.alt = e.message; img.classList.add('broken'); });
  }
  return img;
}

function dims(media) {
  const w = media.width || 240;
  const hgt = media.height || 180;
  const scale = Math.min(1, 240 / w, 240 / hgt);
  return [Math.round(w * scale), Math.round(hgt * scale)];
}

async function showFull(media) {
  const dialog = $('image-view');
  const img = $('image-full');
  img.removeAttribute('src');
  dialog.showModal();
  try {
    const key = media.id + ':full';
    if (!images.has(key)) images.set(key, await api.objectUrl(media.url));
    img.src = images.get(key);
  } catch (e) {
    dialog.close();
    showError(e);
  }
}

// ---- contacts, requests, groups ----

async function loadContacts() {
  const items = await api.all('/social/users/me/presence?limit=500');
  for (const p of items) {
    const known = S.contacts.get(p.uid);
    if (!known || p.version >= known.version) S.contacts.set(p.uid, { online: p.online, version: p.version });
  }
  render();
}

async function loadRequests() {
  if (S.device?.socialMode === 'follow') { S.requests = []; return; }
  S.requests = await api.all('/social/friend-requests?direction=incoming&status=PENDING&limit=100', 'before');
  render();
}

async function addContact(text) {
  let uid = text.trim();
  if (!/^\d+$/.test(uid)) {
    const found = await api.get('/users?username=' + encodeURIComponent(uid));
    if (!found.items.length) throw new RoostError('No such user', `nobody is called ${uid}`, 'not-found', 404);
    uid = found.items[0].id;
  }
  if (S.device?.socialMode === 'follow') {
    await api.call('PUT', '/social/following/' + uid, {});
    notice(`You follow ${userName(uid)} now.`, false);
    await loadContacts();
  } else {
    const r = await api.post('/social/friend-requests', { to: uid });
    notice(r.friends ? `You and ${userName(uid)} are friends now.` : `Request sent to ${userName(uid)}.`, false);
    if (r.friends) await loadContacts();
  }
}

async function answerRequest(request, decision) {
  try {
    await api.post(`/social/friend-requests/${request.id}/answer`, { decision });
    S.requests = S.requests.filter(r => r !== request);
    if (decision === 'accept') await loadContacts();
    render();
  } catch (e) {
    showError(e);
  }
}

async function answerInvitation(inv, decision) {
  try {
    await api.post(`/groups/requests/${inv.requestId}/answer`, { decision });
    S.invitations.delete(inv.requestId);
    if (decision === 'accept') {
      const conv = conversation('group', inv.groupId);
      conv.lastAt = Date.now();
      switchTab('chats');
      openConversation(conv.key);
    }
    render();
  } catch (e) {
    showError(e);
  }
}

async function createGroup(name, uids) {
  const group = await api.post('/groups', { name, type: 'chat', joinPolicy: 'invite-only', visibility: 'public' });
  S.groups.set(group.id, group.name);
  const failed = [];
  for (const uid of uids) {
    try { await api.post(`/groups/${group.id}/invitations`, { uid }); } catch (e) { failed.push(`${userName(uid)} (${e.message})`); }
  }
  if (failed.length) notice('Not invited: ' + failed.join(', '));
  const conv = conversation('group', group.id);
  conv.lastAt = Date.now();
  switchTab('chats');
  openConversation(conv.key);
}

async function loadMembers(conv) {
  const members = await api.all(`/groups/${conv.id}/members?limit=200`);
  S.members.set(conv.id, members);
  members.forEach(m => userName(m.uid));
  renderMembers(conv);
}

// ---- rendering ----

let renderQueued = false;
function renderSoon() {
  if (renderQueued) return;
  renderQueued = true;
  requestAnimationFrame(() => { renderQueued = false; render(); if (S.open) renderTimeline(); });
}

function time(ms) {
  if (!ms) return '';
  const d = new Date(ms);
  const today = new Date().toDateString() === d.toDateString();
  return today ? d.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' }) : d.toLocaleDateString([], { month: 'short', day: 'numeric' });
}

function presenceDot(uid) {
  const online = S.contacts.get(uid)?.online;
  return h('span', { class: 'dot ' + (online ? 'online' : 'offline'), title: online ? 'Online' : 'Offline', 'data-uid': uid });
}

function render() {
  if (!S.session) return;
  $('me-name').textContent = S.session.username;
  $('me-avatar').textContent = initial(S.session.username);
  const convs = [...S.convs.values()].filter(c => c.lastSeq > 0 || c.key === S.open || c.kind === 'group')
    .sort((a, b) => b.lastAt - a.lastAt);
  $('conversations').replaceChildren(...convs.map(c => h('li', {},
    h('button', { type: 'button', class: 'conv' + (c.key === S.open ? ' active' : ''), 'data-key': c.key, onclick: () => openConversation(c.key) },
      h('span', { class: 'avatar' + (c.kind === 'group' ? ' group' : '') }, initial(title(c)),
        c.kind === 'user' ? presenceDot(c.id) : null),
      h('span', { class: 'conv-main' },
        h('span', { class: 'conv-top' }, h('span', { class: 'name' }, title(c)), h('time', {}, time(c.lastAt))),
        h('span', { class: 'conv-bottom' },
          h('span', { class: 'preview' }, (c.mentioned ? '[@you] ' : '') + c.preview),
          c.unread > 0 ? h('span', { class: 'badge unread', 'aria-label': `${c.unread} unread` }, String(c.unread)) : null))))));
  $('no-conversations').hidden = convs.length > 0;

  const contacts = [...S.contacts.keys()].sort((a, b) => userName(a).localeCompare(userName(b)));
  $('contacts').replaceChildren(...contacts.map(uid => h('li', {},
    h('button', { type: 'button', class: 'contact', 'data-uid': uid, onclick: () => { openConversation(conversation('user', uid).key); switchTab('chats'); } },
      h('span', { class: 'avatar' }, initial(userName(uid)), presenceDot(uid)),
      h('span', { class: 'name' }, userName(uid)),
      h('span', { class: 'muted small' }, S.contacts.get(uid).online ? 'online' : 'offline')))));
  $('no-contacts').hidden = contacts.length > 0;
  $('requests').replaceChildren(
    ...S.requests.map(r => h('li', { class: 'request', 'data-request': r.id },
      h('span', { class: 'grow' }, h('span', { class: 'strong' }, userName(r.from)), ' wants to be your contact', r.message ? h('span', { class: 'muted small block' }, r.message) : null),
      h('button', { type: 'button', class: 'accept', onclick: () => answerRequest(r, 'accept') }, 'Accept'),
      h('button', { type: 'button', class: 'quiet decline', onclick: () => answerRequest(r, 'reject') }, 'Decline'))),
    ...[...S.invitations.values()].map(i => h('li', { class: 'request invitation', 'data-group': i.groupId },
      h('span', { class: 'grow' }, h('span', { class: 'strong' }, userName(i.actor)), ' invites you to ', h('span', { class: 'strong' }, groupName(i.groupId))),
      h('button', { type: 'button', class: 'accept', onclick: () => answerInvitation(i, 'accept') }, 'Join'),
      h('button', { type: 'button', class: 'quiet decline', onclick: () => answerInvitation(i, 'reject') }, 'Decline'))));
  const waiting = S.requests.length + S.invitations.size;
  $('requests-badge').hidden = waiting === 0;
  $('requests-badge').textContent = String(waiting);

  const conv = S.convs.get(S.open);
  $('chat').classList.toggle('none', !conv);
  $('chat-empty').hidden = !!conv;
  for (const id of ['composer', 'timeline']) $(id).hidden = !conv;
  if (!conv) return;
  $('chat-title').textContent = title(conv);
  $('chat-avatar').replaceChildren(initial(title(conv)), conv.kind === 'user' ? presenceDot(conv.id) : '');
  $('chat-sub').textContent = conv.kind === 'group'
    ? (S.members.has(conv.id) ? `${S.members.get(conv.id).length} members` : 'Group')
    : (S.contacts.get(conv.id)?.online ? 'online' : 'offline');
  $('members-toggle').hidden = conv.kind !== 'group';
}

function mark(conv, m) {
  if (m.state) return m.state === 'failed' ? ['failed', '!'] : ['sending', '…'];
  if (conv.kind === 'group') return ['sent', '✓'];
  if (m.seq <= conv.peerReadSeq) return ['read', '✓✓'];
  if (m.seq <= conv.peerDeliveredSeq) return ['delivered', '✓✓'];
  return ['sent', '✓'];
}

const MARK_LABEL = { read: 'Read', delivered: 'Delivered', sent: 'Sent', sending: 'Sending', failed: 'Not sent' };

function messageItem(conv, m) {
  const me = S.session.uid;
  if (m.type === 'system') {
    return h('li', { class: 'msg system', 'data-seq': m.seq }, h('span', {}, m.event ? eventText(m.event) : (m.text || '')));
  }
  const mine = m.sender === me;
  const [state, symbol] = mine ? mark(conv, m) : [null, null];
  let content;
  if (m.recalled) content = h('p', { class: 'gone' }, mine ? 'You recalled this message' : 'This message was recalled');
  else if (m.deleted) content = h('p', { class: 'gone' }, 'Deleted');
  else if (m.type === 'image' && (m.media || m.localUrl)) {
    content = m.media
      ? h('button', { type: 'button', class: 'image', 'aria-label': 'Open the image', onclick: () => showFull(m.media) }, image(m.media, 'thumb'))
      : h('span', { class: 'image' }, h('img', { class: 'thumb', src: m.localUrl, alt: 'Image being sent', width: 160, height: 120 }));
  } else if (m.type === 'text' || m.type === 'custom') content = h('p', { class: 'text' }, m.text || '');
  else content = h('p', { class: 'gone' }, `[${m.type}]`);
  const canRecall = mine && m.seq && !m.recalled && !m.deleted && Date.now() - m.at < RECALL_WINDOW_MS;
  return h('li', {
    class: 'msg ' + (mine ? 'mine' : 'theirs') + (m.mentions?.includes(me) ? ' mentions-me' : ''),
    'data-seq': m.seq ?? null, 'data-send-id': m.sendId ?? null, 'data-state': state
  },
  h('div', { class: 'bubble' },
    !mine && conv.kind === 'group' ? h('span', { class: 'who' }, userName(m.sender)) : null,
    content,
    m.state === 'uploading' ? h('progress', { max: 1, value: m.progress || 0 }) : null,
    h('span', { class: 'meta' },
      h('time', {}, time(m.at)),
      mine ? h('span', { class: 'mark ' + state, title: MARK_LABEL[state], 'aria-label': MARK_LABEL[state] }, symbol) : null,
      canRecall ? h('button', { type: 'button', class: 'link recall', onclick: () => recall(conv, m) }, 'Recall') : null,
      m.state === 'failed' ? h('button', { type: 'button', class: 'link retry', onclick: () => retry(conv, m) }, 'Retry') : null)));
}

function retry(conv, item) {
  send(conv, item, item.type === 'image' ? { media: { id: item.media.id } } : { text: item.text }).catch(showError);
}

function renderTimeline(mode) {
  const conv = S.convs.get(S.open);
  const list = $('timeline');
  if (!conv?.timeline) { list.replaceChildren(); return; }
  const fromBottom = list.scrollHeight - list.scrollTop;
  const atBottom = list.scrollHeight - list.scrollTop - list.clientHeight < 60;
  const t = conv.timeline;
  const head = t.start ? h('li', { class: 'msg system start' }, h('span', {}, 'Start of the conversation'))
    : h('li', { class: 'msg system older' }, h('button', { type: 'button', class: 'link', id: 'load-older', onclick: () => loadOlder(conv) }, 'Load older messages'));
  list.replaceChildren(head, ...t.items().map(m => messageItem(conv, m)), ...conv.pending.map(m => messageItem(conv, m)));
  if (mode === 'older') list.scrollTop = list.scrollHeight - fromBottom;
  else if (mode === 'bottom' || atBottom) list.scrollTop = list.scrollHeight;
}

function renderMembers(conv) {
  const members = S.members.get(conv.id) || [];
  const roles = { O: 'owner', A: 'admin', W: '', R: 'reader' };
  $('member-list').replaceChildren(...members.map(m => h('li', { class: 'member', 'data-uid': m.uid },
    h('span', { class: 'avatar' }, initial(userName(m.uid)), presenceDot(m.uid)), h('span', { class: 'grow' }, userName(m.uid)),
    h('span', { class: 'muted small' }, roles[m.role] ?? m.role))));
  render();
}

// ---- mentions ----

function mentionQuery() {
  const input = $('composer-text');
  const before = input.value.slice(0, input.selectionStart);
  const match = /(^|\s)@([^\s@]*)$/.exec(before);
  return match ? match[2] : null;
}

async function updateMentionPicker() {
  const conv = S.convs.get(S.open);
  const picker = $('mention-picker');
  const q = conv?.kind === 'group' ? mentionQuery() : null;
  if (q === null) { picker.hidden = true; return; }
  if (!S.members.has(conv.id)) await loadMembers(conv).catch(() => {});
  const candidates = (S.members.get(conv.id) || []).filter(m => m.uid !== S.session.uid)
    .filter(m => userName(m.uid).toLowerCase().startsWith(q.toLowerCase())).slice(0, 8);
  picker.replaceChildren(...candidates.map((m, i) => h('li', { role: 'option', 'aria-selected': i === 0 ? 'true' : 'false', 'data-uid': m.uid },
    h('button', { type: 'button', class: 'mention-option', onmousedown: e => { e.preventDefault(); pickMention(m.uid); } },
      h('span', { class: 'avatar' }, initial(userName(m.uid))), userName(m.uid)))));
  picker.hidden = candidates.length === 0;
}

function pickMention(uid) {
  const conv = S.convs.get(S.open);
  const input = $('composer-text');
  const name = userName(uid);
  const caret = input.selectionStart;
  const before = input.value.slice(0, caret).replace(/@([^\s@]*)$/, '@' + name + ' ');
  input.value = before + input.value.slice(caret);
  input.selectionStart = input.selectionEnd = before.length;
  conv.mentionNames = conv.mentionNames || new Map();
  conv.mentionNames.set(name, uid);
  $('mention-picker').hidden = true;
  input.focus();
}

function movePick(step) {
  const options = [...$('mention-picker').children];
  const at = options.findIndex(o => o.getAttribute('aria-selected') === 'true');
  const next = (at + step + options.length) % options.length;
  options.forEach((o, i) => o.setAttribute('aria-selected', i === next ? 'true' : 'false'));
}

// ---- persistence across a reload ----

let saveQueued = null;
function save() {
  clearTimeout(saveQueued);
  saveQueued = setTimeout(() => {
    if (!S.session) return;
    const convs = [...S.convs.values()].map(c => ({
      key: c.key, kind: c.kind, id: c.id, lastSeq: c.lastSeq, preview: c.preview, unread: c.unread, readSeq: c.readSeq,
      peerReadSeq: c.peerReadSeq, peerDeliveredSeq: c.peerDeliveredSeq, lastAt: c.lastAt, mentioned: c.mentioned,
      timeline: c.timeline?.saved(KEEP) || null
    }));
    try {
      store.set('cache', { uid: S.session.uid, syncVersion: S.syncVersion, convs, users: [...S.users], groups: [...S.groups] });
    } catch (e) {
      store.drop('cache'); // over the storage quota: the next start reads everything again
    }
  }, 200);
}

function restore() {
  const cache = store.get('cache');
  if (!cache || cache.uid !== S.session.uid) return;
  S.syncVersion = cache.syncVersion || 0;
  cache.users.forEach(([k, v]) => { if (k !== v) S.users.set(k, v); });
  cache.groups.forEach(([k, v]) => S.groups.set(k, v));
  for (const c of cache.convs) {
    S.convs.set(c.key, { ...c, timeline: c.timeline ? new Timeline(c.timeline) : null, pending: [] });
  }
}

// ---- session ----

async function signIn(register) {
  const username = $('auth-name').value.trim();
  const password = $('auth-password').value;
  if (!username || !password) { notice('Enter a user name and a password.'); return; }
  $('sign-in').disabled = $('register').disabled = true;
  try {
    const device = { deviceType: 'web', deviceId: deviceId() };
    let token, uid;
    if (register) {
      const r = await api.post('/registrations', { username, password, ...device });
      token = r.token.token;
      uid = r.account.id;
    } else {
      const r = await api.post('/auth/login', { login: username, password, ...device });
      token = r.token;
      uid = r.accountId;
    }
    S.session = { token, uid, username };
    const me = await api.get('/accounts/me');
    S.session.username = me.username;
    store.set('session', S.session);
    $('notice').hidden = true;
    start();
  } catch (e) {
    showError(e);
  } finally {
    $('sign-in').disabled = $('register').disabled = false;
  }
}

async function signOut() {
  const device = S.device;
  S.device = null;
  if (device && !(await device.logout())) {
    await api.call('DELETE', '/auth/tokens/current').catch(() => {});
  }
  endSession(null);
}

function endSession(message) {
  S.device?.stop();
  S.device = null;
  S.session = null;
  store.drop('session');
  store.drop('cache');
  for (const url of images.values()) URL.revokeObjectURL(url);
  images.clear();
  Object.assign(S, { convs: new Map(), users: new Map(), groups: new Map(), contacts: new Map(), requests: [],
    invitations: new Map(), members: new Map(), syncVersion: 0, open: null });
  document.body.classList.remove('in-chat');
  history.replaceState(null, '', location.pathname);
  $('app').hidden = true;
  $('auth').hidden = false;
  $('auth-password').value = '';
  if (message) notice(message);
}

function start() {
  $('auth').hidden = true;
  $('app').hidden = false;
  restore();
  render();
  S.device = new Device(S.session.token, deviceId(), {
    frame: onFrame,
    state: s => {
      $('connection').textContent = { connecting: 'Connecting…', online: 'Online', offline: 'Offline: reconnecting…' }[s];
      $('connection').className = 'muted small ' + s;
      if (s === 'online') online().catch(showError);
    },
    ended: reason => endSession(reason === 'replaced_by_new_login'
      ? 'You signed in to this account in another window; this one was signed out.'
      : `Signed out by the server (${reason.replace(/_|-/g, ' ')}).`)
  });
  S.device.start();
  const key = decodeURIComponent(location.hash.slice(1));
  if (/^[ug]:\d+$/.test(key)) {
    const [kind, id] = key.split(':');
    openConversation(conversation(kind === 'g' ? 'group' : 'user', id).key);
  }
}

/** Each (re)connect: catch up on what came while away, then pushes take over. */
async function online() {
  await Promise.all([syncConversations(), loadContacts(), loadRequests()]);
  render();
  const conv = S.convs.get(S.open);
  if (conv) await catchUp(conv);
}

// ---- wiring ----

function switchTab(tab) {
  $('tab-chats').setAttribute('aria-selected', String(tab === 'chats'));
  $('tab-contacts').setAttribute('aria-selected', String(tab === 'contacts'));
  $('chats-pane').hidden = tab !== 'chats';
  $('contacts-pane').hidden = tab !== 'contacts';
}

function autoGrow() {
  const t = $('composer-text');
  t.style.height = 'auto';
  t.style.height = Math.min(t.scrollHeight, 160) + 'px';
  t.style.overflowY = t.scrollHeight > 160 ? 'auto' : 'hidden';
}

$('auth-form').onsubmit = e => { e.preventDefault(); signIn(false); };
$('register').onclick = () => signIn(true);
$('sign-out').onclick = () => signOut();
$('tab-chats').onclick = () => switchTab('chats');
$('tab-contacts').onclick = () => switchTab('contacts');
$('back').onclick = () => closeConversation();
$('composer').onsubmit = e => { e.preventDefault(); sendText(); };
$('composer-text').addEventListener('keydown', e => {
  const picking = !$('mention-picker').hidden;
  if (picking && (e.key === 'ArrowDown' || e.key === 'ArrowUp')) { e.preventDefault(); movePick(e.key === 'ArrowDown' ? 1 : -1); return; }
  if (picking && (e.key === 'Enter' || e.key === 'Tab')) {
    e.preventDefault();
    const chosen = $('mention-picker').querySelector('[aria-selected="true"]');
    if (chosen) pickMention(chosen.dataset.uid);
    return;
  }
  if (picking && e.key === 'Escape') { $('mention-picker').hidden = true; return; }
  if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) { e.preventDefault(); sendText(); }
});
$('composer-text').addEventListener('input', () => { autoGrow(); updateMentionPicker(); });
$('file').onchange = e => { [...e.target.files].forEach(f => sendImage(f)); e.target.value = ''; };
$('timeline').addEventListener('scroll', () => {
  const conv = S.convs.get(S.open);
  if (conv && $('timeline').scrollTop < 80) loadOlder(conv);
});
$('add-contact').onsubmit = async e => {
  e.preventDefault();
  try {
    await addContact($('add-contact-name').value);
    $('add-contact-name').value = '';
  } catch (err) {
    showError(err);
  }
};
$('members-toggle').onclick = () => {
  const conv = S.convs.get(S.open);
  $('members').hidden = !$('members').hidden;
  if (!$('members').hidden) loadMembers(conv).catch(showError);
};
$('new-group').onclick = () => {
  $('group-name').value = '';
  $('group-members').replaceChildren(...[...S.contacts.keys()].map(uid => h('label', { class: 'check' },
    h('input', { type: 'checkbox', value: uid, 'data-uid': uid }), userName(uid))));
  if (!S.contacts.size) $('group-members').replaceChildren(h('p', { class: 'muted' }, 'Add contacts first to invite them.'));
  $('group-dialog').showModal();
};
$('group-dialog').addEventListener('close', () => {
  if ($('group-dialog').returnValue !== 'ok') return;
  const uids = [...$('group-members').querySelectorAll('input:checked')].map(i => i.value);
  createGroup($('group-name').value.trim(), uids).catch(showError);
});
document.addEventListener('visibilitychange', () => { const c = S.convs.get(S.open); if (c) markRead(c); });
document.addEventListener('keydown', e => {
  if (e.key === 'Escape' && S.open && !document.querySelector('dialog[open]') && $('mention-picker').hidden) closeConversation();
});

if (S.session) start(); else { $('auth').hidden = false; }
