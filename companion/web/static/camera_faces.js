// Enrolling the table's Rock the Bock dice: tap a face to take the camera's picture of
// the dice showing it; the companion counts the pictures and enrols the face with the last.
"use strict";
(function () {
  let needed = 0; // pictures a face needs (the companion says how many)

  function $(id) { return document.getElementById(id); }

  function faceName(face) { return DC.t("face_" + face); }

  function showFrame() {
    const img = $("faces-frame");
    img.onload = function () { img.hidden = false; };
    img.onerror = function () { img.hidden = true; };
    img.src = "/camera/tray/frame.jpg?t=" + Date.now();
  }

  function state(entry) {
    if (entry.pictures > 0) return DC.t("faces_pictures", { n: entry.pictures, needed: needed });
    if (entry.enrolled !== null) return DC.t("faces_enrolled_from", { n: entry.enrolled });
    return DC.t("faces_builtin");
  }

  function render(data) {
    DC.put($("faces"), data.faces.map(function (entry) {
      const again = entry.pictures > 0
        ? DC.el("button", { type: "button", "data-again": entry.face,
                            onclick: function () { startAgain(entry.face); } }, DC.t("faces_again"))
        : "";
      return DC.el("li", { "data-face": entry.face },
        DC.el("button", { type: "button", class: "primary", "data-face": entry.face,
                          onclick: function () { capture(entry.face); } }, faceName(entry.face)),
        " ",
        DC.el("span", { class: "muted", "data-state": entry.face }, state(entry)),
        " ", again);
    }));
  }

  // A wrong face tapped, or dice that moved over: that face's pictures so far are dropped.
  async function startAgain(face) {
    const data = await DC.post("/camera/faces/again", { face: face });
    if (data) {
      const note = $("faces-note");
      note.textContent = DC.t("faces_restarted", { face: faceName(face), needed: needed });
      note.hidden = false;
    }
    load();
  }

  async function load() {
    const data = await DC.getJSON("/camera/faces.json");
    if (!data) return;
    needed = data.pictures;
    render(data);
    showFrame();
  }

  async function capture(face) {
    const data = await DC.post("/camera/faces", { face: face });
    if (!data) { load(); return; }
    const note = $("faces-note");
    const name = faceName(face);
    if (data.enrolled === undefined) {
      note.textContent = DC.t("faces_taken", { n: data.pictures, needed: needed, face: name, dice: data.dice });
    } else {
      note.textContent = DC.t("faces_done", { face: name, n: data.enrolled, dropped: data.dropped });
      if (data.confusable) note.textContent += " " + DC.t("faces_confusable", { face: name, other: faceName(data.nearest) });
    }
    note.hidden = false;
    load();
  }

  document.addEventListener("DOMContentLoaded", function () {
    $("faces-reload").addEventListener("click", showFrame);
    load();
  });
})();
