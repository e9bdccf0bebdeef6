// Rock the Bock: score sheets like the paper pad, the pending roll and its legal choices.
// Legal choices, receivers and scores all come from the engine's view.
"use strict";
(function () {
  const FACES = ["bock", "wolf", "goat_red", "goat_blue", "goat_green", "goat_yellow"];
  const el = DC.el, t = DC.t;
  const counts = {};

  function face(kind, n) {
    return el("span", { class: "face " + kind, title: t("face_" + kind) }, n === undefined ? t("face_short_" + kind) : String(n));
  }

  function sheet(player, view) {
    const current = player.current;
    const isTurn = view.turn && view.turn.name === player.name;
    const boxes = el("div", { class: "boxes", "aria-label": t("rtb_dice_crossed") });
    const crossed = current ? current.crossed : 10;
    for (let i = 0; i < 10; i++) boxes.append(el("span", { class: "box" + (i < crossed ? " crossed" : "") }));
    const rows = player.rounds.map(function (r, i) {
      return el("tr", {}, el("td", {}, String(i + 1)), el("td", {}, r.bocks), el("td", {}, r.wolves), el("td", {}, r.goats), el("td", {}, el("strong", {}, fmt(r.score))));
    });
    if (current) {
      rows.push(el("tr", { class: "live" }, el("td", {}, String(view.round) + "…"), el("td", {}, current.bocks), el("td", {}, current.wolves), el("td", {}, current.goats), el("td", { class: "muted" }, fmt(current.score))));
    }
    return el("div", { class: "player pad" + (isTurn ? " turn" : ""), "data-player": player.name },
      el("h3", {}, el("span", { class: "swatch c-" + player.colour }), player.name, isTurn ? " ◀" : ""),
      boxes,
      el("table", {},
        el("tr", {}, el("th", {}, t("rtb_round")), el("th", {}, face("bock")), el("th", {}, face("wolf")), el("th", {}, face("goat_" + player.colour)), el("th", {}, "±")),
        rows,
        el("tr", {}, el("th", { colspan: 4 }, t("total")), el("th", { class: "total" }, fmt(player.total)))));
  }

  // The combined ranking across every pad: totals, best first, and whose turn it is.
  function ranking(st, view) {
    const order = st.players.slice().sort(function (a, b) { return b.total - a.total; });
    return el("div", { class: "panel" }, el("h2", {}, t("rtb_ranking")),
      el("ol", { class: "ranking", id: "ranking" }, order.map(function (p) {
        const isTurn = !view.over && view.turn && view.turn.name === p.name;
        return el("li", { "data-player": p.name }, el("span", { class: "swatch c-" + p.colour }), el("strong", {}, p.name), " ",
          fmt(p.total), isTurn ? el("span", { class: "tag active" }, " " + t("rtb_is_turn")) : null);
      })));
  }

  function fmt(n) { return n > 0 ? "+" + n : String(n); }

  function render(snap, unlocked) {
    const view = snap.view, st = view.standings;
    const root = document.getElementById("view");
    const head = el("div", { class: "panel verdict" },
      view.over
        ? el("strong", {}, t("rtb_winners", { names: st.winners.join(", ") }))
        : [el("div", {}, t("rtb_round_of", { n: view.round, of: view.rounds })),
           el("div", { id: "turn" }, el("span", { class: "swatch c-" + view.turn.colour }),
             t(view.phase === "choose" ? "rtb_turn_choose" : "rtb_turn_roll", { name: view.turn.name, n: view.dice_left[view.turn.name] }))]);
    const pending = view.pending_roll
      ? el("div", { class: "panel", id: "pending" }, el("div", { class: "muted small" }, t("rtb_pending")),
          el("div", { class: "row" }, Object.entries(view.pending_roll).map(function (e) { return el("span", {}, face(e[0], e[1])); })),
          view.reroll ? el("p", { class: "error" }, t("rtb_reroll")) : null)
      : null;
    DC.put(root, head, pending, ranking(st, view), el("div", { class: "players pads" }, st.players.map(function (p) { return sheet(p, view); })));
    const entry = document.getElementById("entry");
    if (entry && unlocked) renderEntry(entry, view);
  }

  function post(path, fields) {
    const data = new FormData();
    for (const [k, v] of Object.entries(fields)) data.append(k, v);
    return DC.post("/games/" + DC.gameId + "/rockthebock/" + path, data);
  }

  function renderEntry(entry, view) {
    if (view.over) { DC.put(entry, el("p", { class: "muted" }, t("game_over"))); return; }
    const name = view.turn.name;
    if (view.phase === "choose" && !view.reroll) {
      const buttons = [];
      view.choices.forEach(function (c) {
        if (c.choose_receiver) {
          c.receivers.forEach(function (r) {
            buttons.push(el("button", { type: "button", class: "choice", "data-kind": c.kind, "data-victim": r,
              onclick: function () { post("choose", { kind: c.kind, victim: r }); } },
              face(c.kind, c.count), " ", t("face_" + c.kind), ": ", t("rtb_wolves_to", { n: c.count, name: r })));
          });
        } else {
          const to = c.receivers.length ? t("rtb_to_sheet", { name: c.receivers[0] }) : t("rtb_dumped");
          buttons.push(el("button", { type: "button", class: "choice", "data-kind": c.kind,
            onclick: function () { post("choose", { kind: c.kind }); } },
            face(c.kind, c.count), " ", t("face_" + c.kind), ": ", t("rtb_take", { n: c.count }), " → ", to));
        }
      });
      DC.put(entry, el("p", {}, t("rtb_choose_for", { name: name })), ...buttons);
      return;
    }
    const left = view.dice_left[name];
    const total = el("strong", { id: "roll-total" });
    const send = el("button", { type: "button", class: "primary", id: "roll-send" }, t("rtb_record_roll"));
    function update() {
      const sum = FACES.reduce(function (s, f) { return s + (counts[f] || 0); }, 0);
      total.textContent = t("rtb_sum", { sum: sum, left: left });
      send.disabled = sum === 0;
    }
    const rows = FACES.map(function (f) {
      const n = el("span", { class: "n", id: "count-" + f }, String(counts[f] || 0));
      function change(d) { counts[f] = Math.max(0, (counts[f] || 0) + d); n.textContent = counts[f]; update(); }
      return el("div", { class: "counter" }, face(f), el("span", {}, t("face_" + f)), el("span", {}, n),
        el("span", { class: "row" },
          el("button", { type: "button", class: "die-btn", "aria-label": "−", onclick: function () { change(-1); } }, "−"),
          el("button", { type: "button", class: "die-btn", "data-face": f, "aria-label": "+", onclick: function () { change(1); } }, "+")));
    });
    send.onclick = async function () {
      const fields = {};
      FACES.forEach(function (f) { fields["count_" + f] = counts[f] || 0; });
      const done = await post("roll", fields);
      if (done) FACES.forEach(function (f) { counts[f] = 0; });
    };
    DC.put(entry, el("p", {}, t(view.reroll ? "rtb_roll_again_for" : "rtb_roll_for", { name: name, n: left })), ...rows, el("p", { class: "row" }, total, send));
    update();
  }

  // Correcting a roll or a choice in place, with the entry's own controls: a count per
  // face for a roll; for a choice the kind (named in words) and, for wolves, who gets them.
  // ``unsure``: faces of dice the camera was unsure of (a draft to check), marked "?".
  DC.editor = function (action, save, saveLabel, unsure) {
    const box = el("div", { class: "edit-rockthebock" });
    const others = DC.snap.setup.players.map(function (p) { return p.name; })
      .filter(function (n) { return n !== action.player; });
    function draw() {
      const parts = [];
      if (action.action === "roll") {
        action.faces = action.faces || {};
        FACES.forEach(function (f) {
          const change = function (d) { return function () {
            const next = Math.max(0, (action.faces[f] || 0) + d);
            if (next) action.faces[f] = next; else delete action.faces[f];
            draw();
          }; };
          const doubt = (unsure || []).indexOf(f) >= 0;
          parts.push(el("div", { class: "counter" + (doubt ? " unsure" : "") }, face(f), el("span", {}, t("face_" + f) + (doubt ? " ?" : "")),
            el("span", { class: "n", "data-edit-count": f }, String(action.faces[f] || 0)),
            el("span", { class: "row" },
              el("button", { type: "button", class: "die-btn", "data-edit-face": f + "-", "aria-label": "−", onclick: change(-1) }, "−"),
              el("button", { type: "button", class: "die-btn", "data-edit-face": f + "+", "aria-label": "+", onclick: change(1) }, "+"))));
        });
      } else {
        FACES.forEach(function (f) {
          parts.push(el("button", { type: "button", class: "choice" + (action.kind === f ? " selected" : ""), "data-edit-kind": f,
            "aria-pressed": action.kind === f ? "true" : "false",
            onclick: function () { action.kind = f; if (f !== "wolf") delete action.victim; else action.victim = action.victim || others[0]; draw(); } },
            face(f), " ", t("face_" + f)));
        });
        if (action.kind === "wolf") {
          parts.push(el("label", {}, t("rtb_wolves_go_to"), " ",
            el("select", { id: "edit-victim", onchange: function (ev) { action.victim = ev.target.value; } },
              others.map(function (n) { return el("option", { value: n, selected: action.victim === n }, n); }))));
        }
      }
      parts.push(el("button", { type: "button", class: "primary wide", id: "edit-save", onclick: function () { save(action); } }, t(saveLabel || "js_save")));
      DC.put(box, parts);
    }
    draw();
    return box;
  };

  DC.renderers.push(render);
})();
