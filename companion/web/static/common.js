// Dice Companion pages: live updates over SSE, posting with the CSRF token, shared drawing.
// Pages hold no rules: everything shown comes from the engine's view in the snapshot.
"use strict";
(function () {
  const boot = JSON.parse(document.getElementById("boot").textContent);
  const DC = (window.DC = {
    gameId: boot.game_id,
    csrf: boot.csrf,
    lang: boot.lang,
    snap: boot.snapshot,
    unlocked: boot.unlocked,
    catalogue: boot.catalogue || {},
    picture: boot.picture || null,
    renderers: [],
    editing: null,
    live: false,
  });

  DC.t = function (key, fields) {
    let text = DC.catalogue[key] || key;
    for (const [k, v] of Object.entries(fields || {})) text = text.split("{" + k + "}").join(v);
    return text;
  };

  // A count with its noun: "1 Wurf", "2 Würfe" (key_one / key_other in the catalogue).
  DC.tn = function (key, n, fields) {
    return DC.t(key + (n === 1 ? "_one" : "_other"), Object.assign({ n: n }, fields || {}));
  };

  // What blocks the tray (the camera runtime's reason), in the page's language, as the
  // server says it (i18n.blocked): a reason the catalogue does not know, as it came.
  DC.blocked = function (reason) {
    const key = "why_" + reason.trim().split(/\s+/).join("_");
    return DC.t("camera_blocked", { why: DC.catalogue[key] || reason });
  };

  // Who recorded an entry, in the page's language (the turn button is "Knopf").
  DC.who = function (name) {
    const key = "who_" + (name || "");
    return DC.catalogue[key] || name || "";
  };

  DC.el = function (tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") node.className = v;
      else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else if (k === "text") node.textContent = v;
      else node.setAttribute(k, v === true ? "" : v);
    }
    for (const c of children.flat()) {
      if (c === null || c === undefined || c === false) continue;
      node.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return node;
  };

  // replaceChildren without the null/false placeholders of optional parts.
  DC.put = function (node, ...children) {
    node.replaceChildren(...children.flat().filter(function (c) { return c !== null && c !== undefined && c !== false; }));
  };

  DC.status = function (message, isError) {
    const box = document.getElementById("status");
    if (!box) return;
    box.textContent = message || "";
    box.className = "status" + (message && isError ? " error" : "");
  };

  // GET a page's JSON; on failure the status line says why and the answer is null.
  DC.getJSON = async function (url) {
    let response;
    try {
      response = await fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" });
    } catch (err) {
      DC.status(DC.t("js_offline"), true);
      return null;
    }
    let data = null;
    try { data = await response.json(); } catch (err) { data = null; }
    if (!response.ok) {
      DC.status((data && data.error) || DC.t("js_failed", { status: response.status }), true);
      return null;
    }
    return data;
  };

  // POST with the CSRF token; the server answers JSON (a snapshot, or {error}).
  DC.post = async function (url, body, statusBox) {
    const say = function (message, isError) {
      if (!statusBox) { DC.status(message, isError); return; }
      statusBox.textContent = message || "";
      statusBox.className = "status" + (message && isError ? " error" : "");
    };
    const before = DC.snap ? DC.snap.version : null;
    const headers = { "X-CSRF-Token": DC.csrf, Accept: "application/json" };
    let payload = body;
    if (body && !(body instanceof FormData)) {
      headers["Content-Type"] = "application/json";
      payload = JSON.stringify(body);
    }
    let response;
    try {
      response = await fetch(url, { method: "POST", headers, body: payload, credentials: "same-origin" });
    } catch (err) {
      say(DC.t("js_offline"), true);
      return null;
    }
    let data = null;
    try { data = await response.json(); } catch (err) { data = null; }
    if (!response.ok) {
      say((data && data.error) || DC.t("js_failed", { status: response.status }), true);
      return null;
    }
    say("");
    if (data && data.snapshot) {
      DC.show(data.snapshot, data.unlocked);
      // What was stored, said where the thumb is (the score itself is further down).
      const history = data.snapshot.history || [];
      const last = history[history.length - 1];
      if (!statusBox && last && last.version !== before) {
        const what = last.kind === "undo" ? DC.t("js_undo_of", { n: last.target }) : DC.entryText(last.text, last.action);
        DC.status(DC.t("js_recorded", { text: what }), false);
        const box = document.getElementById("status");
        if (box) box.classList.add("ok");
      }
    }
    return data;
  };

  DC.action = function (action, status) {
    return DC.post("/games/" + DC.gameId + "/actions", action, status);
  };

  DC.show = function (snap, unlocked) {
    if (DC.snap && snap.version < DC.snap.version) return; // an older answer arrived late
    DC.snap = snap;
    if (unlocked !== undefined) DC.unlocked = unlocked;
    document.body.dataset.version = snap.version;
    for (const render of DC.renderers) render(snap, DC.unlocked);
    DC.renderProposal();
  };

  DC.refresh = async function () {
    if (DC.gameId === null || DC.gameId === undefined) return;
    try {
      const response = await fetch("/games/" + DC.gameId + "/snapshot.json", { headers: { Accept: "application/json" } });
      if (!response.ok) return;
      const data = await response.json();
      DC.show(data.snapshot, data.unlocked);
    } catch (err) { /* offline for a moment: the stream's reconnect will catch up */ }
  };

  DC.formatTime = function (seconds) {
    if (typeof seconds !== "number") return "";
    return new Date(seconds * 1000).toLocaleTimeString(DC.lang === "de" ? "de-DE" : "en-GB",
      { hour: "2-digit", minute: "2-digit", second: "2-digit" });
  };

  // Game pages show the camera's latest picture small, and only for the game the camera
  // reads: the notice names it. A proposal read for this game is one tap to record.
  DC.onPicture = async function (notice) {
    if (notice.game_id !== DC.gameId) return;
    showThumb();
    if (DC.unlocked) await loadPicture();
  };

  function showThumb() {
    const img = document.getElementById("camera-thumb");
    if (!img) return;
    img.src = "/camera/latest.jpg?t=" + Date.now();
    document.getElementById("camera-panel").hidden = false;
  }

  // The latest reading; null when it could not be fetched (offline for a moment).
  async function loadPicture() {
    let reading;
    try {
      const response = await fetch("/camera/latest.json", { headers: { Accept: "application/json" } });
      if (!response.ok) return null;
      reading = (await response.json()).reading;
    } catch (err) { return null; }
    if (DC.unlocked) { DC.picture = reading; DC.renderProposal(); }
    return reading;
  }

  // A picture taken while this page's stream was not open (the page was loading, the
  // phone's Wi-Fi dropped) sent its notice to nobody: on every (re)connect, look once.
  async function catchUpPicture() {
    if (DC.gameId === null || DC.gameId === undefined) return;
    const reading = await loadPicture();
    if (reading && reading.game_id === DC.gameId) showThumb();
  }

  // "Übernehmen": what the camera proposes for the turn now, valid only for the version
  // of the game it was read at (once anything is recorded it is stale and disappears).
  DC.renderProposal = function () {
    const box = document.getElementById("proposal");
    if (!box) return;
    const p = DC.picture;
    const fresh = p && p.game_id === DC.gameId && p.proposal &&
      (p.proposal.action || p.proposal.draft) && DC.snap && p.version === DC.snap.version;
    if (!fresh) { DC.checking = null; DC.put(box); return; }
    // The draft being checked stays open while the page updates around it (another
    // picture of the same rest, a hand in the tray), until the camera reads otherwise.
    const key = p.version + " " + JSON.stringify(p.proposal.draft);
    if (DC.checking && DC.checking.key === key) return;
    DC.checking = null;
    const text = DC.entryText(p.proposal.text);
    if (p.proposal.action) {
      DC.put(box, DC.el("button", { type: "button", class: "primary wide", id: "take-proposal",
        onclick: function () { DC.action(p.proposal.action); } }, DC.t("js_take_camera", { text: text })));
      return;
    }
    // A die the camera is unsure of (or dice it did not find): nothing to take in one
    // tap, but what it read opens in the game's own editor, to mend and record.
    const check = DC.el("button", { type: "button", class: "wide", id: "check-proposal",
      onclick: function () { openDraft(box, p, key); } }, DC.t("js_check_camera"));
    DC.put(box, DC.el("p", { class: "error small", id: "proposal-said" }, text), DC.editor ? check : null);
  };

  function openDraft(box, p, key) {
    const status = DC.el("div", { class: "status", role: "status" });
    // What the camera read of each die unsure of: the editor marks it for mending.
    const unsure = (p.dice || []).filter(function (d) { return d.uncertain && d.value !== null; })
      .map(function (d) { return d.value; });
    const editor = DC.editor(JSON.parse(JSON.stringify(p.proposal.draft)), async function (action) {
      const done = await DC.action(action, status);
      if (done) { DC.checking = null; DC.renderProposal(); }
    }, "js_record_draft", unsure);
    DC.checking = { key: key };
    DC.put(box, DC.el("div", { class: "editor panel", id: "draft" },
      DC.el("strong", {}, DC.t("js_check_title")), DC.el("p", { class: "small" }, DC.entryText(p.proposal.text)),
      editor, status,
      DC.el("button", { type: "button", id: "draft-cancel",
        onclick: function () { DC.checking = null; DC.renderProposal(); } }, DC.t("cancel"))));
  }

  // The physical turn button recorded or refused something: every keeper's page of
  // that game says so where the thumb is, for a few seconds.
  let buttonTimer = null;
  DC.onButton = function (notice) {
    const box = document.getElementById("button-said");
    if (!box || (notice.game_id !== null && notice.game_id !== undefined && notice.game_id !== DC.gameId)) return;
    box.textContent = DC.t("button_said", { text: DC.entryText(notice.text) });
    box.className = "button-said " + (notice.ok ? "ok" : "refused");
    box.hidden = false;
    clearTimeout(buttonTimer);
    buttonTimer = setTimeout(function () { box.hidden = true; }, DC.buttonSeconds * 1000);
  };
  DC.buttonSeconds = 6;

  function setLive(on) {
    DC.live = on;
    const dot = document.getElementById("live-dot");
    if (dot) {
      dot.classList.toggle("on", on);
      dot.title = on ? DC.t("js_live") : DC.t("js_reconnecting");
    }
  }

  // The browser's EventSource reconnects by itself and sends Last-Event-ID; the server
  // answers with a catch-up message when the game moved on, so nothing is reloaded.
  let retryMs = 2000;
  function connect() {
    const query = DC.gameId === null || DC.gameId === undefined ? "" : "?game=" + DC.gameId;
    const source = new EventSource("/events" + query);
    let polling = null;
    // On every (re)connect a page may have missed changes made before its stream was
    // open (a list page reloads, then a game moves on): let it check once.
    source.onopen = function () { retryMs = 2000; setLive(true); catchUpPicture(); if (DC.onOpen) DC.onOpen(); };
    source.onmessage = function (event) {
      let notice;
      try { notice = JSON.parse(event.data); } catch (err) { return; }
      if (notice.kind === "picture") { DC.onPicture(notice); return; }
      if (notice.type === "button") { DC.onButton(notice); return; }
      if (DC.gameId === null || DC.gameId === undefined) { DC.onNotice && DC.onNotice(notice); return; }
      if (notice.game_id !== DC.gameId) return;
      // The game left the table or came back: the page's frame (entry, banners) changes.
      if (notice.kind === "activated" || notice.kind === "archived") { window.location.reload(); return; }
      if (!DC.snap || notice.version !== DC.snap.version) DC.refresh();
    };
    source.onerror = function () {
      setLive(false);
      if (source.readyState === EventSource.CLOSED) {
        // Refused (all live slots busy: often this phone's own page it just left, whose
        // stream the server frees within a second) or the server is gone: poll, and try
        // again soon, then less and less often.
        if (!polling) polling = setInterval(DC.refresh, 3000);
        setTimeout(function () { clearInterval(polling); connect(); }, retryMs);
        retryMs = Math.min(2 * retryMs, 20000);
      }
    };
    DC.source = source;
  }

  // The engine's short text in the page's language, else the recorded action spelled out.
  // An engine's phrase ({key, fields}) worded from the catalogue, as the server words it
  // (companion/wording.py): a count n picks key_one / key_other, nested phrases are worded
  // first, a list reads "a, b und c" (list_or: "a, b oder c").
  DC.say = function (phrase) {
    if (phrase === null || phrase === undefined) return "";
    if (Array.isArray(phrase)) return joinList(phrase.map(DC.say), "list_and");
    if (typeof phrase !== "object") return String(phrase);
    const fields = phrase.fields || {};
    if (phrase.key === "list_or") return joinList((fields.items || []).map(DC.say), "list_or");
    let key = phrase.key;
    if (typeof fields.n === "number" && DC.catalogue[key + "_one"] !== undefined) key += fields.n === 1 ? "_one" : "_other";
    const filled = {};
    for (const [name, value] of Object.entries(fields)) filled[name] = DC.say(value);
    return DC.t(key, filled);
  };

  function joinList(parts, last) {
    if (parts.length < 2) return parts.join("");
    return parts.slice(0, -1).join(", ") + DC.t(last) + parts[parts.length - 1];
  }

  DC.entryText = function (text, action) {
    if (typeof text === "string") return text;
    if (text && typeof text.key === "string") return DC.say(text);
    if (text && (text[DC.lang] || text.en)) return text[DC.lang] || text.en;
    if (!action) return "";
    const inner = action.event || action;
    return inner.action + ": " + Object.entries(inner).filter(function (e) { return e[0] !== "action"; })
      .map(function (e) { return e[0] + " " + (Array.isArray(e[1]) ? e[1].join("-") : typeof e[1] === "object" ? JSON.stringify(e[1]) : e[1]); }).join(", ");
  };

  // The action in force for a history entry: its latest correction, if any.
  DC.actionInForce = function (snap, entry) {
    const by = entry.corrected_by || [];
    if (by.length) {
      const latest = snap.history.find(function (e) { return e.version === by[by.length - 1]; });
      if (latest) return latest.action.event;
    }
    return entry.action;
  };

  // Fixing in place: the game's own editor (the same controls as entering) opens under
  // the tapped entry; the engine checks the whole log again and may refuse.
  function openEditor(entry, li) {
    if (DC.editing && DC.editing.version === entry.version) { DC.editing = null; DC.show(DC.snap); return; }
    const version = entry.version;
    const status = DC.el("div", { class: "status", role: "status" });
    const editor = DC.editor(JSON.parse(JSON.stringify(DC.actionInForce(DC.snap, entry))), async function (action) {
      const done = await DC.post("/games/" + DC.gameId + "/correct/" + version, action, status);
      // Close this editor only: another one may have been opened meanwhile.
      if (done && DC.editing && DC.editing.node === node) { DC.editing = null; DC.show(DC.snap); }
    });
    const node = DC.el("div", { class: "editor panel", id: "editor" },
      DC.el("strong", {}, DC.t("js_edit_title", { n: version })), editor, status,
      DC.el("button", { type: "button", id: "edit-cancel", onclick: function () { DC.editing = null; DC.show(DC.snap); } }, DC.t("cancel")));
    DC.editing = { version: version, node: node };
    li.append(node);
  }

  // History list (game page shows the latest few, the history page all of them).
  DC.renderHistory = function (snap, limit) {
    const list = document.getElementById("history");
    if (!list) return;
    const entries = (snap.history || []).slice().reverse();
    const shown = limit ? entries.slice(0, limit) : entries;
    const editable = DC.unlocked && DC.editor;
    DC.put(list, ...shown.map(function (entry) {
      let what = DC.entryText(entry.text, entry.action);
      if (entry.kind === "undo") what = DC.t("js_undo_of", { n: entry.target });
      else if (entry.kind === "correct") what = DC.t("js_correct_of", { n: entry.target }) + ": " + what;
      const marks = [];
      if (entry.undone) marks.push(DC.t("js_undone"));
      if (entry.corrected) marks.push(DC.t("js_corrected"));
      // Recorded before the clock was set from the network: the time may be far off.
      if (entry.unsynced) marks.push(DC.t("js_time_unsynced"));
      const when = (entry.unsynced ? "≈" : "") + DC.formatTime(entry.time);
      const head = DC.el("span", { class: "muted small", title: entry.unsynced ? DC.t("time_unsynced_hint") : null },
        "#" + entry.version + " " + when + " · " + DC.who(entry.who));
      const text = DC.el("span", { class: entry.undone ? "undone" : "" }, what);
      const tag = marks.length ? DC.el("span", { class: "tag" }, marks.join(", ")) : null;
      const li = DC.el("li", { "data-version": entry.version });
      if (editable && entry.kind === "action" && !entry.undone) {
        li.append(DC.el("button", { type: "button", class: "entry-edit", "data-edit": entry.version,
          "aria-expanded": DC.editing && DC.editing.version === entry.version ? "true" : "false",
          onclick: function () { openEditor(entry, li); } }, head, " ", text, " ", tag, DC.el("span", { class: "pen", "aria-hidden": "true" }, " ✎")));
      } else {
        li.append(head, " ", text);
        if (tag) li.append(" ", tag);
      }
      if (DC.editing && DC.editing.version === entry.version) li.append(DC.editing.node);
      return li;
    }));
  };

  document.addEventListener("DOMContentLoaded", function () {
    const undo = document.getElementById("undo");
    if (undo) undo.addEventListener("click", function () {
      if (window.confirm(DC.t("js_confirm_undo"))) DC.post("/games/" + DC.gameId + "/undo");
    });
    if (DC.snap) DC.show(DC.snap, DC.unlocked);
    if (document.body.dataset.live === "1") connect();
  });
})();
