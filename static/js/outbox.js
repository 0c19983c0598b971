// Where a phone keeps the hands it could not send yet (static/js/offline.js fills and sends it):
// one record a match and an account, in IndexedDB (localStorage where that fails). A hand kept
// under one account is only ever shown to, sent as, or thrown away by that account; the page
// says whose it is (<meta name="account">, empty when nobody is signed in).
"use strict";

globalThis.BuckOutbox = (() => {
  const account = document.querySelector("meta[name=account]")?.content || "";
  const prefix = `${account}/`;
  let database = null;

  function db() {
    database ??= new Promise((resolve, reject) => {
      const open = indexedDB.open("buck-euchre", 2);
      // (Version 1's store, "outbox", kept records by the match alone, whoever entered them:
      // nobody can say whose they are, so none is sent from it.)
      open.onupgradeneeded = () => open.result.createObjectStore("kept");
      open.onsuccess = () => resolve(open.result);
      open.onerror = () => reject(open.error);
    });
    return database;
  }

  async function idb(mode, run) {
    const store = (await db()).transaction("kept", mode).objectStore("kept");
    return new Promise((resolve, reject) => {
      const request = run(store);
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    });
  }

  // The records of this account: [[match, record], …].
  async function all() {
    if (!account) return [];
    try {
      const range = IDBKeyRange.bound(prefix, `${prefix}\uffff`);
      const [keys, records] = await Promise.all([
        idb("readonly", (s) => s.getAllKeys(range)),
        idb("readonly", (s) => s.getAll(range)),
      ]);
      return keys.map((key, i) => [Number(key.slice(prefix.length)), records[i]]);
    } catch {
      return Object.keys(localStorage)
        .filter((key) => key.startsWith(`outbox:${prefix}`))
        .map((key) => [Number(key.slice(`outbox:${prefix}`.length)), JSON.parse(localStorage.getItem(key))]);
    }
  }

  return {
    account,
    // The hands kept for `match` by this account, or null.
    async load(match) {
      if (!account) return null;
      try {
        return (await idb("readonly", (s) => s.get(prefix + match))) || null;
      } catch {
        return JSON.parse(localStorage.getItem(`outbox:${prefix}${match}`) || "null");
      }
    },
    // Keep `record` (or forget the match's, when it holds no hand). Throws when the phone can
    // keep nothing at all (its storage full or refused): the caller says so in words.
    async store(match, record) {
      if (!account) throw new Error("nobody is signed in on this phone");
      const empty = !record?.hands.length;
      try {
        await idb("readwrite", (s) => (empty ? s.delete(prefix + match) : s.put(record, prefix + match)));
      } catch {
        if (empty) localStorage.removeItem(`outbox:${prefix}${match}`);
        else localStorage.setItem(`outbox:${prefix}${match}`, JSON.stringify(record));
      }
    },
    // How many hands this account keeps on this phone, over all its matches.
    async count() {
      return (await all()).reduce((n, [, record]) => n + (record?.hands.length || 0), 0);
    },
    // Throw away every hand this account keeps here (a log-out that was told and asked).
    async forget() {
      for (const [match] of await all()) await this.store(match, null);
    },
  };
})();
