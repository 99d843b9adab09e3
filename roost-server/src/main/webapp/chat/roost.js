// The web chat's two ways to the server: REST (/api/v1, bearer token in the Authorization header,
// never in a URL) and the device WebSocket (/ws, device type "web"): hello, login, heartbeats,
// operations answered by seq, pushes handed to the app, reconnects with backoff.

/** A refusal in plain words: a problem+json answer over REST, or a failed …Ret / error frame. */
export class RoostError extends Error {
  constructor(title, detail, code, status) {
    super(detail ? `${title}: ${detail}` : title);
    this.title = title;
    this.detail = detail;
    this.code = code;
    this.status = status;
  }
}

function problemError(problem, status) {
  const code = (problem.type || '').replace('urn:roost:problem:', '');
  return new RoostError(problem.title || `Request failed (${status})`, problem.detail || '', code, status);
}

export class Api {
  /** token(): the bearer token, or null before sign-in; onUnauthorized: the token is no good any more. */
  constructor(token, onUnauthorized) {
    this.token = token;
    this.onUnauthorized = onUnauthorized;
  }

  headers(extra) {
    const headers = { Accept: 'application/json', ...extra };
    const token = this.token();
    if (token) headers.Authorization = 'Bearer ' + token;
    return headers;
  }

  async call(method, path, body) {
    let response;
    try {
      response = await fetch('/api/v1' + path, {
        method, headers: this.headers(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        body: body === undefined ? undefined : JSON.stringify(body), credentials: 'omit'
      });
    } catch (e) {
      throw new RoostError('The server cannot be reached', 'check the connection and try again', 'network', 0);
    }
    if (response.status === 204) return null;
    const text = await response.text();
    let data = null;
    try { data = text ? JSON.parse(text) : null; } catch (e) { data = null; }
    if (!response.ok) {
      if (response.status === 401 && this.token()) this.onUnauthorized();
      throw problemError(data || { title: response.statusText }, response.status);
    }
    return data;
  }

  get(path) { return this.call('GET', path); }
  post(path, body) { return this.call('POST', path, body === undefined ? {} : body); }

  /** Every page of a keyset-paged list (items, next) as one array. */
  async all(path, cursor = 'after') {
    const items = [];
    for (let next = null; ;) {
      const sep = path.includes('?') ? '&' : '?';
      const page = await this.get(path + (next ? `${sep}${cursor}=${encodeURIComponent(next)}` : ''));
      items.push(...page.items);
      if (!page.next) return items;
      next = page.next;
    }
  }

  /** Uploads a file in one body, reporting progress (0–1); the stored file (MediaFile). */
  upload(file, sha256, onProgress) {
    return new Promise((resolve, reject) => {
      const xhr = new XMLHttpRequest();
      const query = new URLSearchParams({ name: file.name.slice(0, 255) || 'image' });
      if (sha256) query.set('sha256', sha256);
      xhr.open('POST', '/api/v1/media?' + query);
      for (const [k, v] of Object.entries(this.headers({ 'Content-Type': 'application/octet-stream' }))) xhr.setRequestHeader(k, v);
      xhr.upload.onprogress = e => { if (e.lengthComputable) onProgress(e.loaded / e.total); };
      xhr.onload = () => {
        let data = null;
        try { data = JSON.parse(xhr.responseText); } catch (e) { data = null; }
        if (xhr.status === 200 || xhr.status === 201) {
          onProgress(1);
          resolve(data);
        } else {
          reject(problemError(data || { title: 'Upload failed' }, xhr.status));
        }
      };
      xhr.onerror = () => reject(new RoostError('Upload failed', 'the server cannot be reached', 'network', 0));
      xhr.send(file);
    });
  }

  /** A download as an object URL (for an img), fetched with the bearer token. */
  async objectUrl(path) {
    const response = await fetch(path, { headers: this.headers({ Accept: '*/*' }), credentials: 'omit' });
    if (!response.ok) throw new RoostError('The image cannot be loaded', `${response.status}`, 'download', response.status);
    return URL.createObjectURL(await response.blob());
  }
}

/** The SHA-256 of a file in hex, or null where the browser offers no digest (a page not served over HTTPS or from localhost). */
export async function sha256Hex(file) {
  if (!globalThis.crypto?.subtle) return null;
  const digest = await crypto.subtle.digest('SHA-256', await file.arrayBuffer());
  return [...new Uint8Array(digest)].map(b => b.toString(16).padStart(2, '0')).join('');
}

// Kicks after which a device must not come back by itself: the user decides.
const FINAL_KICKS = new Set(['replaced_by_new_login', 'kicked_by_admin', 'account_disabled', 'account_unregistered']);
const FINAL_ERRORS = new Set(['invalid-token', 'token-device-mismatch', 'login-refused']);

/**
 * The device's WebSocket. handlers: frame(f) for every push, state(s) with 'connecting' / 'online'
 * / 'offline', ended(reason) when the session is over for good (a kick, a revoked token).
 */
export class Device {
  constructor(token, deviceId, handlers) {
    this.token = token;
    this.deviceId = deviceId;
    this.handlers = handlers;
    this.pending = new Map();
    this.nextSeq = 1;
    this.retries = 0;
    this.stopped = false;
    this.socialMode = 'approval';
    this.uid = null;
  }

  start() {
    this.stopped = false;
    this.open();
  }

  open() {
    this.handlers.state('connecting');
    const ws = new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`);
    this.ws = ws;
    this.live = false;
    ws.onopen = () => this.send({ type: 'hello', deviceId: this.deviceId, deviceType: 'web', protocolVersion: 1 });
    ws.onmessage = e => this.receive(JSON.parse(e.data));
    ws.onclose = () => this.closed(ws);
  }

  send(frame) {
    if (this.ws?.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify({ v: 1, tm: Date.now(), ...frame }));
  }

  receive(f) {
    switch (f.type) {
      case 'hello':
        this.socialMode = f.socialMode || 'approval';
        this.heartbeatMs = Math.max(1, f.heartbeatIntervalSeconds || 60) * 1000;
        this.send({ type: 'login', token: this.token });
        return;
      case 'login':
        this.uid = f.uid;
        this.live = true;
        this.retries = 0;
        clearInterval(this.heartbeat);
        this.heartbeat = setInterval(() => this.send({ type: 'heartbeat' }), this.heartbeatMs);
        this.handlers.state('online');
        return;
      case 'heartbeat':
        return;
      case 'kick':
        if (FINAL_KICKS.has(f.reason)) this.end(f.reason);
        return;
      case 'error':
        if (FINAL_ERRORS.has(f.code)) this.end(f.code);
        else this.handlers.frame(f);
        return;
      default:
        if (f.type.endsWith('OpRet') && this.pending.has(f.seq)) {
          const { resolve, reject } = this.pending.get(f.seq);
          this.pending.delete(f.seq);
          if (f.result === 'ok') resolve(f);
          else reject(new RoostError(f.message || 'The server refused that', '', f.code, 0));
          return;
        }
        this.handlers.frame(f);
    }
  }

  /** An operation frame (chatOp, friendOp, …); its answer, or a RoostError when it failed or the connection was lost. */
  op(type, fields) {
    if (!this.live) return Promise.reject(new RoostError('Not connected', 'wait until the app is online again', 'offline', 0));
    const seq = 'w' + this.nextSeq++;
    return new Promise((resolve, reject) => {
      this.pending.set(seq, { resolve, reject });
      this.send({ type, seq, ...fields });
    });
  }

  closed(ws) {
    if (ws !== this.ws) return;
    clearInterval(this.heartbeat);
    this.live = false;
    for (const { reject } of this.pending.values()) reject(new RoostError('Connection lost', 'send it again when the app is online', 'offline', 0));
    this.pending.clear();
    this.handlers.state('offline');
    if (this.stopped) return;
    const delay = Math.min(30000, 500 * 2 ** this.retries++) * (0.75 + Math.random() / 2);
    this.reconnect = setTimeout(() => this.open(), delay);
  }

  end(reason) {
    this.stop();
    this.handlers.ended(reason);
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.reconnect);
    clearInterval(this.heartbeat);
    this.ws?.close();
  }

  /** Logs out (the token revoked) and waits for the server's answer, at most a few seconds. */
  logout() {
    return new Promise(resolve => {
      if (!this.live) { this.stop(); resolve(false); return; }
      const ws = this.ws;
      const done = () => { this.stop(); resolve(true); };
      ws.addEventListener('close', done);
      setTimeout(done, 3000);
      this.stopped = true;
      this.send({ type: 'logout', revoke: true });
    });
  }
}
