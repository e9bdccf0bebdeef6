// The latest camera picture with each die's outline and what was read, updated live.
"use strict";
(function () {
  const SVG = "http://www.w3.org/2000/svg";

  function draw(reading) {
    const proposal = document.getElementById("proposal");
    if (proposal) {
      // What the turn button would record now (set by the camera runtime).
      const p = reading && reading.proposal;
      proposal.hidden = !p;
      proposal.className = p && !p.action ? "error" : "";
      proposal.textContent = p ? (p.text[DC.lang] || p.text.en) : "";
    }
    const blocked = document.getElementById("blocked");
    if (blocked) {
      // Something that is not a die lies in the tray (a hand, a cup, a coaster): no rest.
      const why = reading && reading.blocked;
      blocked.hidden = !why;
      blocked.textContent = why ? DC.blocked(why) : "";
    }
    const unfamiliar = document.getElementById("unfamiliar");
    if (unfamiliar) {
      // Dice of a set the recogniser does not know: every die is flagged until enrolled.
      unfamiliar.hidden = !(reading && reading.unfamiliar);
    }
    const cluttered = document.getElementById("cluttered");
    if (cluttered) {
      // Read without a tray, the table around it looked like dice: nothing was read.
      cluttered.hidden = !(reading && reading.cluttered);
    }
    const wrap = document.getElementById("picture-wrap");
    const none = document.getElementById("no-picture");
    const overlay = document.getElementById("overlay");
    const list = document.getElementById("reading");
    if (!reading) { wrap.hidden = true; none.hidden = false; return; }
    wrap.hidden = false; none.hidden = true;
    const size = reading.frame_size || [1, 1];
    overlay.setAttribute("viewBox", "0 0 " + size[0] + " " + size[1]);
    DC.put(overlay);
    DC.put(list);
    // A picture the camera runtime annotated already carries outlines, and pip values
    // unless it says it is not labelled (Rock the Bock faces are named here).
    const outlined = Boolean(reading.annotated);
    const labelled = outlined && reading.labelled !== false;
    (reading.dice || []).forEach(function (die, i) {
      const region = die.region || {};
      const unsure = die.uncertain || die.value === null;
      // A pip die's value as it is; a Rock the Bock face named in the page's language.
      const named = die.value === null ? "?"
        : typeof die.value === "string" ? DC.catalogue["face_" + die.value] || die.value
        : String(die.value);
      const colour = unsure ? "#ff6b6b" : "#4cc38a";
      if (!outlined && region.corners && region.corners.length) {
        const poly = document.createElementNS(SVG, "polygon");
        poly.setAttribute("points", region.corners.map(function (p) { return p[0] + "," + p[1]; }).join(" "));
        poly.setAttribute("fill", "none");
        poly.setAttribute("stroke", colour);
        poly.setAttribute("stroke-width", Math.max(2, size[0] / 300));
        overlay.append(poly);
      }
      if (!labelled && region.center) {
        const label = document.createElementNS(SVG, "text");
        label.setAttribute("x", region.center[0]);
        label.setAttribute("y", region.center[1] - (region.size || 20) * 0.7);
        label.setAttribute("fill", colour);
        label.setAttribute("font-size", Math.max(14, size[0] / 30));
        label.setAttribute("text-anchor", "middle");
        label.textContent = die.value !== null && unsure ? named + "?" : named;
        overlay.append(label);
      }
      list.append(DC.el("li", { class: unsure ? "error" : "" },
        "#" + (i + 1) + ": " + named +
        " (" + Math.round((die.confidence || 0) * 100) + " %)" + (unsure ? " · " + DC.t("camera_unsure") : "")));
    });
  }

  async function load() {
    const response = await fetch("/camera/latest.json", { headers: { Accept: "application/json" } });
    if (!response.ok) return;
    const data = await response.json();
    if (data.reading) document.getElementById("picture").src = "/camera/latest.jpg?t=" + Date.now();
    draw(data.reading);
  }

  DC.onPicture = load;
  document.addEventListener("DOMContentLoaded", load);
})();
