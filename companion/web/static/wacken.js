// Kacken auf Wacken: the wristband tally and the Abrocken calculator, shown as arithmetic.
// Every product is worked out by the engine (the preview asks it without storing).
"use strict";
(function () {
  const el = DC.el, t = DC.t;
  let form = null;

  function arithmetic(r) {
    return el("div", { class: "calc" },
      el("div", {}, t("wk_gig", { band: r.band }), " ", el("span", { class: "eq" }, t("wk_gig_formula", { songs: DC.tn("wk_songs_n", r.songs_on_stage), beers: DC.tn("wk_beers_n", r.beers), gig: r.gigfaktor }))),
      el("table", { class: "sheet" },
        el("tr", {}, el("th", {}, ""), el("th", {}, t("wk_fanfaktor")), el("th", {}, t("wk_bands"))),
        r.fans.map(function (f) {
          return el("tr", { "data-player": f.player }, el("td", {}, f.player),
            el("td", {}, t("wk_fan_formula", { cards: DC.tn("wk_cards_n", f.cards), songs: DC.tn("wk_songs_n", f.songs), fan: f.fanfaktor })),
            el("td", { class: "eq" }, f.wristbands_formula));
        })));
  }

  function render(snap, unlocked) {
    const v = snap.view;
    const root = document.getElementById("view");
    const top = Math.max.apply(null, v.tally.map(function (p) { return p.wristbands; }));
    const tally = el("div", { class: "panel" }, el("h2", {}, t("wk_tally")),
      el("table", { class: "sheet tally", id: "tally" }, v.tally.map(function (p) {
        return el("tr", { "data-player": p.name }, el("td", {}, p.name, p.wristbands === top && top > 0 ? " ★" : ""), el("td", { class: "n" }, String(p.wristbands)));
      })));
    const last = v.last_abrocken ? el("div", { class: "panel", id: "last-abrocken" }, el("h2", {}, t("wk_last")), arithmetic(v.last_abrocken)) : null;
    DC.put(root, tally, last);
    const over = document.getElementById("over");
    over.hidden = !v.over;
    if (v.over) DC.put(over, el("h2", {}, t("game_over")), el("p", { class: "verdict" }, t("wk_winners", { names: snap.standings.winners.join(", ") })));
    const entry = document.getElementById("entry");
    if (entry && unlocked && !form) buildForm(entry, snap);
    if (entry && unlocked && v.over) DC.put(entry, el("p", { class: "muted" }, t("game_over")));
  }

  function fields() {
    const data = new FormData(form);
    return data;
  }

  // Typing fires a preview per key; answers can arrive out of order, so only the
  // answer to the latest question may be shown.
  let asked = 0;
  async function preview() {
    const mine = ++asked;
    const out = document.getElementById("preview");
    const response = await fetch("/games/" + DC.gameId + "/wacken/preview", {
      method: "POST", body: fields(), headers: { "X-CSRF-Token": DC.csrf, Accept: "application/json" } });
    const data = await response.json().catch(function () { return null; });
    if (mine !== asked) return;
    if (!response.ok) { DC.put(out, el("p", { class: "muted" }, (data && data.error) || "")); return; }
    DC.put(out, arithmetic(data.result));
  }

  function num(name, value) {
    return el("input", { name: name, type: "number", inputmode: "numeric", min: 0, max: 99, value: value, style: "width:3.4em", oninput: preview });
  }

  function buildForm(entry, snap) {
    const players = snap.setup.players;
    form = el("form", { id: "abrocken-form", onsubmit: function (ev) { ev.preventDefault(); } },
      el("label", {}, t("wk_band")), el("input", { name: "band", id: "band", required: true, maxlength: 40, oninput: preview }),
      el("label", {}, t("wk_songs_on_stage")), num("songs_on_stage", 1),
      el("label", {}, t("wk_initiator")),
      el("select", { name: "initiator", id: "initiator", onchange: preview }, players.map(function (p) { return el("option", { value: p }, p); })),
      el("table", { class: "sheet" },
        el("tr", {}, el("th", {}, t("wk_joins")), el("th", {}, t("wk_beers")), el("th", {}, t("wk_cards")), el("th", {}, t("wk_songs"))),
        players.map(function (p, i) {
          return el("tr", {}, el("td", {}, el("label", { class: "row", style: "margin:0" }, el("input", { type: "checkbox", name: "join_" + i, value: "1", id: "join-" + i, onchange: preview }), p)),
            el("td", {}, num("beers_" + i, 1)), el("td", {}, num("cards_" + i, 1)), el("td", {}, num("songs_" + i, 0)));
        })),
      el("div", { id: "preview", class: "panel" }),
      el("p", { class: "row" },
        el("button", { type: "button", class: "primary", id: "abrocken-send", onclick: function () { send("abrocken"); } }, t("wk_record")),
        el("button", { type: "button", id: "abrocken-cancel", onclick: function () { send("cancel"); } }, t("wk_cancelled"))),
      el("p", { class: "row" }, el("span", {}, t("wk_end")),
        el("button", { type: "button", onclick: function () { end("rock_deck_empty"); } }, t("wk_end_rock")),
        el("button", { type: "button", onclick: function () { end("on_stage_deck_empty"); } }, t("wk_end_stage"))));
    DC.put(entry, form);
  }

  async function send(path) {
    const done = await DC.post("/games/" + DC.gameId + "/wacken/" + path, fields());
    if (done) { form.reset(); DC.put(document.getElementById("preview")); }
  }

  function end(reason) {
    if (!window.confirm(t("wk_end_confirm"))) return;
    const data = new FormData();
    data.append("reason", reason);
    DC.post("/games/" + DC.gameId + "/wacken/end", data);
  }

  // Correcting an entry in place: an Abrocken with the same form as entering one (who
  // joined, beers, cards, songs), a cancelled one by band and initiator, an end by reason.
  DC.editor = function (action, save, saveLabel) {
    const players = DC.snap.setup.players;
    const box = el("div", { class: "edit-wacken" });
    const band = el("input", { id: "edit-band", value: action.band || "", maxlength: 40,
      oninput: function (ev) { action.band = ev.target.value; } });
    const initiator = el("select", { id: "edit-initiator", onchange: function (ev) { action.initiator = ev.target.value; } },
      players.map(function (p) { return el("option", { value: p, selected: action.initiator === p }, p); }));
    const parts = [];
    if (action.action === "game_end") {
      parts.push(el("div", { class: "field" }, el("label", {}, t("wk_end")), " ", el("select", { id: "edit-reason", onchange: function (ev) { action.reason = ev.target.value; } },
        [["rock_deck_empty", "wk_end_rock"], ["on_stage_deck_empty", "wk_end_stage"]].map(function (r) {
          return el("option", { value: r[0], selected: action.reason === r[0] }, t(r[1]));
        }))));
    } else {
      // One line per field: the save button never sits beside the last one.
      parts.push(el("div", { class: "field" }, el("label", {}, t("wk_band")), " ", band),
        el("div", { class: "field" }, el("label", {}, t("wk_initiator")), " ", initiator));
    }
    if (action.action === "abrocken") {
      const number = function (value, set, id) {
        return el("input", { type: "number", inputmode: "numeric", min: 0, max: 99, value: value, id: id, class: "num",
          oninput: function (ev) { set(Number(ev.target.value)); } });
      };
      parts.push(el("div", { class: "field" }, el("label", {}, t("wk_songs_on_stage")), " ",
        number(action.songs_on_stage, function (n) { action.songs_on_stage = n; }, "edit-songs-on-stage")));
      const byName = {};
      action.participants.forEach(function (p) { byName[p.player] = p; });
      parts.push(el("table", { class: "sheet" },
        el("tr", {}, el("th", {}, t("wk_joins")), el("th", {}, t("wk_beers")), el("th", {}, t("wk_cards")), el("th", {}, t("wk_songs"))),
        players.map(function (name, i) {
          const row = byName[name] || { player: name, beers: 1, cards: 1, songs: 0 };
          return el("tr", {}, el("td", {}, el("label", { class: "check" }, el("input", { type: "checkbox", id: "edit-join-" + i, checked: !!byName[name],
              onchange: function (ev) { if (ev.target.checked) byName[name] = row; else delete byName[name]; } }), name)),
            el("td", {}, number(row.beers, function (n) { row.beers = n; }, "edit-beers-" + i)),
            el("td", {}, number(row.cards, function (n) { row.cards = n; }, "edit-cards-" + i)),
            el("td", {}, number(row.songs, function (n) { row.songs = n; }, "edit-songs-" + i)));
        })));
      parts.push(el("div", { class: "row" }, el("button", { type: "button", class: "primary wide", id: "edit-save", onclick: function () {
        action.participants = players.filter(function (n) { return byName[n]; }).map(function (n) { return byName[n]; });
        save(action);
      } }, t(saveLabel || "js_save"))));
    } else {
      parts.push(el("div", { class: "row" }, el("button", { type: "button", class: "primary wide", id: "edit-save", onclick: function () { save(action); } }, t(saveLabel || "js_save"))));
    }
    DC.put(box, parts);
    return box;
  };

  DC.renderers.push(render);
})();
