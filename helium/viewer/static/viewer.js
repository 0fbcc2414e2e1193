// Live pages: a server-sent event says what the page shows changed; fetch the page's body again and swap it
// in. No reload: open <details> stay open, and a fork message being typed is not thrown away.
(function () {
  "use strict";
  const live = document.getElementById("live");
  if (!live || !window.EventSource) return;
  const state = document.getElementById("live-state");
  let version = live.dataset.version;
  let fetching = false;
  let wanted = null;

  function typing() {
    const active = document.activeElement;
    return active && live.contains(active) && active.tagName === "TEXTAREA" && active.value !== "";
  }

  function detailsKey(d) {
    const row = d.closest("[data-checkpoint]");
    return (row ? row.dataset.checkpoint : "") + "|" + (d.className || "changes");
  }

  async function refresh() {
    if (fetching || wanted === null || wanted === version) return;
    if (typing()) { setTimeout(refresh, 1000); return; }
    fetching = true;
    try {
      const response = await fetch(live.dataset.body, {cache: "no-store"});
      if (response.ok) {
        const open = Array.from(live.querySelectorAll("details[open]")).map(detailsKey);
        live.innerHTML = await response.text();
        live.querySelectorAll("details").forEach(function (d) {
          if (open.indexOf(detailsKey(d)) >= 0) d.open = true;
        });
        const marker = document.getElementById("body-version");
        version = marker ? marker.dataset.version : wanted;
        live.dataset.version = version;
      }
    } finally {
      fetching = false;
    }
    if (wanted !== version) setTimeout(refresh, 200);
  }

  const events = new EventSource(live.dataset.events);
  events.addEventListener("change", function (event) {
    wanted = JSON.parse(event.data);
    refresh();
  });
  events.onopen = function () { if (state) state.classList.remove("off"); };
  events.onerror = function () { if (state) state.classList.add("off"); };
})();
