// One conversation's messages as the app holds them: every seq from low to high, without a hole
// (a conversation's seqs are gap-free), plus the ones that came ahead of a hole until a catch-up
// fills it. One entry per seq, so a message pushed and also read back is kept once.

export class Timeline {
  constructor(saved) {
    this.bySeq = new Map();
    this.ahead = new Map();
    this.low = saved?.low ?? 0;     // the lowest seq held (0: nothing held)
    this.high = saved?.high ?? 0;   // the highest seq held with everything from low up to it
    this.start = saved?.start ?? false; // nothing older exists (seq 1 held, or the rest purged)
    for (const m of saved?.items ?? []) this.bySeq.set(m.seq, m);
  }

  get empty() { return this.high === 0; }

  /** The messages held, in seq order. */
  items() { return [...this.bySeq.values()].sort((a, b) => a.seq - b.seq); }

  /** A message pushed or sent: kept in place, or ahead of a hole (then holes() is true). A known seq is replaced (a recall). */
  put(m) {
    if (this.bySeq.has(m.seq) || this.empty) {
      if (this.empty) { this.low = this.high = m.seq; this.start = m.seq === 1; }
      this.bySeq.set(m.seq, m);
      return;
    }
    if (m.seq < this.low) return; // older than what is held: paging back brings it
    this.ahead.set(m.seq, m);
    this.drain();
  }

  drain() {
    while (this.ahead.has(this.high + 1)) {
      this.high++;
      this.bySeq.set(this.high, this.ahead.get(this.high));
      this.ahead.delete(this.high);
    }
  }

  holes() { return this.ahead.size > 0; }

  /** A catch-up's answer (sync after high): its items, and its gap, when messages between are missing. */
  caughtUp(sync) {
    if (sync.gap && sync.items.length) {
      // more came than one page: start again from the page, which pages back from its first seq
      const ahead = [...this.ahead.values()];
      this.bySeq.clear();
      this.ahead.clear();
      this.low = this.high = 0;
      this.start = false;
      sync.items.forEach((m, i) => i === 0 ? this.put(m) : this.ahead.set(m.seq, m));
      ahead.forEach(m => m.seq > this.high && this.ahead.set(m.seq, m));
      this.drain();
      return;
    }
    for (const m of sync.items) this.put(m);
  }

  /** The newest page (messages before nothing): where an empty timeline starts. */
  newest(page) {
    for (const m of page.items) this.put(m);
    if (!page.next) this.start = true;
  }

  /** A page before low (paging back); next null: nothing older. */
  older(page) {
    for (const m of page.items.slice().sort((a, b) => b.seq - a.seq)) {
      if (m.seq === this.low - 1) { this.low = m.seq; this.bySeq.set(m.seq, m); }
    }
    if (!page.next || this.low === 1) this.start = true;
  }

  /** What is kept across a reload: the newest `keep` messages and where they stand. */
  saved(keep) {
    const items = this.items().filter(m => m.seq <= this.high).slice(-keep);
    if (!items.length) return null;
    return { low: items[0].seq, high: this.high, start: this.start && items[0].seq === this.low, items };
  }
}
