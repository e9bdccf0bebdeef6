// The scorekeeper's tray calibration: the camera's raw frame, four corners to drag or
// tap, save. The outline is proposed and checked by the companion; this only moves points.
"use strict";
(function () {
  const SVG = "http://www.w3.org/2000/svg";
  let size = [1, 1];
  let corners = [];
  let tapping = null; // index of the next corner "Tap all four" sets, or null
  let dragging = null;

  function $(id) { return document.getElementById(id); }

  function toFrame(event) {
    const box = $("tray-overlay").getBoundingClientRect();
    const x = (event.clientX - box.left) / box.width * size[0];
    const y = (event.clientY - box.top) / box.height * size[1];
    return [Math.round(Math.min(Math.max(x, 0), size[0]) * 10) / 10,
            Math.round(Math.min(Math.max(y, 0), size[1]) * 10) / 10];
  }

  function screenDistance(a, b) {
    const box = $("tray-overlay").getBoundingClientRect();
    const dx = (a[0] - b[0]) / size[0] * box.width;
    const dy = (a[1] - b[1]) / size[1] * box.height;
    return Math.hypot(dx, dy);
  }

  function draw() {
    const overlay = $("tray-overlay");
    overlay.setAttribute("viewBox", "0 0 " + size[0] + " " + size[1]);
    const stroke = Math.max(2, size[0] / 320);
    const parts = [];
    if (corners.length >= 2) {
      const poly = document.createElementNS(SVG, corners.length === 4 ? "polygon" : "polyline");
      poly.setAttribute("points", corners.map(function (p) { return p[0] + "," + p[1]; }).join(" "));
      poly.setAttribute("fill", "rgba(76,195,138,0.12)");
      poly.setAttribute("stroke", "#4cc38a");
      poly.setAttribute("stroke-width", stroke);
      parts.push(poly);
    }
    corners.forEach(function (p, i) {
      const dot = document.createElementNS(SVG, "circle");
      dot.setAttribute("cx", p[0]);
      dot.setAttribute("cy", p[1]);
      dot.setAttribute("r", Math.max(8, size[0] / 70));
      dot.setAttribute("fill", "rgba(255,80,80,0.55)");
      dot.setAttribute("stroke", "#fff");
      dot.setAttribute("stroke-width", stroke);
      dot.setAttribute("class", "tray-corner");
      dot.dataset.corner = String(i + 1);
      const label = document.createElementNS(SVG, "text");
      label.setAttribute("x", p[0]);
      label.setAttribute("y", p[1] - Math.max(14, size[0] / 45));
      label.setAttribute("fill", "#fff");
      label.setAttribute("stroke", "#000");
      label.setAttribute("stroke-width", stroke / 2);
      label.setAttribute("font-size", Math.max(16, size[0] / 20));
      label.setAttribute("text-anchor", "middle");
      label.textContent = String(i + 1);
      parts.push(dot, label);
    });
    DC.put(overlay, parts);
    $("tray-save").disabled = corners.length !== 4;
    $("tray-retap").textContent = tapping === null
      ? DC.t("tray_retap") : DC.t("tray_tap_next", { n: tapping + 1 });
    document.body.dataset.corners = JSON.stringify(corners);
  }

  function down(event) {
    if (corners.length === 0 && tapping === null) return;
    event.preventDefault();
    const p = toFrame(event);
    if (tapping !== null) {
      corners[tapping] = p;
      corners = corners.slice(0, tapping + 1);
      tapping = tapping === 3 ? null : tapping + 1;
      draw();
      return;
    }
    let nearest = 0;
    corners.forEach(function (c, i) {
      if (screenDistance(c, p) < screenDistance(corners[nearest], p)) nearest = i;
    });
    corners[nearest] = p; // a tap moves the nearest corner there; a drag carries it on
    dragging = nearest;
    $("tray-overlay").setPointerCapture(event.pointerId);
    draw();
  }

  function move(event) {
    if (dragging === null) return;
    event.preventDefault();
    corners[dragging] = toFrame(event);
    draw();
  }

  function up() { dragging = null; }

  async function load() {
    $("tray-saved").hidden = true;
    const data = await DC.getJSON("/camera/tray.json");
    if (!data) return;
    size = data.frame_size;
    corners = data.corners;
    tapping = null;
    $("tray-note").textContent = DC.t("tray_" + data.source);
    const img = $("tray-frame");
    img.onload = function () { $("tray-wrap").hidden = false; draw(); };
    img.src = "/camera/tray/frame.jpg?t=" + Date.now();
  }

  async function save() {
    const data = await DC.post("/camera/tray", { corners: corners });
    if (!data) return;
    const die = data.profile.die_size;
    const note = $("tray-saved");
    note.textContent = die === null ? DC.t("tray_saved_no_die") : DC.t("tray_saved", { die: die });
    if (data.small_die) note.textContent += " " + DC.t("tray_small_die", { die: Math.round(die) });
    note.hidden = false;
    corners = data.profile.corners;
    draw();
  }

  document.addEventListener("DOMContentLoaded", function () {
    const overlay = $("tray-overlay");
    overlay.addEventListener("pointerdown", down);
    overlay.addEventListener("pointermove", move);
    overlay.addEventListener("pointerup", up);
    overlay.addEventListener("pointercancel", up);
    $("tray-retap").addEventListener("click", function () {
      tapping = 0;
      corners = [];
      $("tray-saved").hidden = true;
      draw();
    });
    $("tray-reload").addEventListener("click", load);
    $("tray-save").addEventListener("click", save);
    load();
  });
})();
