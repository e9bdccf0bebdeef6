// Schocken: Deckel in the middle and per player, this round's ranked throws, the entry panel.
// The ranking, the Deckel a loser would receive and every limit come from the engine's view.
"use strict";
(function () {
  const PIPS = ["", "⚀", "⚁", "⚂", "⚃", "⚄", "⚅"];
  const el = DC.el, t = DC.t;
  const pick = { dice: [], throws: null, hand: false, turned: 0, version: null };

  function lids(n) {
    const row = el("div", { class: "lids", "aria-label": t("sch_deckel_n", { n: n }) });
    for (let i = 0; i < n; i++) row.append(el("span", { class: "lid" }));
    return row;
  }

  function partName(half) { return half === "finale" ? t("sch_finale") : t("sch_half_n", { n: half }); }

  function throwLine(e) {
    if (e.hidden) return el("li", { class: "muted", "data-player": e.player }, e.player + ": " + t("sch_hidden", { n: e.throws }));
    const hand = e.hand && e.hand_matters;
    return el("li", { "data-player": e.player, "data-class": e.class },
      el("strong", {}, e.player), " ",
      el("span", { class: "dice" }, e.dice.map(function (d) { return PIPS[d]; }).join("")), " ",
      el("span", {}, classLabel(e)), hand ? el("span", { class: "hand", title: t("sch_handschock") }, " H") : null,
      el("span", { class: "muted small" }, " · " + DC.tn("sch_throws_used", e.throws) + " · " + t("sch_sets_deckel", { n: e.deckel })));
  }

  function classLabel(e) {
    if (e.class === "normal") return e.text;
    return t("sch_class_" + e.class, { label: e.label });
  }

  function render(snap, unlocked) {
    const v = snap.view, st = snap.standings;
    const root = document.getElementById("view");
    const top = el("div", { class: "panel" },
      el("div", { class: "row" }, el("strong", { id: "half" }, partName(v.half)),
        el("span", { class: "muted" }, t("sch_round_n", { n: v.round })),
        el("span", { class: "tag" }, t("sch_phase_" + v.phase))),
      el("div", { class: "verdict", id: "turn" }, turnText(v)),
      v.half_losers.length ? el("div", { class: "verdict half-losers", id: "half-losers" }, v.half_losers.map(function (name, i) {
        return el("span", { class: "tag loser" }, t("sch_half_lost_by", { part: partName(i + 1), name: name }));
      })) : null,
      st.finale_players.length ? el("div", { class: "verdict", id: "finale" }, t("sch_finale_between", { names: st.finale_players.join(" – ") })) : null,
      v.warnings.map(function (w) { return el("p", { class: "error small" }, DC.say(w)); }));
    const middle = el("div", { class: "panel middle" }, el("div", { class: "muted" }, t("sch_middle")),
      el("div", { class: "count", id: "middle" }, String(v.middle)), lids(v.middle));
    const players = el("div", { class: "players" }, v.players.map(function (p) {
      const cls = "player" + (p.name === v.to_throw || p.name === v.awaiting_reveal ? " turn" : "") + (p.in_half ? "" : " out");
      return el("div", { class: cls, "data-player": p.name },
        el("div", { class: "name" }, p.name, p.name === v.starter ? " ▶" : ""),
        el("div", { class: "deckel" }, String(p.deckel)), lids(p.deckel),
        el("div", { class: "muted small" }, !p.in_half ? t("sch_out") : p.thrown ? t("sch_thrown") : p.active ? t("sch_waiting") : ""));
    }));
    // A finished game has no round going on: its last round says how it ended.
    const ranked = v.over ? null : el("div", { class: "panel" }, el("h2", {}, t("sch_this_round")),
      v.throws.length ? el("ol", { class: "throws", id: "throws" }, v.throws.map(throwLine)) : el("p", { class: "muted" }, t("sch_no_throws")),
      v.would_receive ? el("p", { class: "verdict", id: "would-receive" }, receiveText(v.would_receive)) : null);
    const last = v.last_round ? el("div", { class: "panel small", id: "last-round" }, el("h2", {}, t("sch_last_round")),
      el("p", {}, t("sch_last_loser", { name: v.last_round.loser, n: v.last_round.deckel, from: fromText(v.last_round.from) })),
      el("ol", { class: "throws" }, v.last_round.ranking.map(throwLine))) : null;
    DC.put(root, banner(v), top, middle, players, ranked, last, rounds(v), lidsByHalf(v), legend(), stats(st));
    const over = document.getElementById("over");
    over.hidden = !v.over;
    if (v.over) DC.put(over, el("h2", {}, t("game_over")), el("p", { class: "verdict" },
      t(v.durchmarsch ? "sch_lost_durchmarsch" : "sch_lost_game", { name: v.game_loser })));
    const entry = document.getElementById("entry");
    if (entry && unlocked) renderEntry(entry, v);
  }

  // A half (or the Finale) has just begun: say who lost the last one, big, until the
  // first throw of the new part is recorded.
  function banner(v) {
    const last = v.last_round;
    if (!last || !last.ended_half || v.over || v.throws.length) return null;
    return el("div", { class: "panel banner", id: "half-banner", role: "status" },
      el("strong", {}, t("sch_half_lost_by", { part: partName(last.half), name: last.loser })), " ",
      t("sch_part_begins", { part: partName(v.half), name: v.to_throw }));
  }

  // Round by round: who started (with how many throws), best and worst throw, Deckel moved.
  function rounds(v) {
    if (!v.rounds.length) return null;
    // Cells wrap (a phone is narrow), the three dice of a throw never break apart. The
    // dice are digits here: die glyphs at the table's small size cannot be told apart.
    const cell = function (e) {
      if (e.hidden) return "?";
      return [el("span", { class: "dice-run" }, e.dice.join("-")),
        " " + e.player + (e.hand && e.hand_matters ? " H" : "")];
    };
    return el("details", { class: "panel", id: "rounds", open: true }, el("summary", {}, el("strong", {}, t("sch_rounds_title"))),
      el("div", { class: "scroll" }, el("table", { class: "sheet small rounds" },
        el("tr", {}, el("th", {}, "#"), el("th", {}, t("sch_col_started")), el("th", {}, t("sch_col_best")), el("th", {}, t("sch_col_worst")), el("th", {}, t("deckel_col"))),
        v.rounds.slice().reverse().map(function (r) {
          return el("tr", { class: r.ended_half ? "ended" : "" },
            el("td", {}, (r.half === "finale" ? "F" : r.half + ".") + r.round),
            el("td", {}, r.starter || "", r.throws ? " (" + DC.tn("sch_throws_used", r.throws) + ")" : ""),
            el("td", {}, cell(r.best)), el("td", {}, cell(r.worst)),
            el("td", {}, "+" + r.deckel + " " + r.loser));
        }))));
  }

  // Deckel each player received per half, from the engine's own count.
  function lidsByHalf(v) {
    if (!v.deckel_by_half.length) return null;
    const names = v.players.map(function (p) { return p.name; });
    return el("div", { class: "panel", id: "lids-by-half" }, el("h2", {}, t("sch_lids_title")),
      el("table", { class: "sheet small" },
        el("tr", {}, el("th", {}, ""), v.deckel_by_half.map(function (h) { return el("th", {}, partName(h.half)); })),
        names.map(function (name) {
          return el("tr", {}, el("td", {}, name), v.deckel_by_half.map(function (h) { return el("td", {}, String(h.received[name])); }));
        })));
  }

  function legend() {
    return el("p", { class: "muted small legend", id: "legend" }, t("sch_legend"));
  }

  function turnText(v) {
    if (v.over) return t("sch_lost_game", { name: v.game_loser });
    if (v.awaiting_reveal) return t("sch_reveal", { name: v.awaiting_reveal });
    if (v.throw_limit === null) return t("sch_starts", { name: v.to_throw });
    return t("sch_may_throw", { name: v.to_throw, n: v.throw_limit });
  }

  function fromText(from) {
    if (from === "middle") return t("sch_from_middle");
    if (from === "everyone") return t("sch_from_everyone");
    return t("sch_from_player", { name: from });
  }

  function receiveText(w) {
    if (w.schock_aus) return t("sch_would_lose_half", { name: w.player });
    return t("sch_would_receive", { name: w.player, n: w.deckel, from: fromText(w.from) });
  }

  function stats(st) {
    const keys = ["halves_lost", "deckel_received", "rounds_lost", "schock_aus", "schocks", "handschocks", "generals", "strassen"];
    const table = el("table", { class: "sheet small", id: "stats" },
      el("tr", {}, el("th", {}, ""), keys.map(function (k) { return el("th", { title: t("stat_" + k) }, t("stat_short_" + k)); })),
      st.players.map(function (p) {
        const s = st.statistics[p];
        return el("tr", {}, el("td", {}, p), keys.map(function (k) { return el("td", {}, String(s[k])); }));
      }));
    const tab = st.tab ? el("p", { class: "small" }, t("sch_tab") + ": " + Object.entries(st.tab.totals).map(function (e) { return e[0] + " " + e[1] + " " + st.tab.unit; }).join(", ")) : null;
    return el("details", { class: "panel" }, el("summary", {}, t("sch_statistics")), table,
      el("p", { class: "muted small" }, keys.map(function (k) { return t("stat_short_" + k) + " = " + t("stat_" + k); }).join(" · ")), tab);
  }

  // The entry panel: three dice in the order they are tapped, how many throws (preset to
  // the most allowed), from the hand or not, record. Who throws and every limit come from the engine's view.
  function renderEntry(entry, v) {
    if (v.over) { DC.put(entry, el("p", { class: "muted" }, t("game_over"))); return; }
    const revealing = !!v.awaiting_reveal;
    const player = v.awaiting_reveal || v.to_throw;
    const maxThrows = revealing ? 3 : v.throws_left;
    // Whatever was recorded (here or on another phone) starts the entry afresh.
    if (pick.version !== DC.snap.version) { pick.dice = []; pick.throws = null; pick.hand = false; pick.turned = 0; pick.version = DC.snap.version; }
    // The count starts at the most throws the player may use (what a player mostly does),
    // so a throw is four taps: three dice, record; another count is one tap more.
    if (pick.throws === null || pick.throws > maxThrows) pick.throws = maxThrows;
    if (pick.throws === 1) pick.hand = true;
    const shown = el("div", { class: "dice picked", id: "picked" });
    const send = el("button", { type: "button", class: "primary wide", id: "throw-send" }, t(revealing ? "sch_reveal_send" : "sch_record"));
    const hidden = (!revealing && v.throw_limit === null)
      ? el("button", { type: "button", id: "throw-hidden", onclick: function () { submit(true); } }, t("sch_hidden_send")) : null;
    const hand = el("input", { type: "checkbox", id: "hand", checked: pick.hand, disabled: pick.throws === 1,
      onchange: function (ev) { pick.hand = ev.target.checked; } });
    const throwButtons = revealing ? null : el("div", { class: "row throws-row", role: "group", "aria-label": t("sch_throws_label") },
      el("span", {}, t("sch_throws_label")),
      [1, 2, 3].map(function (n) {
        return el("button", { type: "button", class: "die-btn" + (pick.throws === n ? " selected" : ""), "data-throws": n,
          "aria-pressed": pick.throws === n ? "true" : "false", disabled: n > maxThrows,
          // A new throw count starts the hand box afresh: one throw is always from the hand.
          onclick: function () { pick.throws = n; pick.hand = n === 1; renderEntry(entry, v); } }, String(n));
      }),
      el("label", { class: "check" }, hand, t("sch_hand_label")));
    const handRow = revealing ? el("label", { class: "check" }, hand, t("sch_hand_label")) : null;
    const turned = snapRules().turn_sixes ? el("label", {}, t("sch_turned_label"), " ",
      el("select", { id: "turned", onchange: function (ev) { pick.turned = Number(ev.target.value); } },
        [0, 1, 2].map(function (n) { return el("option", { value: n, selected: pick.turned === n }, String(n)); }))) : null;
    function update() {
      shown.textContent = pick.dice.length ? pick.dice.map(function (d) { return PIPS[d]; }).join(" ") : t("sch_tap_dice");
      shown.classList.toggle("empty", !pick.dice.length);
      send.disabled = pick.dice.length !== 3 || (!revealing && pick.throws === null);
      if (hidden) hidden.disabled = pick.throws !== 3;
    }
    const clear = el("button", { type: "button", id: "dice-clear", onclick: function () { pick.dice = []; update(); } }, t("clear"));
    const pad = el("div", { class: "pad6" }, [1, 2, 3, 4, 5, 6].map(function (d) {
      return el("button", { type: "button", class: "die-btn", "data-die": d, "aria-label": String(d),
        onclick: function () { if (pick.dice.length < 3) { pick.dice.push(d); update(); } } }, PIPS[d]);
    }));
    function submit(asHidden) {
      const data = new FormData();
      if (asHidden) { data.append("hidden", "1"); data.append("throws", "3"); }
      else {
        pick.dice.forEach(function (d, i) { data.append("d" + (i + 1), d); });
        if (!revealing) data.append("throws", pick.throws);
        data.append("hand", pick.hand ? "1" : "0");
        data.append("turned", pick.turned);
      }
      DC.post("/games/" + DC.gameId + "/schocken/throw", data);
    }
    send.onclick = function () { submit(false); };
    DC.put(entry,
      el("p", { class: "verdict entry-who" }, revealing ? t("sch_reveal", { name: player }) : t("sch_enter_for", { name: player, n: maxThrows })),
      el("div", { class: "row picked-row" }, shown, clear),
      pad, throwButtons, handRow, turned, el("div", { class: "row" }, send, hidden));
    update();
  }

  // Correcting a recorded throw in place: each die is chosen directly (no cycling), then
  // the throws and the hand box, as when it was entered. The engine judges the result.
  // ``unsure``: values of dice the camera was unsure of (a draft to check); their rows
  // are marked "?" so the one tap to mend goes to the right die.
  DC.editor = function (action, save, saveLabel, unsure) {
    const box = el("div", { class: "edit-schocken" });
    const marked = [];
    (unsure || []).forEach(function (v) {
      const i = (action.dice || []).findIndex(function (d, k) { return d === v && marked.indexOf(k) < 0; });
      if (i >= 0) marked.push(i);
    });
    function draw() {
      const parts = [];
      if (Array.isArray(action.dice)) {
        action.dice.forEach(function (value, i) {
          const doubt = marked.indexOf(i) >= 0;
          parts.push(el("div", { class: "dice-row" + (doubt ? " unsure" : ""), role: "group", "aria-label": t("js_die_n", { n: i + 1 }) },
            el("span", { class: "muted small die-label" }, t("js_die_n", { n: i + 1 }) + (doubt ? " ?" : "")),
            [1, 2, 3, 4, 5, 6].map(function (d) {
              return el("button", { type: "button", class: "die-btn" + (value === d ? " selected" : ""),
                "data-edit-die": i, "data-value": d, "aria-pressed": value === d ? "true" : "false",
                onclick: function () { action.dice[i] = d; draw(); } }, PIPS[d]);
            })));
        });
      }
      if (action.action === "throw") {
        parts.push(el("div", { class: "row", role: "group", "aria-label": t("sch_throws_label") }, el("span", {}, t("sch_throws_label")),
          [1, 2, 3].map(function (n) {
            return el("button", { type: "button", class: "die-btn" + (action.throws === n ? " selected" : ""),
              "data-edit-throws": n, "aria-pressed": action.throws === n ? "true" : "false",
              onclick: function () { action.throws = n; if (Array.isArray(action.dice)) action.hand = n === 1; draw(); } }, String(n));
          })));
      }
      if (Array.isArray(action.dice)) {
        const oneThrow = action.action === "throw" && action.throws === 1;
        parts.push(el("label", { class: "check" }, el("input", { type: "checkbox", id: "edit-hand",
          checked: oneThrow || action.hand !== false, disabled: oneThrow,
          onchange: function (ev) { action.hand = ev.target.checked; } }), t("sch_hand_label")));
      }
      parts.push(el("button", { type: "button", class: "primary wide", id: "edit-save", onclick: function () { save(action); } }, t(saveLabel || "js_save")));
      DC.put(box, parts);
    }
    draw();
    return box;
  };

  function snapRules() { return (DC.snap && DC.snap.view && DC.snap.view.rules) || {}; }

  DC.renderers.push(render);
})();
